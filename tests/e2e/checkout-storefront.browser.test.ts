// The checkout end to end, in Chromium: the store's backend creates a session through the real Deno
// gateway (its webhook dispatcher running), the storefront embeds it with the SDK, an injected
// wallet backed by anvil pays, the storefront sees `loaded` then `payment-success`, and the store's
// receiver (tests/webhooks/receiver.ts: Standard Webhooks and the v1= hex HMAC in constant time,
// event ids recorded once) gets the signed `checkout.completed` webhook. Then the receiver is down
// when the payment completes, and comes up: the dispatcher's own retry delivers the same event.
import { type Hex, parseAbi, parseEventLogs } from "viem";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserCheckout, received, type Session, startBrowserCheckout } from "../checkout-page/browser-fixtures.ts";
import { newOrderId } from "../checkout/checkout-fixtures.ts";
import { freePort, startReceiver, verifies } from "../webhooks/receiver.ts";

const PRICE = 10n ** 16n;
const transferEvent = parseAbi(["event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)"]);

let f: BrowserCheckout;
beforeAll(async () => {
  f = await startBrowserCheckout({ WEBHOOK_DISPATCH: "true" });
}, 180_000);
afterAll(() => f?.close());

interface DeliveryLog {
  items: {
    deliveryId: string;
    eventId: string;
    status: string;
    attemptCount: number;
    nextAttemptAt: string;
    deliveredAt: string | null;
    attempts: { attemptedAt: string; statusCode: number | null; error: string | null }[];
  }[];
}

/** The store backend's calls about one of its checkouts, with its API key, to the gateway. */
const backend = (checkoutId: string, path: string, method = "GET") =>
  fetch(`${f.gateway.url}/api/v3/checkout/sessions/${checkoutId}/${path}`, { method, headers: { "x-api-key": f.owner.key } });
const deliveryLog = async (checkoutId: string): Promise<DeliveryLog> => (await backend(checkoutId, "webhook/deliveries")).json();

/** Pays `session` from the storefront as `customer`; returns the mint's hash after checking the storefront's two messages. */
async function payInStorefront(session: Session, customer = f.w.anvil.accounts[2]!): Promise<Hex> {
  const { page, outcome } = await f.payFromStorefront(session, customer);
  const transactionHash = (outcome.data.payload as { transactionHash: Hex }).transactionHash;
  // In this order, each from the frame and accepted by isPaymentEvent with the checkout origin.
  expect(await received(page)).toEqual([
    { origin: f.checkout, data: { type: "loaded", payload: { checkoutId: session.checkoutId, status: "PENDING" } }, accepted: true, fromFrame: true },
    { origin: f.checkout, data: { type: "payment-success", payload: { checkoutId: session.checkoutId, transactionHash } }, accepted: true, fromFrame: true },
  ]);
  await page.close();
  await f.expectCompleted(session, outcome);
  return transactionHash;
}

