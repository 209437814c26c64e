// The webhook figures, with the dispatcher's running loop in this (Deno) process against the
// local cluster, as the gateway runs it, and local receivers on 127.0.0.1:
//   1. 1,000 queued deliveries drained (target < 10 s);
//   2. latency from the completing commit to the receiver's 2xx, checkouts completed one by one
//      while a receiver that answers in 5 s holds deliveries of its own (target p50 < 50 ms, p99 < 250 ms).
// The commit time is taken when complete_session_as_job returns (after its COMMIT), so the figure
// leaves out that statement's return trip: well under a millisecond here.
import http from "node:http";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { DEVELOPMENT_ENCRYPTION_KEY, loadConfig } from "../../supabase/functions/_shared/config.ts";
import { SecretBox } from "../../supabase/functions/_shared/crypto/secret-box.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { createWebhookDispatcher, webhookSecretAssociatedData } from "../../supabase/functions/_shared/webhooks/dispatcher.ts";
import { createUser } from "../lib/admin-operations.ts";
import { enableLocalGatewayLogin, gatewayUrl, LOCAL_DATABASE_URL, startCluster, withDatabase } from "../lib/local-postgres.ts";
import { migrate } from "../lib/migrations.ts";
import { listenOnLoopback } from "../lib/listen.ts";

const QUEUED = 1000;
const LATENCY_SAMPLES = 200;
const SLOW_DELIVERIES = 5;
const SLOW_REPLY_MS = 5000;

