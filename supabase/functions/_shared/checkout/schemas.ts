// A checkout's shapes: the session a store creates (its endpoints checked here: the storefront's
// origin and the webhook URL), the client-safe session the hosted page reads, the webhook's delivery
// log, and the hosted page's payment steps (prepare, report the hash, confirm).
import { z } from "@hono/zod-openapi";
import { isLoopbackHost } from "../chain/clients.ts";
import { ChainId, EvmAddress, TokenAmount } from "../chain/schemas.ts";
import { CreatedAt, ObjectId, Timestamp } from "../http/openapi.ts";

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
}).openapi({ example: "https://store.example" }).describe("The exact storefront origin that may embed the hosted checkout (`scheme://host[:port]`, no path, no " +
    "wildcard). https; plain http only for a loopback host (localhost, 127.0.0.0/8, [::1]) outside production.");

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
}).openapi({ example: "https://store.example/webhooks/checkout" }).describe("The store's https endpoint for the signed `checkout.completed` webhook. In production, targets inside a " +
    "private network (loopback, private, link-local and unique-local addresses, `localhost`) are refused; the " +
    "dispatcher checks the address a host name resolves to again at every delivery. Outside production, plain " +
    "http is accepted for a loopback host. One webhook secret per (your account, this URL).");

const HttpsImage = z.string().max(2048).refine((text) => parseUrl(text)?.protocol === "https:", "an https URL")
  .openapi({ example: "https://store.example/images/ticket.png" })
  .describe("An https URL of the item's picture, shown on the hosted checkout");

/** A price in the smallest unit: a decimal string, or a JSON integer while it is exact in a double. */
const MintPrice = z.union([TokenAmount, z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)]).openapi({ example: "10000000000000000" }).describe("The price in the smallest unit of the collection's payment token (wei for the native currency): a " +
    "decimal string, or a JSON integer up to 2^53-1. A static-price collection accepts only its `mintPrice` " +
    "(400 `price_not_allowed`).");

export const CheckoutItemSchema = z
  .object({
    name: z.string().trim().min(1).max(200).describe("The item's name on the hosted checkout, 1-200 characters (trimmed)"),
    description: z.string().max(2000).describe("The item's description on the hosted checkout, up to 2,000 characters (may be empty)"),
    mintPrice: MintPrice,
    image: HttpsImage,
    externalProductRef: z.string().min(1).max(200).describe("Your product or variant reference"),
    quantity: z.literal(1).describe("Must be 1"),
  })
  .strict()
  .openapi("CheckoutItem")
  .describe("The one NFT the order buys");

export const PaymentMethod = z.enum(["crypto_wallet", "provider_card"])
  .describe("crypto_wallet: the payer's wallet pays on-chain; provider_card: a card payment through the configured provider");

export const CreateCheckoutSessionSchema = z
  .object({
    collectionId: ObjectId.describe("One of your registered collections (GET /api/v3/nft-collection)"),
    externalOrderId: z.string().min(1).max(200)
      .describe("Your stable order reference; the idempotency key among your checkouts"),
    items: z.array(CheckoutItemSchema).length(1).describe("Exactly one item"),
    paymentMethods: z.array(PaymentMethod).min(1).max(2)
      .refine((methods) => new Set(methods).size === methods.length, "payment methods must not repeat")
      .describe("`provider_card` only where enabled for the collection and its chain (400 `payment_method_not_enabled`)"),
    allowedOrigin: AllowedOrigin,
    webhookUrl: WebhookUrl,
    expiresInSeconds: z.number().int().min(EXPIRES_IN_SECONDS.min).max(EXPIRES_IN_SECONDS.max)
      .default(EXPIRES_IN_SECONDS.default)
      .describe(`Session lifetime: ${EXPIRES_IN_SECONDS.min} to ${EXPIRES_IN_SECONDS.max} seconds`),
  })
  .strict()
  .openapi("CreateCheckoutSession")
  .describe("A checkout for one store order");

