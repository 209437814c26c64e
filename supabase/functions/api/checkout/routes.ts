// Checkout sessions over REST. A route whose operation needs an API-key permission checks the one
// the operation declares in its middleware, so a key without it is refused before the body is validated.
import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey, requirePermission } from "../../_shared/auth/middleware.ts";
import * as checkout from "../../_shared/checkout/operations.ts";
import {
  CheckoutSessionSchema,
  ClientCheckoutSessionSchema,
  CreateCheckoutSessionSchema,
  WebhookDeliveryLogSchema,
  WebhookDeliverySchema,
} from "../../_shared/checkout/schemas.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent, pathIds } from "../../_shared/http/openapi.ts";

export const checkoutIdParam = pathIds("checkoutId");
const tags = ["Checkout"];

export const createCheckoutSession = createRoute({
  operationId: "createCheckoutSession",
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
  middleware: [requireApiKey, requirePermission(checkout.createCheckoutSession.permission!)] as const,
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
export const clientSecretHeaders = z.object({
  [CLIENT_SECRET_HEADER]: z.string().optional().openapi({
    description: "The checkout's client secret, from the create answer or the checkout URL's fragment; a wrong or missing one answers 404 like an unknown id.",
  }),
});

export const getClientCheckoutSession = createRoute({
  operationId: "getClientCheckoutSession",
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
  operationId: "retryCheckoutWebhook",
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
  middleware: [requireApiKey, requirePermission(checkout.retryCheckoutWebhook.permission!)] as const,
  request: { params: checkoutIdParam },
  responses: {
    202: { description: "The queued delivery", ...jsonContent(WebhookDeliverySchema) },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const listCheckoutWebhookDeliveries = createRoute({
  operationId: "listCheckoutWebhookDeliveries",
  method: "get",
  path: "/api/v3/checkout/sessions/{checkoutId}/webhook/deliveries",
  tags,
  summary: "The webhook delivery log of one of your checkouts",
  description: "Read-only: every delivery of the checkout's webhook, oldest first, each with its attempts.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: checkoutIdParam },
  responses: {
    200: { description: "The deliveries", ...jsonContent(WebhookDeliveryLogSchema) },
    ...errorResponses(400, 401, 404),
  },
});
