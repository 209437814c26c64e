// The document's `webhooks`: one per entry of _shared/webhooks/events.ts, each with the payload the
// dispatcher checks before it sends, the headers it sends, how to verify them and what to answer.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { jsonContent } from "../../_shared/http/openapi.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { WEBHOOK_EVENTS, WebhookHeadersSchema } from "../../_shared/webhooks/events.ts";
import { RETRY_CAP_MS, RETRY_HORIZON_MS } from "../../_shared/webhooks/retry-schedule.ts";

const HOURS = 3_600_000;

const VERIFYING = [
  "**Verify before you act**: with a Standard Webhooks library (e.g. `new Webhook(secret).verify(rawBody, headers)` of the " +
    "`standardwebhooks` npm package), or by hand: compute the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` " +
    "keyed with the base64-decoded part of the secret after `whsec_`, compare it in constant time with each `v1,` signature of " +
    "`webhook-signature`, and refuse a `webhook-timestamp` more than 5 minutes from your clock. Verify the raw bytes received, " +
    "before any JSON parsing. `x-service-signature` is the same proof for receivers without that library: the hex HMAC-SHA256 of " +
    "the raw body keyed with the whole secret string.",
  "**De-duplicate** on `webhook-id`: an attempt whose answer was lost, and `retryCheckoutWebhook`, send the same event again.",
  `**Answer** 2xx within 15 s once you have recorded the event (do the work afterwards). 410 Gone also ends the delivery. ` +
    `Anything else, a redirect (not followed), a timeout or no connection is tried again with exponential backoff and jitter ` +
    `(up to ${RETRY_CAP_MS / HOURS} h apart; your Retry-After is honoured), for ${RETRY_HORIZON_MS / (24 * HOURS)} days.`,
].join("\n\n");

export function registerWebhooks(app: OpenAPIHono<AppEnv>) {
  for (const [type, event] of Object.entries(WEBHOOK_EVENTS)) {
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      operationId: event.operationId,
      tags: [event.tag],
      summary: event.summary,
      description: `${event.description}\n\n${VERIFYING}`,
      // Authenticated by its signature headers, not by a credential of yours.
      security: [],
      request: { headers: WebhookHeadersSchema, body: { required: true, ...jsonContent(event.payload) } },
      responses: {
        200: { description: "Recorded (any 2xx): the delivery is done" },
        410: { description: "Gone: the delivery ends, as with a 2xx" },
        401: { description: "Your refusal when the signature does not verify; like any answer but 2xx and 410, the attempt is retried with backoff" },
      },
    });
  }
}
