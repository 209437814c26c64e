import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey, requirePermission } from "../../_shared/auth/middleware.ts";
import { isLoopbackHost } from "../../_shared/chain/clients.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent, ObjectId } from "../../_shared/http/openapi.ts";
import { ChainId, TokenAmount } from "../collections/routes.ts";

/** Session lifetime bounds (SPEC 8 leaves them to us): long enough to pay, short enough to not linger. */
const EXPIRES_IN_SECONDS = { min: 300, max: 86_400, default: 1800 } as const;

// ---- Endpoint rules shared by allowedOrigin and webhookUrl ----

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** https anywhere; plain http only for a loopback host (production refuses that too, in the handler). */
const secureOrLoopback = (url: URL) => url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));

const AllowedOrigin = z.string().max(2048).superRefine((text, ctx) => {
  const url = parseUrl(text);
  const problem = !url || text.includes("*")
    ? "an origin such as https://store.example (wildcards are not supported)"
    : !secureOrLoopback(url)
    ? "an https origin (http only for a loopback host, outside production)"
    : url.origin !== text
    ? `exactly an origin, without path, query, fragment, credentials or default port: ${url.origin}`
    : null;
  if (problem) ctx.addIssue({ code: "custom", message: `allowedOrigin must be ${problem}`, params: { code: "invalid_allowed_origin" } });
}).openapi({
  example: "https://store.example",
  description: "The exact storefront origin that may embed the hosted checkout (`scheme://host[:port]`, no path, no " +
    "wildcard). https; plain http only for a loopback host (localhost, 127.0.0.0/8, [::1]) outside production.",
});

const WebhookUrl = z.string().max(2048).superRefine((text, ctx) => {
  const url = parseUrl(text);
  const problem = !url
    ? "an absolute URL"
    : !secureOrLoopback(url)
    ? "an https URL (http only for a loopback host, outside production)"
    : url.username || url.password
    ? "a URL without credentials"
    : url.hash
    ? "a URL without a fragment"
    : null;
  if (problem) ctx.addIssue({ code: "custom", message: `webhookUrl must be ${problem}`, params: { code: "invalid_webhook_url" } });
}).openapi({
  example: "https://store.example/webhooks/checkout",
  description: "The store's https endpoint for the signed `checkout.completed` webhook. In production, targets inside a " +
    "private network (loopback, private, link-local and unique-local addresses, `localhost`) are refused; the " +
    "dispatcher checks the address a host name resolves to again at every delivery. Outside production, plain " +
    "http is accepted for a loopback host. One webhook secret per (your account, this URL).",
});

const HttpsImage = z.string().max(2048).refine((text) => parseUrl(text)?.protocol === "https:", "an https URL")
  .openapi({ example: "https://store.example/images/ticket.png" });

/** A price in the smallest unit: a decimal string, or a JSON integer while it is exact in a double. */
const MintPrice = z.union([TokenAmount, z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)]).openapi({
  description: "The price in the smallest unit of the collection's payment token (wei for the native currency): a " +
    "decimal string, or a JSON integer up to 2^53-1. A static-price collection accepts only its `mintPrice` " +
    "(400 `price_not_allowed`).",
  example: "10000000000000000",
});

export const CheckoutItemSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000),
    mintPrice: MintPrice,
    image: HttpsImage,
    externalProductRef: z.string().min(1).max(200).openapi({ description: "Your product or variant reference" }),
    quantity: z.literal(1).openapi({ description: "Must be 1" }),
  })
  .strict()
  .openapi("CheckoutItem");

export const PaymentMethod = z.enum(["crypto_wallet", "provider_card"]);

