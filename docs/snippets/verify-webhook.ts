// A store's receiver of the checkout.completed webhook (docs/webhooks.md): verifies the Standard
// Webhooks signature on the raw body, de-duplicates on webhook-id, answers 204 once the event is
// recorded and 401 to anything that does not verify. Node 20+, `npm install standardwebhooks`.
import http from "node:http";
import { Webhook } from "standardwebhooks";

export interface CheckoutCompleted {
  type: "checkout.completed";
  checkoutId: string;
  externalOrderId: string;
  transactionHash: string;
  tokenIds: string[];
  ownerWallet: string;
  [field: string]: unknown;
}

/**
 * A server that hands each verified checkout.completed event to `onEvent` once.
 * `secret` is the checkout's `webhookSecret` (`whsec_...`), kept on your backend.
 */
export function createWebhookReceiver(secret: string, onEvent: (event: CheckoutCompleted, eventId: string) => Promise<void> | void) {
  const webhook = new Webhook(secret);
  const seen = new Set<string>(); // use your database in production: the same event can arrive again

  return http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8"); // verify these exact bytes, before any parsing

    let event: CheckoutCompleted;
    try {
      // Checks webhook-signature against webhook-id.webhook-timestamp.body, and refuses old timestamps.
      event = webhook.verify(rawBody, {
        "webhook-id": String(request.headers["webhook-id"] ?? ""),
        "webhook-timestamp": String(request.headers["webhook-timestamp"] ?? ""),
        "webhook-signature": String(request.headers["webhook-signature"] ?? ""),
      }) as CheckoutCompleted;
    } catch {
      response.writeHead(401).end();
      return;
    }

    const eventId = String(request.headers["webhook-id"]);
    if (event.type === "checkout.completed" && !seen.has(eventId)) {
      seen.add(eventId);
      await onEvent(event, eventId); // e.g. mark the order `externalOrderId` paid
    }
    response.writeHead(204).end();
  });
}
