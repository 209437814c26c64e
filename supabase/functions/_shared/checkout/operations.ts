// The NFT checkout, in the order a payment flows (the domain; its REST routes are in api/collections/
// and api/checkout/, the hosted page's HTML in api/checkout-page/):
//   collection    _shared/collections/   a store registers its deployed ERC-721 (operations.ts); the
//                                        contract's interface, reads, calls and receipt check (contract.ts)
//   session       operations.ts (here)   the store creates a checkout for one order, idempotent per order
//   hosted page   client-session.ts      the page and the storefront read the session with its client
//                                        secret, the page's only credential
//   payment       payments.ts            the page prepares the payer's transactions, reports the hash, confirms
//   verification  verification.ts        a receipt checked against the checkout's terms, for the confirmation
//                 reconciler.ts          and for the reconciler (a customer who paid and closed the page)
//   webhook       _shared/webhooks/      the checkout.completed outbox, drained and signed by the dispatcher;
//                                        queued again and listed here
// The shapes of every step are in schemas.ts.
import type { z } from "@hono/zod-openapi";
import { randomBytes } from "node:crypto";
import { isLoopbackHost } from "../chain/clients.ts";
import { DEVELOPMENT_ENCRYPTION_KEY, type Config } from "../config.ts";
import { canonicalJson } from "../crypto/canonical-json.ts";
import { SecretBox } from "../crypto/secret-box.ts";
import { sha256 } from "../crypto/sha256.ts";
import { ApiError } from "../http/errors.ts";
import { refusedAddressLiteral, requestHostname } from "../outbound/public-address-lookup.ts";
import { ok, operation } from "../operations/operation.ts";
import { webhookSecretAssociatedData } from "../webhooks/dispatcher.ts";
import { kickWebhookDispatch } from "../webhooks/kick.ts";
import { clientSecretHash, type ClientSecretInput, NO_STORE, readClientSession, toClientSession } from "./client-session.ts";
import type { CheckoutSessionSchema, CreateCheckoutSessionSchema, WebhookAttemptSchema, WebhookDeliverySchema } from "./schemas.ts";
import { apiUrl } from "../http/public-urls.ts";

type CreateRequest = z.infer<typeof CreateCheckoutSessionSchema>;
type CheckoutSession = z.infer<typeof CheckoutSessionSchema>;
type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

const READ = ["checkout:read"] as const;

// ---- Secrets ----

const boxes = new WeakMap<Config, Promise<SecretBox>>();

/** The configuration's SecretBox (importing the key once). */
function secretBoxOf(config: Config): Promise<SecretBox> {
  let box = boxes.get(config);
  if (!box) boxes.set(config, box = SecretBox.fromBase64(config.SECRETS_ENCRYPTION_KEY ?? DEVELOPMENT_ENCRYPTION_KEY));
  return box;
}

/**
 * What a client secret's box is bound to (SecretBox's associated data): its row, by the row's
 * unique key, so a box copied to another row does not open. The session id is not known before the
 * insert, so it is the session's other unique key, (owner, externalOrderId). Webhook secrets are
 * bound to their (owner, URL) row as the dispatcher opens them (webhookSecretAssociatedData).
 */
const clientSecretAssociatedData = (ownerId: string, externalOrderId: string) => `checkout-client-secret:${ownerId}:${externalOrderId}`;

/** `cs_` + 32 random bytes, base64url: safe in a URL fragment and a header. */
const newClientSecret = () => `cs_${randomBytes(32).toString("base64url")}`;
/** Standard Webhooks' form (`whsec_` + the base64 key), so its libraries verify our signatures as they are. */
const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

// ---- Creating a session ----

/**
 * The checkout data an order's idempotency compares (checkout.sessions.request): the validated
 * request with defaults applied, the price as a decimal string (1000 and "1000" are one price),
 * payment methods as a set, and `price`, what create_session checks and charges.
 */