export const CreateCheckoutSessionSchema = z
  .object({
    collectionId: ObjectId.openapi({ description: "One of your registered collections (GET /api/v3/nft-collection)" }),
    externalOrderId: z.string().min(1).max(200)
      .openapi({ description: "Your stable order reference; the idempotency key among your checkouts" }),
    items: z.array(CheckoutItemSchema).length(1).openapi({ description: "Exactly one item" }),
    paymentMethods: z.array(PaymentMethod).min(1).max(2)
      .refine((methods) => new Set(methods).size === methods.length, "payment methods must not repeat")
      .openapi({ description: "`provider_card` only where enabled for the collection and its chain (400 `payment_method_not_enabled`)" }),
    allowedOrigin: AllowedOrigin,
    webhookUrl: WebhookUrl,
    expiresInSeconds: z.number().int().min(EXPIRES_IN_SECONDS.min).max(EXPIRES_IN_SECONDS.max)
      .default(EXPIRES_IN_SECONDS.default)
      .openapi({ description: `Session lifetime: ${EXPIRES_IN_SECONDS.min} to ${EXPIRES_IN_SECONDS.max} seconds, default ${EXPIRES_IN_SECONDS.default}` }),
  })
  .strict()
  .openapi("CreateCheckoutSession");

export const CheckoutStatus = z.enum(["PENDING", "COMPLETED", "EXPIRED", "FAILED"])
  .openapi({ description: "PENDING reads as EXPIRED once expiresAt has passed. FAILED (terminal, with failureReason " +
    "in the client-safe read): the checkout's on-chain reference was consumed by a mint that cannot pay it." });
const timestamp = z.string().openapi({ format: "date-time" });

export const CheckoutSessionSchema = z
  .object({
    checkoutId: ObjectId,
    clientSecret: z.string().openapi({ description: "For your storefront: the X-Checkout-Client-Secret of the session read" }),
    checkoutUrl: z.string().openapi({ description: "`{checkout_ui_url}/checkout/<checkoutId>#clientSecret=<clientSecret>`" }),
    webhookSecret: z.string()
      .openapi({ description: "Signs the `checkout.completed` webhook to webhookUrl (Standard Webhooks `whsec_` form); keep it on your backend" }),
    status: CheckoutStatus,
    expiresAt: timestamp,
  })
  .openapi("CheckoutSession");

export const ClientCheckoutSessionSchema = z
  .object({
    checkoutId: ObjectId,
    status: CheckoutStatus,
    expiresAt: timestamp,
    item: z.object({
      name: z.string(),
      description: z.string(),
      mintPrice: z.string(),
      image: z.string(),
      externalProductRef: z.string(),
      quantity: z.number().int(),
    }),
    price: TokenAmount.openapi({ description: "What the customer pays, in the payment token's smallest unit" }),
    paymentToken: z.object({
      address: z.string().nullable().openapi({ description: "null: the chain's native currency" }),
      decimals: z.number().int(),
      symbol: z.string().nullable().openapi({
        description: "The ERC-20's symbol() as read when the collection was registered, for display (\"10.00 USDC\"). " +
          "null for the native currency (its symbol follows from chainId), for a token without a readable symbol() " +
          "and for collections registered before symbols were read: show the token's address then.",
        example: "USDC",
      }),
    }),
    chainId: ChainId,
    collectionAddress: z.string(),
    pricing: z.enum(["static", "dynamic"]),
    paymentMethods: z.array(PaymentMethod),
    allowedOrigin: z.string(),
    transactionHash: z.string().nullable().openapi({ description: "The paying transaction, once COMPLETED" }),
    completedAt: timestamp.nullable(),
    failureReason: z.string().nullable().openapi({
      description: "Why the checkout is FAILED (null otherwise), a stable code. `checkout_reference_consumed`: the " +
        "checkout's on-chain reference was used by a mint that does not pay this checkout (another amount or token, " +
        "e.g. after the collection's price changed); no payment can complete it any more. Start a new checkout.",
      example: null,
    }),
  })
  .openapi("ClientCheckoutSession");

export const WebhookDeliverySchema = z
  .object({
    deliveryId: ObjectId,
    eventId: z.string().openapi({ description: "x-service-event-id: `checkout-completed-<checkoutId>`, the same for every delivery" }),
    status: z.enum(["pending", "delivered", "stopped", "failed"])
      .openapi({ description: "pending → delivered (2xx) | stopped (the receiver answered 410) | failed (retries exhausted)" }),
    attemptCount: z.number().int(),
    nextAttemptAt: timestamp,
    deliveredAt: timestamp.nullable(),
    createdAt: timestamp,
  })
  .openapi("WebhookDelivery");

