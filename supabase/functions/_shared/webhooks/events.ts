// Every webhook the service sends: its event type, the schema of its payload and what the API's
// document says of it. The dispatcher sends only payloads their entry's schema accepts, and the
// document's `webhooks` are made from this list (api/docs/webhooks.ts): a new webhook is one entry.
import { z } from "@hono/zod-openapi";
import { CheckoutCompletedPayloadSchema } from "../checkout/webhook-events.ts";

export interface WebhookEvent {
  payload: z.ZodType<{ type: string }>;
  /** The document's operationId of the delivery. */
  operationId: string;
  tag: string;
  summary: string;
  description: string;
}

export const WEBHOOK_EVENTS = {
  "checkout.completed": {
    payload: CheckoutCompletedPayloadSchema,
    operationId: "checkoutCompletedWebhook",
    tag: "Checkout",
    summary: "A checkout completed: its NFTs are minted to the buyer",
    description: "Sent to the checkout's `webhookUrl` once the payment is confirmed on chain, signed with the checkout's " +
      "`webhookSecret`. The delivery is the proof of payment; the storefront's browser events are for the UI only. " +
      "`listCheckoutWebhookDeliveries` shows each attempt; `retryCheckoutWebhook` sends it again (same `webhook-id`).",
  },
} satisfies Record<string, WebhookEvent>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export type WebhookPayload = z.infer<(typeof WEBHOOK_EVENTS)[WebhookEventType]["payload"]>;

/** The stored payload text as its event's payload, or why it is not one (then it is not sent). */
export function checkedPayload(body: string): { payload: WebhookPayload } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { problem: "the payload is not JSON" };
  }
  const type = (value as { type?: unknown } | null)?.type;
  const event = typeof type === "string" && Object.hasOwn(WEBHOOK_EVENTS, type) ? WEBHOOK_EVENTS[type as WebhookEventType] : undefined;
  if (!event) return { problem: `no webhook event of type ${JSON.stringify(type)}` };
  const parsed = event.payload.safeParse(value);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "(payload)"))].join(", ");
    return { problem: `the ${type} payload does not match its documented schema (${fields})` };
  }
  return { payload: parsed.data as WebhookPayload };
}

/** The headers of every delivery (signing.ts and the dispatcher set them), as the document describes them. */
export const WebhookHeadersSchema = z.object({
  "webhook-id": z.string().openapi({ description: "Standard Webhooks: the event's id, the same on every attempt and re-delivery (de-duplicate on it); for checkout.completed `checkout-completed-<checkoutId>`" }),
  "webhook-timestamp": z.string().regex(/^[0-9]+$/).openapi({ description: "Standard Webhooks: the attempt's time in unix seconds; refuse one far from your clock (replays)" }),
  "webhook-signature": z.string().regex(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/).openapi({
    description: "Standard Webhooks: `v1,<base64 HMAC-SHA256 of \"<webhook-id>.<webhook-timestamp>.<body>\">`, keyed with the base64-decoded " +
      "part of the secret after `whsec_`. While a rotated secret's overlap lasts, two space-separated signatures (new first): accept when one matches.",
  }),
  "x-service-event-id": z.string().openapi({ description: "The same as webhook-id" }),
  "x-service-signature": z.string().regex(/^v1=[0-9a-f]{64}( v1=[0-9a-f]{64})*$/).openapi({
    description: "`v1=<lowercase hex HMAC-SHA256 of the raw body>`, keyed with the UTF-8 bytes of the whole secret string (`whsec_...` included); " +
      "two space-separated during a rotation's overlap. For receivers without a Standard Webhooks library.",
  }),
  "content-type": z.literal("application/json").openapi({ description: "The body is the payload's JSON, UTF-8" }),
  "user-agent": z.string().openapi({ description: "The service's webhook sender and its version" }),
});

export type WebhookHeaders = z.infer<typeof WebhookHeadersSchema>;
