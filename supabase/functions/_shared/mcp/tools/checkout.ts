// MCP tools of the checkout domain (_shared/checkout): sessions, their webhook, and the payment primitives.
import { z } from "zod";
import { define } from "../tools.ts";
import { ObjectId } from "../../http/openapi.ts";
import { CheckoutSessionSchema, ClientCheckoutSessionSchema, CreateCheckoutSessionSchema, PreparedPaymentSchema, PreparePaymentSchema, WebhookDeliveryLogSchema, WebhookDeliverySchema } from "../../checkout/schemas.ts";
import { ADD, onChain, READ } from "./common.ts";
import * as sessions from "../../checkout/operations.ts";
import * as payments from "../../checkout/payments.ts";

const clientSecret = z.string().min(1).max(200).describe("The checkout's client secret (clientSecret of create_checkout_session)");

/** The checkout tools, by name. */
export const checkoutTools = {
  create_checkout_session: define({
    name: "create_checkout_session", toolset: "checkout", operation: sessions.createCheckoutSession, title: "Create a checkout session",
    description: "A checkout for one store order (POST /api/v3/checkout/sessions, permission checkout:create). Idempotent per " +
      "externalOrderId; other data for a used one: 409 idempotency_conflict. The answer carries the client and webhook secrets.",
    input: CreateCheckoutSessionSchema, output: CheckoutSessionSchema, annotations: { ...ADD, idempotentHint: true },
  }),
  get_checkout_session: define({
    name: "get_checkout_session", toolset: "checkout", operation: sessions.getClientCheckoutSession, title: "Read a checkout session",
    description: "The client-safe session (GET /api/v3/checkout/sessions/{checkoutId} with X-Checkout-Client-Secret); a wrong secret answers 404.",
    input: z.object({ checkoutId: ObjectId, clientSecret }).strict(), output: ClientCheckoutSessionSchema, annotations: READ,
  }),
  retry_checkout_webhook: define({
    name: "retry_checkout_webhook", toolset: "checkout", operation: sessions.retryCheckoutWebhook, title: "Send the checkout webhook again",
    description: "Queues another delivery of checkout.completed (POST .../webhook/retry, permission checkout:retry); 409 unless COMPLETED.",
    input: z.object({ checkoutId: ObjectId }).strict(), output: WebhookDeliverySchema, annotations: onChain({ ...ADD, idempotentHint: true }),
  }),
  list_checkout_webhook_deliveries: define({
    name: "list_checkout_webhook_deliveries", toolset: "checkout", operation: sessions.listWebhookDeliveries, title: "Webhook delivery log",
    description: "Every delivery of a checkout's webhook with its attempts (GET .../webhook/deliveries).",
    input: z.object({ checkoutId: ObjectId }).strict(),
    output: WebhookDeliveryLogSchema, annotations: READ,
  }),
  build_checkout_payment: define({
    name: "build_checkout_payment", toolset: "checkout", operation: payments.preparePayment, title: "Build a checkout's payment transactions",
    description: "The transactions a payer signs for a checkout (POST .../payments with the client secret): an ERC-20 approval " +
      "first when needed, then the mint (with the service's voucher for dynamic prices). Records a payment attempt.",
    input: z.object({ checkoutId: ObjectId, clientSecret, payment: PreparePaymentSchema }).strict(),
    output: PreparedPaymentSchema, annotations: onChain(ADD),
  }),
  confirm_checkout_payment: define({
    name: "confirm_checkout_payment", toolset: "checkout", operation: payments.confirmPayment, title: "Verify a checkout's payment receipt",
    description: "Verifies the paying transaction's receipt on-chain and completes the checkout (POST .../confirm): COMPLETED, " +
      "pending while not confirmed, or the receipt's refusal code.",
    input: z.object({
      checkoutId: ObjectId,
      clientSecret,
      txHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).describe("The hash of the mint transaction the payer sent: 0x and 64 hex digits"),
    }).strict(),
    output: z.union([
      ClientCheckoutSessionSchema,
      z.object({ status: z.string().describe("`confirming` while not confirmed, with `reason` and `message`") }).catchall(z.unknown()),
    ]).describe("The completed checkout, or why it is not confirmed yet"),
    annotations: onChain({ ...ADD, idempotentHint: true }),
  }),
};