/** A receiver answering 204 after `delayMs`, noting when each event id arrived. */
async function receiver(delayMs = 0) {
  const arrivals = new Map<string, number>();
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      arrivals.set(String(request.headers["x-service-event-id"]), performance.now());
      setTimeout(() => response.writeHead(204).end(), delayMs);
    });
  });
  await listenOnLoopback(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/checkout`,
    arrivals,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

export async function benchWebhooks(_options: { seconds: number }) {
  startCluster();
  const server = postgres(LOCAL_DATABASE_URL, { max: 1, onnotice: () => {} });
  await server.unsafe("drop database if exists bench_webhooks with (force)");
  await server.unsafe("create database bench_webhooks");
  await server.end();
  const url = withDatabase(LOCAL_DATABASE_URL, "bench_webhooks");
  await migrate(url, { jobsWithoutPgCron: true }); // a bench database: pg_cron lives only in `postgres`
  await enableLocalGatewayLogin(LOCAL_DATABASE_URL);

  const owner = postgres(url, { max: 2, onnotice: () => {} });
  const adminDb = new Database(connect(url, { max: 1, prepare: true }));
  const config = loadConfig({ GATEWAY_DATABASE_URL: gatewayUrl(url) });
  const db = new Database(connect(config.GATEWAY_DATABASE_URL, { max: config.DB_POOL_MAX, prepare: true }));
  const fast = await receiver();
  const slow = await receiver(SLOW_REPLY_MS);
  const dispatcher = createWebhookDispatcher({ db, config });
  try {
    const user = await createUser(adminDb, { email: "bench-webhooks@example.com" });
    const box = await SecretBox.fromBase64(DEVELOPMENT_ENCRYPTION_KEY);
    for (const target of [fast.url, slow.url]) {
      const sealed = await box.seal(`whsec_${btoa("bench-webhook-secret-0123456789ab")}`, webhookSecretAssociatedData(user.id, target));
      await owner`insert into checkout.webhook_secrets (owner_id, webhook_url, secret_ciphertext) values (${user.id}, ${target}, ${sealed})`;
    }
    const [collection] = await owner<{ id: string }[]>`
      insert into checkout.collections (owner_id, chain_id, address, pricing, token_decimals, verified_owner_address)
      values (${user.id}, 31337, '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'dynamic', 18, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
      returning id`;
    // PENDING checkouts n = from..to for `target`; completing one queues its delivery.
    const pending = (from: number, to: number, target: string) => owner<{ id: string; n: number }[]>`
      insert into checkout.sessions (owner_id, collection_id, external_order_id, request_fingerprint, request, price,
                                     client_secret_hash, client_secret_ciphertext, expires_at)
      select ${user.id}, ${collection!.id}, 'order-' || n, sha256(n::text::bytea),
             jsonb_build_object('webhookUrl', ${target}::text, 'price', '1000'), 1000,
             sha256(('secret' || n)::bytea), '\\x00', now() + interval '1 hour'
      from generate_series(${from}::int, ${to}::int) n
      returning id, substr(external_order_id, 7)::int as n`;
    const complete = (session: { id: string; n: number }) => owner`
      select checkout.complete_session_as_job(${session.id}, '0x' || lpad(to_hex(${session.n}::int), 64, '0'),
        '0x70997970C51812dc3A010C7d01b4c8D4D1d9a4E1', array[${session.n}::int]::numeric[], 1000, null, 1)`;

    // 1. Drain a queue of 1,000 (completed before the dispatcher starts).
    for (const session of await pending(1, QUEUED, fast.url)) await complete(session);
    const drainStart = performance.now();
    await dispatcher.start();
    await waitFor(() => fast.arrivals.size === QUEUED, 60_000);
    await waitFor(async () => (await owner`select 1 from checkout.webhook_deliveries where status = 'pending' limit 1`).length === 0, 60_000);
    const drainMs = performance.now() - drainStart;

    // 2. Commit-to-2xx latency, one checkout at a time, beside a slow receiver's deliveries.
    for (const session of await pending(QUEUED + 1, QUEUED + SLOW_DELIVERIES, slow.url)) await complete(session);
    await waitFor(() => slow.arrivals.size === SLOW_DELIVERIES, 5000);
    const committedAt = new Map<string, number>();
    for (const session of await pending(QUEUED + SLOW_DELIVERIES + 1, QUEUED + SLOW_DELIVERIES + LATENCY_SAMPLES, fast.url)) {
      await complete(session);
      committedAt.set(`checkout-completed-${session.id}`, performance.now());
      await new Promise((r) => setTimeout(r, 10));
    }
    await waitFor(() => [...committedAt.keys()].every((id) => fast.arrivals.has(id)), 30_000);
    const latencies = [...committedAt].map(([id, at]) => fast.arrivals.get(id)! - at).sort((a, b) => a - b);
    const slowStillOut = slow.arrivals.size === SLOW_DELIVERIES &&
      (await owner`select 1 from checkout.webhook_deliveries where webhook_url = ${slow.url} and status = 'pending'`).length > 0;

    const result = {
      drained: QUEUED,
      drainMs: Math.round(drainMs),
      deliveriesPerSecond: Math.round(QUEUED / (drainMs / 1000)),
      latency: { samples: latencies.length, p50Ms: +percentile(latencies, 0.5).toFixed(1), p99Ms: +percentile(latencies, 0.99).toFixed(1) },
      slowReceiver: { deliveries: SLOW_DELIVERIES, replyMs: SLOW_REPLY_MS, stillAnsweringDuringLatencyRun: slowStillOut },
    };
    console.log(`1,000 queued deliveries drained in ${result.drainMs} ms (${result.deliveriesPerSecond}/s; target < 10,000 ms)`);
    console.log(`commit → receiver, ${latencies.length} checkouts beside ${SLOW_DELIVERIES} deliveries to a receiver answering in ${SLOW_REPLY_MS / 1000} s` +
      `${slowStillOut ? " (still answering)" : ""}: p50 ${result.latency.p50Ms} ms, p99 ${result.latency.p99Ms} ms (targets < 50, < 250)`);
    return result;
  } finally {
    await dispatcher.stop();
    await fast.close();
    await slow.close();
    await db.close();
    await adminDb.close();
    await owner.end();
  }
}