export const CheckoutStatus = z.enum(["PENDING", "COMPLETED", "EXPIRED", "FAILED"])
  .describe("PENDING reads as EXPIRED once expiresAt has passed. FAILED (terminal, with failureReason " +
    "in the client-safe read): the checkout's on-chain reference was consumed by a mint that cannot pay it.");
const CheckoutId = ObjectId.describe("The checkout session's id");
const ExpiresAt = Timestamp.describe("When the session expires (UTC); a PENDING one reads as EXPIRED from then on");

export const CheckoutSessionSchema = z
  .object({
    checkoutId: CheckoutId,
    clientSecret: z.string().describe("For your storefront: the X-Checkout-Client-Secret of the session read"),
    checkoutUrl: z.string().describe("`{checkout_ui_url}/checkout/<checkoutId>#clientSecret=<clientSecret>`"),
    webhookSecret: z.string()
      .describe("Signs the `checkout.completed` webhook to webhookUrl (Standard Webhooks `whsec_` form); keep it on your backend"),
    status: CheckoutStatus,
    expiresAt: ExpiresAt,
  })
  .openapi("CheckoutSession")
  .describe("A new checkout session with its secrets (answered once, to the store)");

export const ClientCheckoutSessionSchema = z
  .object({
    checkoutId: CheckoutId,
    status: CheckoutStatus,
    expiresAt: ExpiresAt,
    item: z.object({
      name: z.string().describe("The item's name"),
      description: z.string().describe("The item's description (may be empty)"),
      mintPrice: z.string().describe("The item's price as the store sent it, in the payment token's smallest unit (decimal string)"),
      image: z.string().describe("An https URL of the item's picture"),
      externalProductRef: z.string().describe("The store's product or variant reference"),
      quantity: z.number().int().describe("Always 1"),
    }).describe("The item the order buys"),
    price: TokenAmount.describe("What the customer pays, in the payment token's smallest unit"),
    paymentToken: z.object({
      address: z.string().nullable().describe("The ERC-20 contract; null: the chain's native currency"),
      decimals: z.number().int().describe("Decimals of the token (18 for the native currency): divide `price` by 10^decimals to show it"),
      symbol: z.string().nullable().openapi({ example: "USDC" }).describe("The ERC-20's symbol() as read when the collection was registered, for display (\"10.00 USDC\"). " +
          "null for the native currency (its symbol follows from chainId), for a token without a readable symbol() " +
          "and for collections registered before symbols were read: show the token's address then."),
    }).describe("What the customer pays with"),
    chainId: ChainId.describe("The chain the collection lives on and payment happens on"),
    collectionAddress: z.string().describe("The collection contract that mints the NFT"),
    pricing: z.enum(["static", "dynamic"]).describe("static: the collection's fixed price; dynamic: the store's price, signed into a voucher"),
    paymentMethods: z.array(PaymentMethod).describe("The payment methods the store offers for this checkout"),
    allowedOrigin: z.string().describe("The storefront origin that may embed the hosted checkout"),
    transactionHash: z.string().nullable().describe("The paying transaction, once COMPLETED"),
    completedAt: Timestamp.nullable().describe("When the payment was confirmed (UTC); null until COMPLETED"),
    failureReason: z.string().nullable().openapi({ example: null }).describe("Why the checkout is FAILED (null otherwise), a stable code. `checkout_reference_consumed`: the " +
        "checkout's on-chain reference was used by a mint that does not pay this checkout (another amount or token, " +
        "e.g. after the collection's price changed); no payment can complete it any more. Start a new checkout."),
  })
  .openapi("ClientCheckoutSession");

export const WebhookDeliverySchema = z
  .object({
    deliveryId: ObjectId.describe("The delivery's id (one per send, including retries you asked for)"),
    eventId: z.string().describe("x-service-event-id: `checkout-completed-<checkoutId>`, the same for every delivery"),
    status: z.enum(["pending", "delivered", "stopped", "failed"])
      .describe("pending → delivered (2xx) | stopped (the receiver answered 410) | failed (retries exhausted)"),
    attemptCount: z.number().int().describe("Attempts made so far"),
    nextAttemptAt: Timestamp.describe("When the next attempt is due (UTC), while pending"),
    deliveredAt: Timestamp.nullable().describe("When the receiver answered 2xx (UTC); null until delivered"),
    createdAt: CreatedAt,
  })
  .openapi("WebhookDelivery");

