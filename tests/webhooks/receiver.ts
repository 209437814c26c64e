// What the webhook tests need around the dispatcher: a completed checkout with its outbox row, and
// a store's receiver that verifies like SPEC 6.1 asks (standardwebhooks, plus the v1= hex HMAC in
// constant time) and records event ids idempotently.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { SecretBox } from "../../supabase/functions/_shared/crypto/secret-box.ts";
import { webhookSecretAssociatedData } from "../../supabase/functions/_shared/webhooks/dispatcher.ts";
import { afterEach } from "vitest";
import type { TestContext } from "../setup/test-context.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** Stores `secret` (and `previous`, still valid for an hour) for (owner, url), sealed as the service seals it. */
export async function storeWebhookSecret(t: TestContext, ownerId: string, url: string, secret: string, previous?: string): Promise<void> {
  const box = await SecretBox.fromBase64(t.config.SECRETS_ENCRYPTION_KEY!);
  const associated = webhookSecretAssociatedData(ownerId, url);
  const sealed = Buffer.from(await box.seal(secret, associated));
  const sealedPrevious = previous ? Buffer.from(await box.seal(previous, associated)) : null;
  await t.owner`
    insert into checkout.webhook_secrets (owner_id, webhook_url, secret_ciphertext, previous_secret_ciphertext, previous_valid_until)
    values (${ownerId}, ${url}, ${sealed}, ${sealedPrevious}, ${previous ? new Date(Date.now() + 3600_000) : null})
    on conflict (owner_id, webhook_url) do update
      set secret_ciphertext = excluded.secret_ciphertext,
          previous_secret_ciphertext = excluded.previous_secret_ciphertext,
          previous_valid_until = excluded.previous_valid_until`;
}

const randomAddress = () => `0x${randomBytes(20).toString("hex")}`;

/** A PENDING checkout for `webhookUrl` (a collection of its own), not yet completed. */
export async function pendingCheckout(t: TestContext, ownerId: string, webhookUrl: string): Promise<string> {
  const [session] = await t.owner<{ id: string }[]>`
    with c as (
      insert into checkout.collections (owner_id, chain_id, address, pricing, token_decimals, verified_owner_address)
      values (${ownerId}, 31337, ${randomAddress()}, 'dynamic', 18, ${randomAddress()})
      returning id
    )
    insert into checkout.sessions (owner_id, collection_id, external_order_id, request_fingerprint, request, price,
                                   client_secret_hash, client_secret_ciphertext, expires_at)
    select ${ownerId}, c.id, ${`order-${randomBytes(6).toString("hex")}`}, ${randomBytes(32)},
           ${t.owner.json({ webhookUrl, price: "1000" })}, 1000, ${randomBytes(32)}, '\\x00', now() + interval '1 hour'
    from c
    returning id`;
  return session!.id;
}

/** Completes it the way the reconciler does (complete_session_as_job): outbox row and NOTIFY in one transaction. */
export async function completeCheckout(t: TestContext, sessionId: string): Promise<void> {
  await t.owner`
    select checkout.complete_session_as_job(${sessionId}, ${`0x${randomBytes(32).toString("hex")}`}, ${randomAddress()},
                                            array[7]::numeric[], 1000, null, 42)`;
}

/**
 * For a file whose tests drain the outbox: after each test, what it left pending is failed, so each
 * test's dispatcher run delivers only that test's own deliveries.
 */
export function failLeftoverDeliveriesAfterEach(t: () => TestContext): void {
  afterEach(async () => {
    await t().owner`update checkout.webhook_deliveries set status = 'failed' where status = 'pending'`;
  });
}

/** A completed checkout of a new owner whose outbox row is due; returns its ids. */
export async function completedCheckout(t: TestContext, webhookUrl: string, secret: string, previous?: string) {
  const user = await t.userWithKey();
  await storeWebhookSecret(t, user.id, webhookUrl, secret, previous);
  const sessionId = await pendingCheckout(t, user.id, webhookUrl);
  await completeCheckout(t, sessionId);
  return { ownerId: user.id, sessionId, eventId: `checkout-completed-${sessionId}` };
}

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * A store's receiver on 127.0.0.1. Refuses (401) what does not verify with one of `secrets` both
 * ways; records each event id once (`events`), every verified request in `received`; answers with
 * `reply` (default 204).
 */
export async function startReceiver(secrets: string[], reply: (n: number) => Reply = () => ({}), port = 0) {
  const received: ReceivedWebhook[] = [];
  const events = new Set<string>();
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    if (!verifies(secrets, body, request.headers)) {
      response.writeHead(401).end();
      return;
    }
    received.push({ headers: request.headers, body, at: Date.now() });
    const answer = reply(received.length);
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    // Idempotent: a duplicate of a recorded event is acknowledged and not processed again.
    events.add(String(request.headers["x-service-event-id"]));
    response.writeHead(answer.status ?? 204, answer.headers).end();
  });
  await listenOnLoopback(server, port);
  const { port: bound } = server.address() as AddressInfo;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}/hooks/checkout`,
    received,
    events,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Both SPEC 6.1's v1= hex HMAC (constant time) and Standard Webhooks, with any one of `secrets`. */
export function verifies(secrets: string[], body: string, headers: http.IncomingHttpHeaders): boolean {
  const signatures = String(headers["x-service-signature"] ?? "").split(" ");
  const hexOk = secrets.some((secret) => {
    const expected = Buffer.from(`v1=${createHmac("sha256", secret).update(body).digest("hex")}`);
    return signatures.some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected));
  });
  const standardOk = secrets.some((secret) => {
    try {
      new Webhook(secret).verify(body, headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  });
  return hexOk && standardOk;
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const receiver = await startReceiver([]);
  await receiver.close();
  return receiver.port;
}
