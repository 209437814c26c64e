// The sponsorship figures: POST /api/v3/sponsorship/check at 50 connections spread over 1,000 sponsors
// (wrk) against pgbench calling sponsorship.check at the same concurrency, in the key's scope as
// the API does, same run (target: the API at least 50%); then one hot sponsor taking every check
// (target: at least 1,000 checks per second, no overdraft, no deadlock).
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { benchUserDatabase } from "./identity.ts";
import { AS_DEPLOYED, BENCH_DIR, ensureWrk, formatTable, runPgbench, runWrk } from "./wrk.ts";

const CONNECTIONS = 50;
const SPONSORS = 1000;
const CHAIN_ID = 31337;
const TARGET = "0x00000000000000000000000000000000000000c1";
const MAX_COST = "1000";
/** Enough for every hold the runs can take (each holds MAX_COST for 120 s). */
const DEPOSIT = "1000000000000000000000";

/** Sponsor wallet i (1-based): 0x and i in 40 hex digits, the same in SQL, Lua and pgbench. */
const wallet = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;

/**
 * The key's owner owns 1,000 sponsor wallets, each with a deposit and check-ins enabled, written as
 * the database owner (ledger entries included, so the invariant holds in the bench database too).
 */
async function arrangeSponsors(url: string, userId: string): Promise<void> {
  const owner = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await owner.begin(async (tx) => {
      await tx`insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
               select ${userId}, '0x' || lpad(to_hex(i), 40, '0'), ${String(CHAIN_ID)}, 'bench', 'operator'
               from generate_series(1, ${SPONSORS}) i`;
      await tx`insert into sponsorship.sponsors (chain_id, wallet_address, deposited)
               select ${CHAIN_ID}, '0x' || lpad(to_hex(i), 40, '0'), ${DEPOSIT}::numeric from generate_series(1, ${SPONSORS}) i`;
      await tx`insert into sponsorship.deposits (sponsor_id, chain_id, tx_hash, amount, from_address, to_address, block_number, recorded_by)
               select s.id, s.chain_id, '0x' || lpad(to_hex(s.id), 64, '0'), s.deposited, s.wallet_address,
                      '0x00000000000000000000000000000000000000f1', 1, ${userId}
               from sponsorship.sponsors s`;
      await tx`insert into sponsorship.ledger_entries (sponsor_id, kind, amount, deposit_id)
               select d.sponsor_id, 'deposit', d.amount, d.id from sponsorship.deposits d`;
      await tx`insert into sponsorship.settings (sponsor_id, enabled_operations) select id, '{check_in}' from sponsorship.sponsors`;
    });
  } finally {
    await owner.end();
  }
}

/** The check's body for the Lua script: WALLET is replaced per request. */
const checkBody = JSON.stringify({
  walletAddress: "WALLET", chainId: CHAIN_ID, operationType: "check_in", clientId: "bench", targetAddress: TARGET,
  callData: "0x12345678", nativeValueWei: "0", actorAddress: "WALLET", maxCostWei: MAX_COST,
});

function luaScript(key: string, sponsors: number): string {
  return `local n = 0
request = function()
  n = n + 1
  local w = string.format("0x%040x", math.random(1, ${sponsors}))
  local body = string.gsub('${checkBody}', "WALLET", w)
  return wrk.format("POST", "/api/v3/sponsorship/check", { ["content-type"] = "application/json", ["x-api-key"] = "${key}" }, body)
end
`;
}

/**
 * pgbench's script: the key's rate limit in a statement of its own, then the key's scope and the
 * check the API runs (wallet and actor the same), as the API sends them.
 */
