// A checkout's shapes: the session a store creates (its endpoints checked here: the storefront's
// origin and the webhook URL), the client-safe session the hosted page reads, the webhook's delivery
// log, and the hosted page's payment steps (prepare, report the hash, confirm).
import { z } from "@hono/zod-openapi";
import { isLoopbackHost } from "../chain/clients.ts";
import { ChainId, EvmAddress, TokenAmount } from "../chain/schemas.ts";
import { ObjectId } from "../http/openapi.ts";

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

/** https anywhere; plain http only for a loopback host (production refuses that too, createCheckoutSession). */
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

export const WebhookDeliveryLogSchema = z
  .object({ items: z.array(WebhookDeliverySchema.extend({ attempts: z.array(WebhookAttemptSchema) })) })
  .openapi("WebhookDeliveryLog");

// ---- The hosted page's payments ----

const TxHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a transaction hash: 0x and 64 hex digits")
  .openapi({ example: `0x${"ab".repeat(32)}` });

export const PreparePaymentSchema = z
  .object({
    payerAddress: EvmAddress.openapi({ description: "The wallet that pays and receives the NFT" }),
    embeddingOrigin: z.string().max(2048)
      .openapi({ description: "The origin of the page embedding the checkout, as the SDK passed it: must be the session's allowedOrigin" }),
  })
  .strict()
  .openapi("PreparePayment");

export const PaymentTransactionSchema = z
  .object({
    kind: z.enum(["approve", "mint"]).openapi({ description: "approve: the ERC-20 allowance for the collection, sent first" }),
    to: z.string(),
    data: z.string(),
    value: TokenAmount.openapi({ description: "Native currency to send with it, in wei (decimal string)" }),
  })
  .openapi("PaymentTransaction");

export const PreparedPaymentSchema = z
  .object({
    attemptId: ObjectId,
    chainId: ChainId,
    transactions: z.array(PaymentTransactionSchema).openapi({ description: "Send them in this order, from payerAddress" }),
    expiresAt: timestamp.openapi({ description: "The session's expiry; a dynamic-price voucher is valid until then" }),
  })
  .openapi("PreparedPayment");

/** The body of reporting and of confirming a payment: its transaction hash. */
export const TxHashBody = z.object({ txHash: TxHash }).strict();

export const RecordedPaymentTransactionSchema = z.object({ attemptId: ObjectId, txHash: z.string() }).openapi("RecordedPaymentTransaction");

export const ConfirmedCheckoutSessionSchema = ClientCheckoutSessionSchema
  .extend({ tokenIds: z.array(TokenAmount).openapi({ description: "The NFTs the transaction minted to the payer" }) })
  .openapi("ConfirmedCheckoutSession");

export const ConfirmingSchema = z
  .object({
    status: z.literal("confirming"),
    reason: z.enum(["receipt_not_found", "not_enough_confirmations"]),
    message: z.string(),
  })
  .openapi("CheckoutConfirming");
