// The jobs function (what pg_cron calls through pg_net on Supabase): refuses calls without
// its secret before doing any work, and with it drains the webhook outbox.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { kickWebhookDispatch } from "../../supabase/functions/_shared/webhooks/kick.ts";
import { createJobsApp, JOBS_SECRET_HEADER } from "../../supabase/functions/jobs/app.ts";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";
import { completedCheckout, failLeftoverDeliveriesAfterEach, newWebhookSecret, startReceiver } from "./receiver.ts";

const JOBS_SECRET = "jobs-secret-0123456789-0123456789-abcdef";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());
failLeftoverDeliveriesAfterEach(() => t);

const jobs = (secret: string | undefined) => createJobsApp({ db: t.db, config: { ...t.config, JOBS_SECRET: secret } });
const run = (secret: string | undefined, presented?: string, method = "POST") =>
  jobs(secret).request("/jobs", { method, headers: presented === undefined ? {} : { [JOBS_SECRET_HEADER]: presented } });

async function deliveryStatus(sessionId: string): Promise<{ status: string; attempts: number }> {
  const [row] = await t.owner<{ status: string; attempts: number }[]>`
    select status, attempts from checkout.webhook_deliveries where session_id = ${sessionId}`;
  return row!;
}

describe("the jobs function", () => {
  it("with its secret: delivers what is due, once", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    try {
      const { sessionId, eventId } = await completedCheckout(t, receiver.url, secret);
      const first = await run(JOBS_SECRET, JOBS_SECRET);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ reconciled: { checked: 0, completed: 0 }, relays: { completed: 0, rebroadcast: 0, replaced: 0, failed: 0 }, deliveriesAttempted: 1 });
      expect(receiver.events).toEqual(new Set([eventId]));
      expect(await deliveryStatus(sessionId)).toEqual({ status: "delivered", attempts: 1 });

      expect(await (await run(JOBS_SECRET, JOBS_SECRET)).json()).toMatchObject({ deliveriesAttempted: 0 });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("refuses a missing or wrong secret (401) and, when none is configured, every call (503), before any work", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    try {
      const { sessionId } = await completedCheckout(t, receiver.url, secret);
      await expectErrorBody(await run(JOBS_SECRET), 401, "unauthenticated");
      await expectErrorBody(await run(JOBS_SECRET, `${JOBS_SECRET}x`), 401, "unauthenticated");
      await expectErrorBody(await run(JOBS_SECRET, JOBS_SECRET.slice(0, -1)), 401, "unauthenticated");
      await expectErrorBody(await run(undefined, JOBS_SECRET), 503, "jobs_not_configured");
      await expectErrorBody(await run(JOBS_SECRET, JOBS_SECRET, "GET"), 405, "method_not_allowed");
      expect(receiver.received).toHaveLength(0);
      expect(await deliveryStatus(sessionId)).toEqual({ status: "pending", attempts: 0 });
    } finally {
      await receiver.close();
    }
  });
});

describe("the kick after a completing commit", () => {
  const host = globalThis as { EdgeRuntime?: { waitUntil(task: Promise<unknown>): void } };
  afterEach(() => {
    delete host.EdgeRuntime;
  });

  it("on Supabase's Edge Runtime sends the webhook after the response, through waitUntil", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    const tasks: Promise<unknown>[] = [];
    host.EdgeRuntime = { waitUntil: (task) => tasks.push(task) };
    try {
      const { eventId } = await completedCheckout(t, receiver.url, secret);
      kickWebhookDispatch({ db: t.db, config: t.config });
      expect(tasks).toHaveLength(1);
      await Promise.all(tasks);
      expect(receiver.events).toEqual(new Set([eventId]));
    } finally {
      await receiver.close();
    }
  });

  it("elsewhere leaves the delivery to the running dispatcher", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    try {
      const { sessionId } = await completedCheckout(t, receiver.url, secret);
      kickWebhookDispatch({ db: t.db, config: t.config });
      await new Promise((settle) => setTimeout(settle, 200));
      expect(receiver.received).toHaveLength(0);
      expect(await deliveryStatus(sessionId)).toEqual({ status: "pending", attempts: 0 });
    } finally {
      await receiver.close();
    }
  });
});