function pgbenchScript(key: string, sponsors: number): string {
  const keyHash = createHash("sha256").update(key).digest("hex");
  return `\\set i random(1, ${sponsors})
select core.take_api_key_rate_limit('\\x${keyHash}'::bytea, array[]::text[], 'sponsorship.check', 1000000, 60);
begin;
select core.enter_api_key_scope('\\x${keyHash}'::bytea, array[]::text[]);
select eligible from sponsorship.check(${CHAIN_ID}::bigint, '0x' || lpad(to_hex(:i::integer), 40, '0'), 'check_in'::sponsorship.operation_type,
  'bench', '${TARGET}', '0x12345678', 0::numeric, '0x' || lpad(to_hex(:i::integer), 40, '0'), null::text, ${MAX_COST}::numeric, null::integer);
commit;
`;
}

/** No sponsor may be overdrawn, and the rows must equal their ledgers. */
async function ledgerHolds(url: string): Promise<{ overdrawn: number; unexplained: number; holds: number }> {
  const owner = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await owner<{ overdrawn: number; unexplained: number; holds: number }[]>`
      select (select count(*)::int from sponsorship.sponsors where deposited - spent - held < 0) as overdrawn,
             (select count(*)::int from sponsorship.sponsors s
              where s.held <> coalesce((select sum(case kind when 'hold' then amount else -amount end)
                                        from sponsorship.ledger_entries e
                                        where e.sponsor_id = s.id and kind in ('hold', 'release')), 0)) as unexplained,
             (select count(*)::int from sponsorship.reservations) as holds`;
    return row!;
  } finally {
    await owner.end();
  }
}

export async function benchSponsorship(options: { seconds: number }) {
  ensureWrk();
  const { url, key, userId } = await benchUserDatabase();
  await arrangeSponsors(url, userId);
  const gateway = await startGatewayProcess({
    DATABASE_URL: url,
    SPONSORSHIP_RATE_LIMITS: JSON.stringify({ check: 1_000_000 }),
    ...AS_DEPLOYED,
  });
  try {
    const first = await fetch(`${gateway.url}/api/v3/sponsorship/check`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: checkBody.replaceAll("WALLET", wallet(1)),
    });
    const decision = await first.json();
    if (first.status !== 200 || !decision.eligible) throw new Error(`check answered ${first.status}: ${JSON.stringify(decision)}`);

    const spread = join(BENCH_DIR, "sponsorship-check-spread.lua");
    writeFileSync(spread, luaScript(key, SPONSORS));
    const hot = join(BENCH_DIR, "sponsorship-check-hot.lua");
    writeFileSync(hot, luaScript(key, 1));
    const load = { connections: CONNECTIONS, seconds: options.seconds };
    runWrk("warm-up", gateway.url, { ...load, seconds: 2, script: spread });
    const apiSpread = runWrk(`POST /api/v3/sponsorship/check (${SPONSORS} sponsors)`, gateway.url, { ...load, script: spread });
    const tps = runPgbench(url, "sponsorship-check", pgbenchScript(key, SPONSORS), CONNECTIONS, options.seconds);
    const apiHot = runWrk("POST /api/v3/sponsorship/check (1 hot sponsor)", gateway.url, { ...load, script: hot });
    const ledger = await ledgerHolds(url);

    console.log(formatTable([apiSpread, apiHot]));
    console.log(`\npgbench calling sponsorship.check over ${SPONSORS} sponsors, ${CONNECTIONS} clients: ${tps} tps`);
    console.log(`check: API ${(apiSpread.requestsPerSecond / tps * 100).toFixed(0)}% of pgbench (target ≥ 50%), p99 ${apiSpread.p99Ms.toFixed(1)} ms`);
    console.log(`hot sponsor: ${apiHot.requestsPerSecond} checks/s (target ≥ 1,000), p99 ${apiHot.p99Ms.toFixed(1)} ms, ` +
      `${apiHot.non2xx} non-2xx; after all runs: ${ledger.holds} holds, ${ledger.overdrawn} sponsors overdrawn, ` +
      `${ledger.unexplained} whose held differs from their ledger`);
    return { apiSpread, apiHot, pgbenchTps: tps, ledger };
  } finally {
    await gateway.stop("SIGKILL");
  }
}
