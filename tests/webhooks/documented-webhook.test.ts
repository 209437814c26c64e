// The checkout.completed webhook as the API's document describes it, against a real delivery: the
// dispatcher drains a completed checkout's outbox row to a receiver, and the body and headers that
// arrive are what `webhooks` says. A payload its schema refuses is not sent at all. And the docs'
// receiver (docs/snippets/verify-webhook.ts) takes a real delivery once and refuses a forged one.
import type { AddressInfo } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookReceiver, type CheckoutCompleted } from "../../docs/snippets/verify-webhook.ts";
import { createWebhookDispatcher } from "../../supabase/functions/_shared/webhooks/dispatcher.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { completedCheckout, failLeftoverDeliveriesAfterEach, newWebhookSecret, startReceiver } from "./receiver.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

let t: TestContext;
// deno-lint-ignore no-explicit-any
let webhook: any;
let ajv: Ajv2020;
beforeAll(async () => {
  t = await createTestContext();
  const document = await (await t.call("/api/v3/openapi")).json();
  webhook = document.webhooks["checkout.completed"].post;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: "openapi.json", components: document.components });
});
afterAll(() => t.close());
failLeftoverDeliveriesAfterEach(() => t);

const drain = () => createWebhookDispatcher({ db: t.db, config: t.config }).drainOnce();

/** `schema` of the document as a validator (its $refs resolved in the document). */
// deno-lint-ignore no-explicit-any
const validatorOf = (schema: any) => ajv.compile(schema.$ref ? { $ref: `openapi.json${schema.$ref}` } : schema);

// What HTTP itself adds to a request (Node's fetch): not the dispatcher's to document.
const TRANSPORT_HEADERS = new Set(["host", "connection", "content-length", "accept", "accept-language", "accept-encoding", "sec-fetch-mode"]);

describe("the documented checkout.completed webhook", () => {
  it("is what a real delivery carries: its body by the payload schema, its headers each documented and valid", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    try {
      const { sessionId, eventId } = await completedCheckout(t, receiver.url, secret);
      expect(await drain()).toBe(1);
      const [delivery] = receiver.received;
      expect(delivery).toBeDefined();

      const payload = JSON.parse(delivery!.body);
      expect(payload).toMatchObject({ type: "checkout.completed", checkoutId: sessionId });
      const validPayload = validatorOf(webhook.requestBody.content["application/json"].schema);
      expect(validPayload(payload) ? [] : validPayload.errors).toEqual([]);
      expect(validPayload({ ...payload, tokenIds: undefined }), "the schema refuses a payload without tokenIds").toBe(false);

      const documented = new Map<string, { required: boolean; schema: unknown }>(webhook.parameters
        .filter((p: { in: string }) => p.in === "header")
        .map((p: { name: string; required?: boolean; schema: unknown }) => [p.name.toLowerCase(), { required: p.required ?? false, schema: p.schema }]));
      expect([...documented.keys()]).toEqual(expect.arrayContaining(["webhook-id", "webhook-timestamp", "webhook-signature"]));
      const sent = Object.keys(delivery!.headers).filter((name) => !TRANSPORT_HEADERS.has(name));
      expect(sent.filter((name) => !documented.has(name)), "headers sent but not documented").toEqual([]);
      for (const [name, { required, schema }] of documented) {
        const value = delivery!.headers[name];
        if (value === undefined) {
          expect(required, `${name} is documented as required but was not sent`).toBe(false);
          continue;
        }
        const valid = validatorOf(schema);
        expect(valid(value) ? [] : valid.errors, `${name}: ${value}`).toEqual([]);
      }
      expect(delivery!.headers["webhook-id"]).toBe(eventId);
    } finally {
      await receiver.close();
    }
  });

  it("is never sent with a payload its schema refuses: the attempt records why and is kept for later", async () => {
    const secret = newWebhookSecret();
    const receiver = await startReceiver([secret]);
    try {
      const { sessionId } = await completedCheckout(t, receiver.url, secret);
      await t.owner`update checkout.webhook_deliveries set payload = payload - 'tokenIds' where session_id = ${sessionId}`;
      expect(await drain()).toBe(1);
      expect(receiver.received).toEqual([]);
      const [row] = await t.owner<{ status: string; last_error: string }[]>`
        select status, last_error from checkout.webhook_deliveries where session_id = ${sessionId}`;
      expect(row).toEqual({ status: "pending", last_error: "the checkout.completed payload does not match its documented schema (tokenIds)" });
    } finally {
      await receiver.close();
    }
  });
});

describe("the docs' receiver (docs/snippets/verify-webhook.ts)", () => {
  it("takes a real delivery once, even sent again, and refuses a forged one with 401", async () => {
    const secret = newWebhookSecret();
    const events: Array<{ event: CheckoutCompleted; eventId: string }> = [];
    const server = createWebhookReceiver(secret, (event, eventId) => void events.push({ event, eventId }));
    await listenOnLoopback(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/checkout`;
    try {
      const { sessionId, eventId } = await completedCheckout(t, url, secret);
      expect(await drain()).toBe(1);
      const [delivered] = await t.owner<{ status: string; last_status_code: number }[]>`
        select status, last_status_code from checkout.webhook_deliveries where session_id = ${sessionId}`;
      expect(delivered).toEqual({ status: "delivered", last_status_code: 204 });
      expect(events).toEqual([{ event: expect.objectContaining({ type: "checkout.completed", checkoutId: sessionId }), eventId }]);

      // The same event again (as retryCheckoutWebhook sends it): acknowledged, not handled twice.
      await t.owner`update checkout.webhook_deliveries set status = 'pending', next_attempt_at = now() where session_id = ${sessionId}`;
      expect(await drain()).toBe(1);
      expect(events).toHaveLength(1);

      // Signed with another secret: refused.
      const forged = await completedCheckout(t, url, newWebhookSecret());
      expect(await drain()).toBe(1);
      const [refused] = await t.owner<{ last_status_code: number }[]>`
        select last_status_code from checkout.webhook_deliveries where session_id = ${forged.sessionId}`;
      expect(refused!.last_status_code).toBe(401);
      expect(events).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
