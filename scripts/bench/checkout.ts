// The session-creation figure: POST /api/v3/checkout/sessions at 50 connections (wrk, a new
// externalOrderId per request) against pgbench calling checkout.create_session at the same
// concurrency, in the key's scope as the API does, same run. Target: the API at least 50%.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import postgres from "postgres";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { loadPlaces } from "../lib/places.ts";
import { benchUserDatabase } from "./identity.ts";
import { AS_DEPLOYED, BENCH_DIR, ensureWrk, formatTable, runPgbench, runWrk } from "./wrk.ts";

const CONNECTIONS = 50;
const PAYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"; // the collection owner's linked address (anvil dev account 1)
const COLLECTION = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

/** The owner's linked address and a registered static-price collection, written as the database owner. */
async function arrangeCollection(url: string, userId: string): Promise<string> {
  const owner = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await owner`insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
                values (${userId}, ${PAYER}, '31337', 'bench', 'operator')`;
    const [row] = await owner<{ id: string }[]>`
      insert into checkout.collections (owner_id, chain_id, address, pricing, mint_price, token_decimals, verified_owner_address)
      values (${userId}, 31337, ${COLLECTION}, 'static', 1000000000000000, 18, ${PAYER}) returning id`;
    return row!.id;
  } finally {
    await owner.end();
  }
}

function sessionBody(collectionId: string, orderId: string) {
  return {
    collectionId,
    externalOrderId: orderId,
    items: [{ name: "Ticket", description: "One entry", mintPrice: "1000000000000000", image: "https://shop.example/t.png", externalProductRef: "sku-1", quantity: 1 }],
    paymentMethods: ["crypto_wallet"],
    allowedOrigin: "https://shop.example",
    webhookUrl: "https://shop.example/hooks/checkout",
    expiresInSeconds: 1800,
  };
}

/**
 * pgbench's script: the statements of a creation, a new order, fingerprint and secret each time.
 * (The permission's colon is chr(58): pgbench would read `:create` as one of its variables.)
 */
function pgbenchScript(key: string, template: { request: unknown }) {
  const keyHash = createHash("sha256").update(key).digest("hex");
  const request = JSON.stringify(template.request).replace(/'/g, "''");
  return `\\set n random(1, 1000000000000)
begin;
select core.enter_api_key_scope('\\x${keyHash}'::bytea, array['checkout' || chr(58) || 'create']);
select id from checkout.create_session(
  (select id from checkout.collections limit 1), 'pgbench-' || :n,
  sha256(('fingerprint-' || :n)::bytea), '${request}'::jsonb,
  sha256(('secret-' || :n)::bytea), '\\x01'::bytea, now() + interval '30 minutes');
commit;
`;
}

export async function benchCheckout(options: { seconds: number }) {
  ensureWrk();
  const { url, key, userId } = await benchUserDatabase({ checkout: ["create"] }, "bench_checkout");
  const collectionId = await arrangeCollection(url, userId);
  // Loaded now, or the gateway would load them (about 10 s of COPY) while it is measured.
  await loadPlaces(url, { ifEmpty: true });
  const gateway = await startGatewayProcess({ DATABASE_URL: url, ...AS_DEPLOYED });
  try {
    const endpoint = `${gateway.url}/api/v3/checkout/sessions`;
    const first = await fetch(endpoint, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(sessionBody(collectionId, "first-order")),
    });
    if (first.status !== 201) throw new Error(`session creation answered ${first.status}: ${await first.text()}`);
    // The canonical request the API stored, as pgbench's template.
    const owner = postgres(url, { max: 1, onnotice: () => {} });
    const [template] = await owner<{ request: unknown }[]>`select request from checkout.sessions limit 1`;
    await owner.end();

    const body = JSON.stringify(sessionBody(collectionId, "ORDER")).replace(/'/g, "\\'");
    const lua = join(BENCH_DIR, "checkout-sessions.lua");
    writeFileSync(lua, `local n = 0
local prefix = tostring(math.random(1, 1000000000))
request = function()
  n = n + 1
  local body = string.gsub('${body}', "ORDER", "wrk-" .. prefix .. "-" .. n)
  return wrk.format("POST", "/api/v3/checkout/sessions", { ["content-type"] = "application/json", ["x-api-key"] = "${key}" }, body)
end
`);
    // wrk.format's headers replace wrk's -H ones, so the key is in the script.
    const load = { connections: CONNECTIONS, seconds: options.seconds, script: lua };
    runWrk("warm-up", gateway.url, { ...load, seconds: 2 });
    const api = runWrk("POST /api/v3/checkout/sessions (new order each)", gateway.url, load);

    const tps = runPgbench(url, "checkout-sessions", pgbenchScript(key, template!), CONNECTIONS, options.seconds);
    console.log(formatTable([api]));
    console.log(`\npgbench calling checkout.create_session, ${CONNECTIONS} clients: ${tps} tps`);
    console.log(`session creation: API ${(api.requestsPerSecond / tps * 100).toFixed(0)}% of pgbench (target ≥ 50%), p99 ${api.p99Ms.toFixed(1)} ms`);
    return { api, pgbenchTps: tps };
  } finally {
    await gateway.stop("SIGKILL");
  }
}
