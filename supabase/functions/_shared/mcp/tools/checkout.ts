// MCP tools of checkout sessions and their webhook (_shared/checkout/operations.ts).
import { z } from "zod";
import { define } from "../tools.ts";
import { ObjectId } from "../../http/openapi.ts";
import {
  CheckoutSessionSchema, ClientCheckoutSessionSchema, CreateCheckoutSessionSchema, WebhookDeliveryLogSchema,
  WebhookDeliverySchema,
} from "../../checkout/schemas.ts";
import { ADD, onChain, READ } from "./common.ts";
import * as sessions from "../../checkout/operations.ts";

export const clientSecret = z.string().min(1).max(200).describe("The checkout's client secret (clientSecret of create_checkout_session)");

/** The checkout session tools, by name. */
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
};
