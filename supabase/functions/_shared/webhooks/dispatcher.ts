// The `checkout.completed` webhook dispatcher (SPEC 6.1, DESIGN "Background work"). The outbox is
// checkout.webhook_deliveries, written in the transaction that completes a checkout. A dispatcher
// claims due rows as `service_jobs` (checkout.claim_webhook_deliveries: FOR UPDATE SKIP LOCKED and
// a lease, so any number of replicas can drain together and each claimed delivery goes to one of
// them), POSTs each one, and records every attempt (checkout.record_webhook_attempt): 2xx
// delivered, 410 stopped, anything else tried again later (retry-schedule.ts) until it gives up.
//
// Deliveries are sent in parallel (up to `concurrency`), each with its own deadline, so a slow or
// dead receiver costs only its own slot. Redirects are never followed (a 3xx is a failed attempt):
// a store's URL must not lead the service anywhere else.
//
// In production the connection may reach only public addresses (address-policy.ts), checked by
// the shared guard (outbound/public-address-lookup.ts) inside the connection's own DNS lookup, so the
// address checked is the address connected to (no DNS rebinding). That is why this module sends
// with node:http(s) rather than fetch, which has no such hook.
//
// Nothing here logs a secret or a body: attempts record the status code or a transport error only.
import postgres from "postgres";
import { DEVELOPMENT_ENCRYPTION_KEY, type Config } from "../config.ts";
import { SecretBox } from "../crypto/secret-box.ts";
import type { Database } from "../db/database.ts";
import { serviceJobs } from "../db/service-jobs.ts";
import { outboundFetch } from "../outbound/outbound-fetch.ts";
import { nextAttemptAt } from "./retry-schedule.ts";
import { checkedPayload, type WebhookHeaders } from "./events.ts";
import { type SignatureHeaders, signWebhook } from "./signing.ts";

const WEBHOOK_CHANNEL = "checkout_webhooks";
export const WEBHOOK_USER_AGENT = "events-service-webhooks/1";

/**
 * The associated data a webhook secret is sealed under (SecretBox): the row it belongs to, so a
 * ciphertext copied to another owner's or another URL's row does not open. The code that creates
 * secrets (POST /checkout/sessions, rotation) must seal with exactly this.
 */
export function webhookSecretAssociatedData(ownerId: string, webhookUrl: string): string {
  return `webhook-secret:${ownerId}:${webhookUrl}`;
}

export interface WebhookDispatcherOptions {
  db: Database;
  config: Pick<Config, "APP_ENV" | "SECRETS_ENCRYPTION_KEY">;
  /** The clock for signatures and the retry schedule. */
  now?: () => Date;
  /** Per-delivery deadline for the response head, DNS and connecting included. */
  timeoutMs?: number;
  /**
   * Deliveries in flight at once, per dispatcher (default 32). The claim is not fair between
   * receivers: one slow receiver with this many deliveries due at once fills every slot until its
   * deadlines pass (a per-URL limit belongs in claim_webhook_deliveries).
   */
  concurrency?: number;
  /** How often the running loop looks for due retries and notifications it missed. */
  sweepMs?: number;
}

export interface WebhookDispatcher {
  /** Claims up to `limit` due deliveries, sends them and records the attempts; resolves with how many it claimed. */
  drainOnce(limit?: number): Promise<number>;
  /** Keeps draining: woken by NOTIFY on checkout_webhooks, and every `sweepMs`. */
  start(): Promise<void>;
  /** Stops claiming and waits for the deliveries in flight to be recorded. */
  stop(): Promise<void>;
}

interface ClaimedDelivery {
  delivery_id: string;
  event_id: string;
  webhook_url: string;
  /** The payload as jsonb's text: the same bytes on every attempt. */
  body: string;
  attempts: number;
  secret_ciphertext: Uint8Array | null;
  previous_secret_ciphertext: Uint8Array | null;
  owner_id: string;
  created_at: Date;
}