export const WebhookAttemptSchema = z
  .object({
    attemptedAt: Timestamp.describe("When the attempt was made (UTC)"),
    statusCode: z.number().int().nullable().describe("The receiver's HTTP status; null when no response came"),
    error: z.string().nullable().describe("Why the attempt failed, when it did (timeout, connection refused, ...)"),
  })
  .openapi("WebhookAttempt")
  .describe("One try at delivering the webhook");

const WebhookDeliveryWithAttempts = WebhookDeliverySchema
  .extend({ attempts: z.array(WebhookAttemptSchema).describe("Every attempt of this delivery, oldest first") });

export const WebhookDeliveryLogSchema = z
  .object({ items: z.array(WebhookDeliveryWithAttempts).describe("Every delivery of the checkout's webhook, oldest first") })
  .openapi("WebhookDeliveryLog");

// ---- The hosted page's payments ----

const TxHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a transaction hash: 0x and 64 hex digits")
  .openapi({ example: `0x${"ab".repeat(32)}` })
  .describe("A transaction hash: 0x and 64 hex digits");

export const PreparePaymentSchema = z
  .object({
    payerAddress: EvmAddress.describe("The wallet that pays and receives the NFT"),
    embeddingOrigin: z.string().max(2048)
      .describe("The origin of the page embedding the checkout, as the SDK passed it: must be the session's allowedOrigin"),
  })
  .strict()
  .openapi("PreparePayment")
  .describe("Who pays, and from which page");

export const PaymentTransactionSchema = z
  .object({
    kind: z.enum(["approve", "mint"]).describe("approve: the ERC-20 allowance for the collection, sent first"),
    to: z.string().describe("The contract to call (the payment token for approve, the collection for mint)"),
    data: z.string().describe("The call data, 0x-hex: send it unchanged"),
    value: TokenAmount.describe("Native currency to send with it, in wei (decimal string)"),
  })
  .openapi("PaymentTransaction")
  .describe("A transaction for the payer to send");

export const PreparedPaymentSchema = z
  .object({
    attemptId: ObjectId.describe("The payment attempt's id: report its transaction hash under it"),
    chainId: ChainId.describe("The chain to send the transactions on"),
    transactions: z.array(PaymentTransactionSchema).describe("Send them in this order, from payerAddress"),
    expiresAt: Timestamp.describe("The session's expiry (UTC); a dynamic-price voucher is valid until then"),
  })
  .openapi("PreparedPayment")
  .describe("The payment's transactions, in the order to send them");

/** The body of reporting and of confirming a payment: its transaction hash. */
export const TxHashBody = z.object({ txHash: TxHash.describe("The hash of the mint transaction the payer sent (not an ERC-20 approval)") }).strict();

export const RecordedPaymentTransactionSchema = z.object({
  attemptId: ObjectId.describe("The payment attempt the hash was recorded for"),
  txHash: z.string().describe("The transaction hash recorded"),
}).openapi("RecordedPaymentTransaction").describe("The payment's transaction hash, recorded");

export const ConfirmedCheckoutSessionSchema = ClientCheckoutSessionSchema
  .extend({ tokenIds: z.array(TokenAmount).describe("The NFTs the transaction minted to the payer") })
  .openapi("ConfirmedCheckoutSession");

export const ConfirmingSchema = z
  .object({
    status: z.literal("confirming").describe("Not decided yet: poll again"),
    reason: z.enum(["receipt_not_found", "not_enough_confirmations"])
      .describe("receipt_not_found: not mined yet (or not on this chain); not_enough_confirmations: mined, waiting for the chain's confirmations"),
    message: z.string().describe("The same, for a person"),
  })
  .openapi("CheckoutConfirming")
  .describe("The payment is not confirmed yet");