function canonicalRequest(input: CreateRequest) {
  const items = input.items.map((item) => ({ ...item, mintPrice: String(item.mintPrice) }));
  return {
    items,
    paymentMethods: [...input.paymentMethods].sort(),
    allowedOrigin: input.allowedOrigin,
    webhookUrl: input.webhookUrl,
    expiresInSeconds: input.expiresInSeconds,
    price: items[0]!.mintPrice,
  };
}

/**
 * Why production refuses a webhook host written literally: a loopback name, or an IP address that
 * is not public (the dispatcher's own rule for literals, public-address-lookup.ts). A host name is
 * not resolved here: the dispatcher checks the address it connects to at every delivery, which
 * also covers DNS rebinding.
 */
function refusedWebhookHost(url: URL): string | null {
  if (isLoopbackHost(url.hostname)) return "loopback";
  return refusedAddressLiteral(requestHostname(url));
}

/** Production accepts https only, and no webhook target inside a private network. */
function checkEndpointsForProduction(config: Config, input: CreateRequest): void {
  if (config.APP_ENV !== "production") return;
  if (!input.allowedOrigin.startsWith("https:")) {
    throw new ApiError(400, "invalid_allowed_origin", "allowedOrigin must be an https origin.");
  }
  const webhook = new URL(input.webhookUrl);
  const refused = webhook.protocol === "https:" ? refusedWebhookHost(webhook) : "plain http";
  if (refused) {
    throw new ApiError(400, "invalid_webhook_url", `webhookUrl must be an https URL of a public host, not ${refused}.`);
  }
}

interface CreatedSessionRow {
  id: string;
  owner_id: string;
  client_secret_ciphertext: Uint8Array;
  status: CheckoutSession["status"];
  expires_at: Date;
  created: boolean;
  webhook_secret_ciphertext: Uint8Array;
}

/** 201 with a new checkout; 200 with the one this order already has (the same request again). */
export const createCheckoutSession = operation({
  name: "checkout.create_session",
  permission: "checkout:create",
  async run({ principal, db, database, config }, input: CreateRequest) {
    checkEndpointsForProduction(config, input);
    const request = canonicalRequest(input);
    const fingerprint = sha256(canonicalJson(request));
    const clientSecret = newClientSecret();
    const newSecretHash = sha256(clientSecret);
    const box = await secretBoxOf(config);
    // runOperation lets only API keys run this (its permission); the check narrows the principal.
    if (principal.kind !== "api_key") throw new ApiError(401, "missing_api_key", "Send your API key in the x-api-key header.");
    // The sealed secrets are bound to the owner, whom the key check already knows (a key never changes
    // owner): the creation is then one statement.
    const scope = principal.scope;
    const ownerId = scope.ownerId ?? await database.apiKeyOwner(scope);
    const clientSecretBox = box.seal(clientSecret, clientSecretAssociatedData(ownerId, input.externalOrderId));
    const webhookSecretBox = box.seal(newWebhookSecret(), webhookSecretAssociatedData(ownerId, input.webhookUrl));
    // On its own (REST), one statement that enters the key's scope itself: no transaction block, a
    // single message. Inside an MCP call's transaction, the same functions in the call's scope.
    // create_session runs first (a conflict aborts the statement before the webhook secret is stored).
    const [created] = db.inCallerTransaction
      ? await db.statement((tx) => tx<CreatedSessionRow[]>`
          select s.id, s.owner_id, s.client_secret_ciphertext, s.status, s.expires_at, s.created, w.ciphertext as webhook_secret_ciphertext
          from checkout.create_session(${input.collectionId}, ${input.externalOrderId}, ${fingerprint}, ${tx.json(request)},
                                       ${newSecretHash}, ${clientSecretBox},
                                       now() + make_interval(secs => ${input.expiresInSeconds})) s
          cross join lateral (select checkout.ensure_webhook_secret(${input.webhookUrl}, ${webhookSecretBox}) as ciphertext) w`)
      : await database.apiKeyFunction(scope, (sql, keyHash, required) => sql<CreatedSessionRow[]>`
          select id, owner_id, client_secret_ciphertext, status, expires_at, created, webhook_secret_ciphertext
          from core.create_checkout_session_by_api_key(${keyHash}, ${required}::text[], ${input.collectionId}, ${input.externalOrderId},
            ${fingerprint}, ${sql.json(request)}, ${newSecretHash}, ${clientSecretBox}, ${input.expiresInSeconds}::integer,
            ${input.webhookUrl}, ${webhookSecretBox})`, ([row]) => row?.owner_id);
    const session = created!;

    // A replay returns the first request's secret, stored sealed (the new one generated above is unused).
    const secret = session.created
      ? clientSecret
      : box.open(session.client_secret_ciphertext, clientSecretAssociatedData(session.owner_id, input.externalOrderId));
    const webhookSecret = box.open(session.webhook_secret_ciphertext, webhookSecretAssociatedData(session.owner_id, input.webhookUrl));
    const body: CheckoutSession = {
      checkoutId: session.id,
      clientSecret: secret,
      checkoutUrl: `${config.CHECKOUT_UI_URL ? `${config.CHECKOUT_UI_URL}/checkout/${session.id}` : apiUrl(config, `/checkout/${session.id}`)}#clientSecret=${secret}`,
      webhookSecret,
      status: session.status,
      expiresAt: session.expires_at.toISOString(),
    };
    return ok(body, session.created ? 201 : 200);
  },
});

