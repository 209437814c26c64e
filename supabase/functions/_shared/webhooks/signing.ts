// Signing a webhook (checkout.completed) two ways at once, so a store can verify with a
// few lines of its own or with a Standard Webhooks library (https://www.standardwebhooks.com):
//
//   x-service-event-id:   the event id as stored, `checkout-completed-<checkoutId>` (the same on
//                         every attempt and re-delivery: receivers de-duplicate on it)
//   x-service-signature:  `v1=<lowercase hex HMAC-SHA256 of the raw body>`, keyed with the UTF-8
//                         bytes of the whole secret string the store was given (`whsec_...`
//                         included), i.e. what `createHmac("sha256", webhookSecret)` does
//   webhook-id:           the event id
//   webhook-timestamp:    the attempt's time, unix seconds (receivers refuse old ones: replays)
//   webhook-signature:    `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
//                         keyed the Standard Webhooks way: the base64-decoded part after `whsec_`
//
// During a secret rotation's overlap each signature header carries both signatures, new first,
// space-separated (`v1=<new> v1=<old>`, `v1,<new> v1,<old>`): a receiver accepts the request when
// any one matches the secret it holds, so it keeps working whichever secret it has.
//
// Web Crypto only, so the same code runs under Deno and Node.

import type { WebhookHeaders } from "./events.ts";

const STANDARD_WEBHOOKS_PREFIX = "whsec_";
const encoder = new TextEncoder();

export interface SignWebhookInput {
  /** The exact bytes sent as the request body. */
  body: string;
  /** The current secret, then the previous one while a rotation's overlap lasts. */
  secret: string | readonly string[];
  eventId: string;
  /** The attempt's time; webhook-timestamp is its whole seconds. */
  timestamp: Date;
}

/** The headers that carry the event id and the signatures. */
export type SignatureHeaders = Omit<WebhookHeaders, "content-type" | "user-agent">;

export async function signWebhook({ body, secret, eventId, timestamp }: SignWebhookInput): Promise<SignatureHeaders> {
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0) throw new Error("no webhook secret to sign with");
  const seconds = Math.floor(timestamp.getTime() / 1000);
  const hex: string[] = [];
  const standard: string[] = [];
  for (const s of secrets) {
    hex.push(`v1=${toHex(await hmacSha256(encoder.encode(s), body))}`);
    standard.push(`v1,${toBase64(await hmacSha256(standardWebhooksKey(s), `${eventId}.${seconds}.${body}`))}`);
  }
  return {
    "x-service-event-id": eventId,
    "x-service-signature": hex.join(" "),
    "webhook-id": eventId,
    "webhook-timestamp": String(seconds),
    "webhook-signature": standard.join(" "),
  };
}

/** The HMAC key Standard Webhooks derives from a secret: base64 after an optional `whsec_`, as the `standardwebhooks` package does. */
function standardWebhooksKey(secret: string): Uint8Array {
  const encoded = secret.startsWith(STANDARD_WEBHOOKS_PREFIX) ? secret.slice(STANDARD_WEBHOOKS_PREFIX.length) : secret;
  const key = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  if (key.length === 0) throw new Error("a webhook secret must not be empty");
  return key;
}

async function hmacSha256(key: Uint8Array, message: string): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey("raw", new Uint8Array(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(message)));
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}
