// The checkout.completed dispatcher against real Postgres (claims as service_jobs through the
// api_gateway login) and local receivers over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookDispatcher, WEBHOOK_USER_AGENT } from "../../supabase/functions/_shared/webhooks/dispatcher.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { completedCheckout, failLeftoverDeliveriesAfterEach, freePort, newWebhookSecret, startReceiver, verifies } from "./receiver.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());
failLeftoverDeliveriesAfterEach(() => t);

interface DeliveryRow {
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  seconds_until_next: number;
  payload_text: string;
}

async function delivery(sessionId: string): Promise<DeliveryRow> {
  const [row] = await t.owner<DeliveryRow[]>`
    select status, attempts, last_status_code, last_error, next_attempt_at, payload::text as payload_text,
           extract(epoch from next_attempt_at - now())::float8 as seconds_until_next
    from checkout.webhook_deliveries where session_id = ${sessionId}`;
  return row!;
}

async function attempts(sessionId: string) {
  return t.owner<{ status_code: number | null; error: string | null }[]>`
    select a.status_code, a.error from checkout.webhook_attempts a
    join checkout.webhook_deliveries d on d.id = a.delivery_id
    where d.session_id = ${sessionId} order by a.id`;
}

const dispatcher = (options: { timeoutMs?: number; production?: boolean } = {}) =>
  createWebhookDispatcher({
    db: t.db,
    config: { ...t.config, APP_ENV: options.production ? "production" : t.config.APP_ENV },
    timeoutMs: options.timeoutMs,
  });

