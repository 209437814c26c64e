// The running dispatcher is woken by the completing transaction's NOTIFY, not by its sweep.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createWebhookDispatcher } from "../../supabase/functions/_shared/webhooks/dispatcher.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { completeCheckout, newWebhookSecret, pendingCheckout, startReceiver, storeWebhookSecret } from "./receiver.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

it("a completed checkout is delivered within moments of its commit (LISTEN/NOTIFY), long before the sweep", async () => {
  const secret = newWebhookSecret();
  const receiver = await startReceiver([secret]);
  // A sweep this rare cannot be what delivers it.
  const dispatcher = createWebhookDispatcher({ db: t.db, config: t.config, sweepMs: 60_000 });
  try {
    const user = await t.userWithKey();
    await storeWebhookSecret(t, user.id, receiver.url, secret);
    const sessionId = await pendingCheckout(t, user.id, receiver.url);
    await dispatcher.start();

    const committed = Date.now();
    await completeCheckout(t, sessionId);
    await expect.poll(() => receiver.received.length, { timeout: 2000, interval: 10 }).toBe(1);
    expect(receiver.received[0]!.at - committed).toBeLessThan(1000);
    expect(receiver.received[0]!.headers["x-service-event-id"]).toBe(`checkout-completed-${sessionId}`);
    await expect.poll(async () => {
      const [row] = await t.owner<{ status: string }[]>`select status from checkout.webhook_deliveries where session_id = ${sessionId}`;
      return row!.status;
    }, { timeout: 2000, interval: 20 }).toBe("delivered");
  } finally {
    await dispatcher.stop();
    await receiver.close();
  }
});

it("the running loop claims again as slots free up: more due deliveries than slots are all delivered without the sweep", async () => {
  const secret = newWebhookSecret();
  const receiver = await startReceiver([secret]);
  const dispatcher = createWebhookDispatcher({ db: t.db, config: t.config, sweepMs: 60_000, concurrency: 2 });
  try {
    const user = await t.userWithKey();
    await storeWebhookSecret(t, user.id, receiver.url, secret);
    const sessions = [];
    for (let i = 0; i < 7; i++) sessions.push(await pendingCheckout(t, user.id, receiver.url));
    for (const sessionId of sessions) await completeCheckout(t, sessionId);
    await dispatcher.start();
    await expect.poll(() => receiver.events.size, { timeout: 3000, interval: 10 }).toBe(7);
    expect(receiver.received).toHaveLength(7);
  } finally {
    await dispatcher.stop();
    await receiver.close();
  }
});