type SendOutcome = { status: number; retryAfter: string | null } | { error: string };

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { db, config } = options;
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 15_000;
  const concurrency = options.concurrency ?? 32;
  const sweepMs = options.sweepMs ?? 5000;
  const production = config.APP_ENV === "production";
  const secretBox = SecretBox.fromBase64(config.SECRETS_ENCRYPTION_KEY ?? DEVELOPMENT_ENCRYPTION_KEY);

  const jobs = serviceJobs(db);

  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    // The lease must outlast the batch: `concurrency` at a time, each bounded by the deadline, plus
    // time to record. A lease that ran out would let another replica send the same delivery again.
    const leaseSeconds = Math.ceil(limit / concurrency) * Math.ceil(timeoutMs / 1000) + 30;
    // The owner names the secret's associated data; the queueing time starts the retry horizon.
    return jobs.transaction((tx) => tx<ClaimedDelivery[]>`
      select delivery_id, event_id, webhook_url, payload::text as body, attempts,
             secret_ciphertext, previous_secret_ciphertext, owner_id, created_at
      from checkout.claim_webhook_deliveries(${limit}, ${leaseSeconds})`);
  }

  async function record(delivery: ClaimedDelivery, statusCode: number | null, error: string | null, next: Date | null): Promise<void> {
    try {
      await jobs.transaction((tx) => tx`select checkout.record_webhook_attempt(${delivery.delivery_id}, ${statusCode}, ${error}, ${next})`);
    } catch (failure) {
      // Our lease ran out and another dispatcher already settled the delivery: its record stands.
      if (failure instanceof postgres.PostgresError && failure.hint === "delivery_not_pending") return;
      throw failure;
    }
  }

  async function secretsOf(delivery: ClaimedDelivery): Promise<string[]> {
    const associated = webhookSecretAssociatedData(delivery.owner_id, delivery.webhook_url);
    const boxes = [delivery.secret_ciphertext, delivery.previous_secret_ciphertext].filter((b): b is Uint8Array => b !== null);
    const box = await secretBox;
    return boxes.map((b) => box.open(b, associated));
  }

  /** One attempt of one delivery, recorded whatever happens. */
  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const retry = (retryAfter: string | null = null) =>
      nextAttemptAt({ previousAttempts: delivery.attempts, queuedAt: delivery.created_at, now: now(), retryAfter });
    // What can never change for this delivery gives up at once.
    const url = URL.canParse(delivery.webhook_url) ? new URL(delivery.webhook_url) : null;
    if (!url) return record(delivery, null, "the webhook URL is not a URL", null);
    if (production && url.protocol !== "https:") return record(delivery, null, "production delivers to https URLs only", null);

    // A payload its event's schema refuses is not sent: the document would not describe it. A code fix sends it later.
    const checked = checkedPayload(delivery.body);
    if ("problem" in checked) return record(delivery, null, checked.problem, retry());

    let signed: SignatureHeaders;
    try {
      const secrets = await secretsOf(delivery);
      if (secrets.length === 0) return record(delivery, null, "no webhook secret for this owner and URL", retry());
      signed = await signWebhook({ body: delivery.body, secret: secrets, eventId: delivery.event_id, timestamp: now() });
    } catch {
      // A key mix-up an operator can fix (SECRETS_ENCRYPTION_KEY): keep the delivery alive.
      return record(delivery, null, "the webhook secret cannot be decrypted or used", retry());
    }
    const headers: WebhookHeaders = { ...signed, "content-type": "application/json", "user-agent": WEBHOOK_USER_AGENT };
    const outcome = await send(url, delivery.body, headers, { timeoutMs, publicOnly: production });

    if ("error" in outcome) return record(delivery, null, outcome.error, retry());
    const { status } = outcome;
    if ((status >= 200 && status <= 299) || status === 410) return record(delivery, status, null, null);
    const error = status >= 300 && status <= 399 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`;
    return record(delivery, status, error, retry(outcome.retryAfter));
  }

  /** Runs `deliveries` at most `concurrency` at a time; one failing to record does not stop the others. */
  async function deliverAll(deliveries: ClaimedDelivery[]): Promise<void> {
    const queue = [...deliveries];
    const worker = async () => {
      for (let d = queue.shift(); d; d = queue.shift()) await deliver(d).catch(reportLoopError);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  }

  // The running loop keeps up to `concurrency` deliveries in flight and claims as slots free up,
  // rather than batch by batch: a slow receiver holds its own slot, never the next claim.
  let stopped = true;
  let pumping: Promise<void> | null = null;
  let wanted = false;
  let backlog = false;
  const inFlight = new Set<Promise<void>>();
  let sweep: ReturnType<typeof setInterval> | undefined;
  let listener: { unlisten(): Promise<void> } | undefined;

  function wake(): void {
    if (stopped) return;
    wanted = true;
    // A wake that lands while the last pass is finishing is not lost: the pass's end looks again.
    pumping ??= pump().finally(() => {
      pumping = null;
      if (wanted) wake();
    });
  }

  async function pump(): Promise<void> {
    while (wanted && !stopped) {
      wanted = false;
      const free = concurrency - inFlight.size;
      if (free <= 0) {
        backlog = true; // there may be more than the slots hold: a finishing delivery wakes the loop
        return;
      }
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claim(free);
      } catch (error) {
        reportLoopError(error); // the database is away: the sweep tries again, not a tight loop
        wanted = false;
        return;
      }
      backlog = claimed.length === free;
      for (const delivery of claimed) {
        const running: Promise<void> = deliver(delivery).catch(reportLoopError).finally(() => {
          inFlight.delete(running);
          if (backlog) wake();
        });
        inFlight.add(running);
      }
      if (backlog) wanted = true;
    }
  }

  return {
    async drainOnce(limit = 100) {
      const claimed = await claim(limit);
      await deliverAll(claimed);
      return claimed.length;
    },
    async start() {
      if (!stopped) return;
      stopped = false;
      // onlisten runs on every (re)connection of the listening connection: notifications sent while
      // it was down are lost, so drain then too.
      listener = await db.sql.listen(WEBHOOK_CHANNEL, () => wake(), () => wake());
      sweep = setInterval(wake, sweepMs);
      wake();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(sweep);
      await listener?.unlisten().catch(reportLoopError);
      listener = undefined;
      await pumping;
      // Recording what was sent spares the receivers a duplicate when the lease runs out.
      await Promise.all(inFlight);
    },
  };
}

function reportLoopError(error: unknown): void {
  // The message only: a driver error can carry a statement's parameters, and those hold bodies.
  console.error("[webhooks] dispatch failed:", error instanceof Error ? error.message : String(error));
}

/** Senders by address policy: with `publicOnly`, every address the host resolves to must be public. */
const senders = {
  publicOnly: outboundFetch({ publicOnly: true, maxResponseBytes: 0 }),
  any: outboundFetch({ publicOnly: false, maxResponseBytes: 0 }),
};

/**
 * POSTs `body`; resolves with the response's status (its body is never read) or a transport error.
 * With `publicOnly`, the host and every address it resolves to must pass address-policy.ts
 * (outboundFetch: a literal is refused, a name in the connection's own lookup).
 */
async function send(
  url: URL,
  body: string,
  headers: Record<string, string>,
  { timeoutMs, publicOnly }: { timeoutMs: number; publicOnly: boolean },
): Promise<SendOutcome> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
  try {
    const response = await (publicOnly ? senders.publicOnly : senders.any)(url, { method: "POST", headers, body, signal: deadline.signal });
    await response.body?.cancel();
    return { status: response.status, retryAfter: response.headers.get("retry-after") };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