export const WebhookAttemptSchema = z
  .object({
    attemptedAt: timestamp,
    statusCode: z.number().int().nullable().openapi({ description: "The receiver's HTTP status; null when no response came" }),
    error: z.string().nullable().openapi({ description: "Why the attempt failed, when it did (timeout, connection refused, ...)" }),
  })
  .openapi("WebhookAttempt");

export const checkoutIdParam = z.object({ checkoutId: ObjectId });
const tags = ["Checkout"];

export const createCheckoutSession = createRoute({
  method: "post",
  path: "/api/v3/checkout/sessions",
  tags,
  summary: "Create a checkout session for one store order (permission checkout:create)",
  description:
    "Idempotent per `externalOrderId`: the same request again answers 200 with the same checkout (same id, client " +
    "secret and URL; expiresAt of the first request); different data for a used `externalOrderId` answers 409 " +
    "`idempotency_conflict` with `details.differingFields`. A new checkout answers 201. Another owner's or an " +
    "unknown collection: 404 `collection_not_found`.",
  security: apiKeySecurity,
  middleware: [requireApiKey, requirePermission("checkout:create")] as const,
  request: { body: { required: true, ...jsonContent(CreateCheckoutSessionSchema) } },
  responses: {
    201: { description: "A new checkout", ...jsonContent(CheckoutSessionSchema) },
    200: { description: "The checkout this order already has (the same request was sent before)", ...jsonContent(CheckoutSessionSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415),
  },
});

export const CLIENT_SECRET_HEADER = "x-checkout-client-secret";
/** The hosted page's operations: authenticated by the client secret header alone. */
export const clientSecretSecurity = [{ CheckoutClientSecret: [] }];
export const clientSecretHeaders = z.object({ [CLIENT_SECRET_HEADER]: z.string().optional() });

export const getClientCheckoutSession = createRoute({
  method: "get",
  path: "/api/v3/checkout/sessions/{checkoutId}",
  tags,
  summary: "Read the client-safe checkout session (X-Checkout-Client-Secret, no API key)",
  description:
    "For the storefront and the hosted page. Authenticated only by the client secret: an API key does not " +
    "authenticate this read. A wrong or missing secret answers exactly like an unknown id (404 `not_found`). " +
    "Never carries the webhook URL, the order id or any secret.",
  security: clientSecretSecurity,
  request: {
    params: checkoutIdParam,
    headers: clientSecretHeaders,
  },
  responses: {
    200: { description: "The session", ...jsonContent(ClientCheckoutSessionSchema) },
    ...errorResponses(400, 404),
  },
});

export const retryCheckoutWebhook = createRoute({
  method: "post",
  path: "/api/v3/checkout/sessions/{checkoutId}/webhook/retry",
  tags,
  summary: "Send the checkout.completed webhook again (permission checkout:retry)",
  description:
    "Takes no body (one sent is ignored). Queues another delivery of the same event (same x-service-event-id) for a " +
    "COMPLETED checkout, due now; while a delivery is still waiting, that one is made due now instead of queueing a " +
    "second. 409 `checkout_not_completed` (with `details.status`) for any other state; another owner's or an unknown " +
    "checkout: 404 `checkout_not_found`.",
  security: apiKeySecurity,
  middleware: [requireApiKey, requirePermission("checkout:retry")] as const,
  request: { params: checkoutIdParam },
  responses: {
    202: { description: "The queued delivery", ...jsonContent(WebhookDeliverySchema) },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const listCheckoutWebhookDeliveries = createRoute({
  method: "get",
  path: "/api/v3/checkout/sessions/{checkoutId}/webhook/deliveries",
  tags,
  summary: "The webhook delivery log of one of your checkouts",
  description: "Read-only: every delivery of the checkout's webhook, oldest first, each with its attempts.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: checkoutIdParam },
  responses: {
    200: {
      description: "The deliveries",
      ...jsonContent(z.object({ items: z.array(WebhookDeliverySchema.extend({ attempts: z.array(WebhookAttemptSchema) })) })
        .openapi("WebhookDeliveryLog")),
    },
    ...errorResponses(400, 401, 404),
  },
});