describe("delivery", () => {
  it("delivers once, signed both ways, with the exact stored body and the event id as stored", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    try {
      const { sessionId, eventId } = await completedCheckout(t, receiver.url, secret);
      expect(await dispatcher().drainOnce()).toBe(1);

      expect(receiver.received).toHaveLength(1);
      const [got] = receiver.received;
      const row = await delivery(sessionId);
      expect(got!.body).toBe(row.payload_text);
      expect(JSON.parse(got!.body)).toMatchObject({ type: "checkout.completed", checkoutId: sessionId, tokenIds: ["7"], amount: "1000" });
      expect(got!.headers["x-service-event-id"]).toBe(eventId);
      expect(got!.headers["webhook-id"]).toBe(eventId);
      expect(got!.headers["x-service-signature"]).toMatch(/^v1=[0-9a-f]{64}$/);
      expect(got!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Math.abs(Number(got!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
      expect(got!.headers["content-type"]).toBe("application/json");
      expect(got!.headers["user-agent"]).toBe(WEBHOOK_USER_AGENT);
      expect(receiver.events).toEqual(new Set([eventId]));
      expect(row).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 204 });
      expect(await attempts(sessionId)).toEqual([{ status_code: 204, error: null }]);

      // Nothing is due any more: a second drain sends nothing.
      expect(await dispatcher().drainOnce()).toBe(0);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("receiver down (connection refused), then up: delivered later with the same event id, both attempts recorded", async () => {
    const secret = newWebhookSecret();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks/checkout`;
    const { sessionId, eventId } = await completedCheckout(t, url, secret);

    await dispatcher().drainOnce();
    const failed = await delivery(sessionId);
    expect(failed).toMatchObject({ status: "pending", attempts: 1, last_status_code: null });
    expect(failed.last_error).toMatch(/ECONNREFUSED/);

    const receiver = await startReceiver([secret], () => ({}), port);
    try {
      // The backoff's wait, skipped.
      await t.owner`update checkout.webhook_deliveries set next_attempt_at = now() where session_id = ${sessionId}`;
      await dispatcher().drainOnce();
      expect(receiver.received.map((r) => r.headers["x-service-event-id"])).toEqual([eventId]);
      expect(await delivery(sessionId)).toMatchObject({ status: "delivered", attempts: 2 });
      const log = await attempts(sessionId);
      expect(log).toHaveLength(2);
      expect(log[0]!.error).toMatch(/ECONNREFUSED/);
      expect(log[1]).toEqual({ status_code: 204, error: null });
    } finally {
      await receiver.close();
    }
  });

  it("500: rescheduled within the first backoff ceiling (10 s, full jitter); a redirect is not followed", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret], (n) => (n === 1 ? { status: 500 } : { status: 302, headers: { location: "http://127.0.0.1:1/" } }));
    try {
      const { sessionId } = await completedCheckout(t, receiver.url, secret);
      await dispatcher().drainOnce();
      const first = await delivery(sessionId);
      expect(first).toMatchObject({ status: "pending", attempts: 1, last_status_code: 500, last_error: "HTTP 500" });
      expect(first.seconds_until_next).toBeGreaterThan(0);
      expect(first.seconds_until_next).toBeLessThanOrEqual(10);

      await t.owner`update checkout.webhook_deliveries set next_attempt_at = now() where session_id = ${sessionId}`;
      await dispatcher().drainOnce();
      const second = await delivery(sessionId);
      expect(second).toMatchObject({ status: "pending", attempts: 2, last_status_code: 302 });
      expect(second.last_error).toMatch(/redirects are not followed/);
      expect(second.seconds_until_next).toBeLessThanOrEqual(20);
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });

  it("410 stops the delivery", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret], () => ({ status: 410 }));
    try {
      const { sessionId } = await completedCheckout(t, receiver.url, secret);
      await dispatcher().drainOnce();
      expect(await delivery(sessionId)).toMatchObject({ status: "stopped", attempts: 1, last_status_code: 410 });
    } finally {
      await receiver.close();
    }
  });

  it("honours Retry-After", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret], () => ({ status: 503, headers: { "retry-after": "120" } }));
    try {
      const { sessionId } = await completedCheckout(t, receiver.url, secret);
      await dispatcher().drainOnce();
      const row = await delivery(sessionId);
      expect(row).toMatchObject({ status: "pending", last_status_code: 503 });
      expect(row.seconds_until_next).toBeGreaterThan(115);
      expect(row.seconds_until_next).toBeLessThanOrEqual(121);
    } finally {
      await receiver.close();
    }
  });

  it("a slow receiver does not hold up another receiver's delivery; it times out on its own", async () => {
    const secret = newWebhookSecret();
    const slow = await startReceiver([secret], () => ({ delayMs: 3000 }));
    const fast = await startReceiver([secret]);
    try {
      const slowCheckout = await completedCheckout(t, slow.url, secret);
      const fastCheckout = await completedCheckout(t, fast.url, secret);
      const started = Date.now();
      const draining = dispatcher({ timeoutMs: 1000 }).drainOnce();
      await expect.poll(() => fast.received.length, { timeout: 900, interval: 20 }).toBe(1);
      expect(fast.received[0]!.at - started).toBeLessThan(900);
      await expect.poll(async () => (await delivery(fastCheckout.sessionId)).status, { timeout: 900, interval: 20 }).toBe("delivered");

      await draining;
      const timedOut = await delivery(slowCheckout.sessionId);
      expect(timedOut).toMatchObject({ status: "pending", attempts: 1, last_status_code: null });
      expect(timedOut.last_error).toMatch(/no response within 1000 ms/);
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await slow.close();
      await fast.close();
    }
  });

  it("two dispatchers draining at once deliver each event exactly once", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    try {
      const checkouts = [];
      for (let i = 0; i < 20; i++) checkouts.push(await completedCheckout(t, receiver.url, secret));
      const claimed = await Promise.all([dispatcher().drainOnce(20), dispatcher().drainOnce(20)]);
      expect(claimed[0] + claimed[1]).toBe(20);
      const sent = receiver.received.map((r) => r.headers["x-service-event-id"]).sort();
      expect(sent).toEqual(checkouts.map((c) => c.eventId).sort());
      const [row] = await t.owner<{ delivered: number }[]>`
        select count(*)::int as delivered from checkout.webhook_deliveries
        where status = 'delivered' and attempts = 1 and session_id = any(${checkouts.map((c) => c.sessionId)}::text[])`;
      expect(row!.delivered).toBe(20);
    } finally {
      await receiver.close();
    }
  });

  it("during a rotation overlap both signatures are sent, and each secret verifies on its own", async () => {
    const previous = newWebhookSecret();
    const current = newWebhookSecret();
    const receiver = await startReceiver([current]);
    try {
      const { sessionId } = await completedCheckout(t, receiver.url, current, previous);
      await dispatcher().drainOnce();
      expect(await delivery(sessionId)).toMatchObject({ status: "delivered" });
      const [got] = receiver.received;
      expect(got!.headers["x-service-signature"]).toMatch(/^v1=[0-9a-f]{64} v1=[0-9a-f]{64}$/);
      expect(got!.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
      expect(verifies([current], got!.body, got!.headers)).toBe(true);
      expect(verifies([previous], got!.body, got!.headers)).toBe(true);
      expect(verifies([newWebhookSecret()], got!.body, got!.headers)).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

describe("production (SSRF)", () => {
  it("refuses a loopback address, literal or resolved, records the attempt and retries later", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    try {
      const literal = await completedCheckout(t, `https://127.0.0.1:${receiver.port}/hooks/checkout`, secret);
      const named = await completedCheckout(t, `https://localhost:${receiver.port}/hooks/checkout`, secret);
      await dispatcher({ production: true }).drainOnce();
      expect(receiver.received).toHaveLength(0);

      const refusedLiteral = await delivery(literal.sessionId);
      expect(refusedLiteral).toMatchObject({ status: "pending", attempts: 1, last_status_code: null });
      expect(refusedLiteral.last_error).toBe("refused 127.0.0.1: loopback IPv4 address");
      expect(refusedLiteral.seconds_until_next).toBeGreaterThan(0);
      const refusedNamed = await delivery(named.sessionId);
      expect(refusedNamed).toMatchObject({ status: "pending", attempts: 1 });
      expect(refusedNamed.last_error).toMatch(/^refused localhost \((127\.0\.0\.1|::1)\): loopback IPv(4|6) address$/);
    } finally {
      await receiver.close();
    }
  });

  it("gives up at once on a plain http URL", async () => {
    const secret = newWebhookSecret();
    const { sessionId } = await completedCheckout(t, "http://store.example/hooks/checkout", secret);
    await dispatcher({ production: true }).drainOnce();
    expect(await delivery(sessionId)).toMatchObject({ status: "failed", attempts: 1, last_error: "production delivers to https URLs only" });
  });
});