describe("storefront → payment → signed webhook", { timeout: 90_000 }, () => {
  it("the receiver gets one verified checkout.completed matching the session; a retry of it is acknowledged and recorded once", async () => {
    const secrets: string[] = []; // the receiver knows the secret once the create call has returned it
    const receiver = await startReceiver(secrets);
    try {
      const customer = f.w.anvil.accounts[2]!;
      const externalOrderId = newOrderId();
      const before = f.seen.length;
      const session = await f.staticPriceSession(PRICE, null, { externalOrderId, webhookUrl: receiver.url });
      expect(session.webhookSecret).toMatch(/^whsec_/);
      secrets.push(session.webhookSecret);

      const transactionHash = await payInStorefront(session, customer);
      const eventId = `checkout-completed-${session.checkoutId}`;
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
      const [got] = receiver.received;
      expect(got!.headers["x-service-event-id"]).toBe(eventId);

      // The payload is the session and the chain's account of the payment.
      const receipt = await f.w.chain.publicClient.getTransactionReceipt({ hash: transactionHash });
      const minted = parseEventLogs({ abi: transferEvent, logs: receipt.logs, eventName: "Transfer" });
      expect(minted.map((l) => l.args.to)).toEqual([customer.address]);
      const read = await (await fetch(`${f.gateway.url}/api/v3/checkout/sessions/${session.checkoutId}`, {
        headers: { "x-checkout-client-secret": session.clientSecret },
      })).json();
      expect(JSON.parse(got!.body)).toEqual({
        type: "checkout.completed",
        checkoutId: session.checkoutId,
        externalOrderId,
        transactionHash,
        blockNumber: Number(receipt.blockNumber),
        amount: String(PRICE),
        paymentToken: null,
        chainId: f.w.anvil.chainId,
        collectionAddress: read.collectionAddress,
        tokenIds: minted.map((l) => l.args.tokenId.toString()),
        ownerWallet: customer.address,
        completedAt: read.completedAt,
      });

      // Standard Webhooks verifies it with the secret the create call returned; a tampered body
      // verifies neither way, and the receiver refuses it without recording anything.
      expect(new Webhook(session.webhookSecret).verify(got!.body, got!.headers as Record<string, string>)).toEqual(JSON.parse(got!.body));
      const tampered = got!.body.replace(customer.address, f.w.anvil.accounts[4]!.address);
      expect(tampered).not.toBe(got!.body);
      expect(() => new Webhook(session.webhookSecret).verify(tampered, got!.headers as Record<string, string>)).toThrow();
      expect(verifies([session.webhookSecret], tampered, got!.headers)).toBe(false);
      const signedHeaders = Object.fromEntries(Object.entries(got!.headers)
        .filter(([name]) => name === "content-type" || name.startsWith("webhook-") || name.startsWith("x-service-")) as [string, string][]);
      expect((await fetch(receiver.url, { method: "POST", headers: signedHeaders, body: tampered })).status).toBe(401);
      expect((await fetch(receiver.url, { method: "POST", headers: signedHeaders, body: got!.body })).status).toBe(204); // the control
      expect(receiver.received).toHaveLength(2);
      receiver.received.pop(); // the control was the test's own replay, not a delivery

      await expect.poll(async () => (await deliveryLog(session.checkoutId)).items.map((d) => [d.status, d.attempts.map((a) => a.statusCode)]))
        .toEqual([["delivered", [204]]]);

      // The store asks for it again: a second delivery of the same event, acknowledged, recorded once.
      const retry = await backend(session.checkoutId, "webhook/retry", "POST");
      expect(retry.status).toBe(202);
      expect(await retry.json()).toMatchObject({ eventId, status: "pending" });
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(2);
      expect(receiver.received[1]!.headers["x-service-event-id"]).toBe(eventId);
      expect(receiver.received[1]!.body).toBe(got!.body);
      expect(receiver.events).toEqual(new Set([eventId]));
      await expect.poll(async () => (await deliveryLog(session.checkoutId)).items.map((d) => [d.eventId, d.status, d.attempts.map((a) => a.statusCode)]))
        .toEqual([[eventId, "delivered", [204]], [eventId, "delivered", [204]]]);

      // Neither secret is in any request line or referrer the browser sent; the webhook secret in no header at all.
      const requests = f.seen.slice(before);
      expect(requests.some((r) => r.line.includes(`/api/v3/checkout/sessions/${session.checkoutId}/confirm`))).toBe(true);
      const contains = (value: unknown, secret: string) => (JSON.stringify(value) ?? "").includes(secret);
      for (const secret of [session.clientSecret, session.webhookSecret]) {
        expect(requests.filter((r) => contains(r.line, secret) || contains(r.headers.referer, secret))).toEqual([]);
      }
      expect(requests.filter((r) => contains(r.headers, session.webhookSecret))).toEqual([]);
      expect(receiver.received.filter((r) => contains(r, session.webhookSecret) || contains(r, session.clientSecret))).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("receiver down when the payment completes, then up: the dispatcher's retry delivers the same event, both attempts logged", async () => {
    const port = await freePort();
    const session = await f.staticPriceSession(PRICE, null, { webhookUrl: `http://127.0.0.1:${port}/hooks/checkout` });
    await payInStorefront(session, f.w.anvil.accounts[3]!);
    const eventId = `checkout-completed-${session.checkoutId}`;

    // The first attempt, refused; polled often: the next one comes 1 to 10 s later.
    let log: DeliveryLog;
    const deadline = Date.now() + 15_000;
    do {
      log = await deliveryLog(session.checkoutId);
      if (log.items[0]?.attempts.length) break;
      await new Promise((r) => setTimeout(r, 50));
    } while (Date.now() < deadline);
    const [failed] = log.items;
    expect(failed).toMatchObject({ eventId, status: "pending", attemptCount: 1, deliveredAt: null });
    expect(failed!.attempts).toEqual([{ attemptedAt: expect.any(String), statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) }]);
    const backoff = Date.parse(failed!.nextAttemptAt) - Date.parse(failed!.attempts[0]!.attemptedAt);
    expect(backoff).toBeGreaterThanOrEqual(900);
    expect(backoff).toBeLessThanOrEqual(10_100);

    // Up on the same port. No nudge: the gateway's dispatcher finds the due retry itself (its sweep).
    const receiver = await startReceiver([session.webhookSecret], () => ({}), port);
    try {
      const up = Date.now();
      await expect.poll(() => receiver.received.length, { timeout: 25_000, interval: 100 }).toBe(1);
      console.log(`[e2e webhook] backoff ${backoff} ms; delivered ${Date.now() - up} ms after the receiver came up`);
      expect(receiver.received[0]!.headers["x-service-event-id"]).toBe(eventId);
      expect(receiver.events).toEqual(new Set([eventId]));
      await expect.poll(async () => (await deliveryLog(session.checkoutId)).items[0]?.status).toBe("delivered");
      const [delivered] = (await deliveryLog(session.checkoutId)).items;
      expect(delivered).toMatchObject({ deliveryId: failed!.deliveryId, eventId, attemptCount: 2 });
      expect(delivered!.attempts).toEqual([failed!.attempts[0], { attemptedAt: expect.any(String), statusCode: 204, error: null }]);
      expect((await deliveryLog(session.checkoutId)).items).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