// ---- The client-safe read ----

/** As the hosted page, in its own scope (the client secret is the credential), whoever calls. */
export const getClientCheckoutSession = operation({
  name: "checkout.get_client_session",
  scopes: READ,
  ownTransactions: true,
  async run({ database }, { checkoutId, clientSecret }: ClientSecretInput) {
    const row = await readClientSession(database, checkoutId, clientSecretHash(clientSecret));
    return { status: 200, body: toClientSession(row), headers: NO_STORE };
  },
});

// ---- Webhook deliveries ----

interface DeliveryRow {
  id: string;
  event_id: string;
  status: WebhookDelivery["status"];
  attempts: number;
  next_attempt_at: Date;
  delivered_at: Date | null;
  created_at: Date;
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    deliveryId: row.id,
    eventId: row.event_id,
    status: row.status,
    attemptCount: row.attempts,
    nextAttemptAt: row.next_attempt_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

export const retryCheckoutWebhook = operation({
  name: "checkout.retry_webhook",
  permission: "checkout:retry",
  async run({ db, database, config }, { checkoutId }: { checkoutId: string }) {
    const [row] = await db.statement((tx) => tx<DeliveryRow[]>`
      select id, event_id, status, attempts, next_attempt_at, delivered_at, created_at
      from checkout.requeue_webhook(${checkoutId})`);
    kickWebhookDispatch({ db: database, config });
    return ok(toDelivery(row!), 202);
  },
});

export const listWebhookDeliveries = operation({
  name: "checkout.list_webhook_deliveries",
  scopes: READ,
  async run({ db }, { checkoutId }: { checkoutId: string }) {
    // The session row tells "yours, nothing delivered yet" (no delivery: one row of nulls) from "not
    // yours or unknown" (no row).
    const rows = await db.statement((tx) => tx<(Partial<DeliveryRow> & { attempt_log: unknown })[]>`
      select d.id, d.event_id, d.status, d.attempts, d.next_attempt_at, d.delivered_at, d.created_at,
             coalesce((select json_agg(json_build_object(
                                 'attemptedAt', to_char(a.attempted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                 'statusCode', a.status_code, 'error', a.error) order by a.id)
                       from checkout.webhook_attempts a where a.delivery_id = d.id), '[]') as attempt_log
      from checkout.sessions s
      left join checkout.webhook_deliveries d on d.session_id = s.id
      where s.id = ${checkoutId}
      order by d.created_at, d.id`);
    if (rows.length === 0) throw new ApiError(404, "checkout_not_found", "No checkout of yours has this id.");
    const items = rows.filter((row) => row.id).map((row) => ({
      ...toDelivery(row as DeliveryRow),
      attempts: row.attempt_log as z.infer<typeof WebhookAttemptSchema>[],
    }));
    return ok({ items });
  },
});
