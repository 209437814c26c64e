// The check-in figures, on the Deno gateway:
//   online QR scans at 50 connections (wrk; every request a signed ticket of the line, entries then
//   exits, a fresh nonce) against pgbench calling checkin.scan at the same concurrency in the host's
//   key scope, as the API does; target: the API at least 50% of pgbench, p99 reported;
//   an offline batch of 10,000 scans (2,000 tickets, duplicates and replays among them) in one
//   request; target: under 5 s;
//   reservations at 50 connections on one event with 50 seats, each request a different person;
//   target: exactly 50 approved, no deadlock; throughput reported.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { hashApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { generateTicketSigningKey, parseTicketSigningKeys, signTicket } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { benchUserDatabase } from "./identity.ts";
import { AS_DEPLOYED, BENCH_DIR, ensureWrk, formatTable, runPgbench, runWrk } from "./wrk.ts";

const CONNECTIONS = 50;
const LINE = 2_000;
const PEOPLE = 60_000;
const SECRET = "bench-secret-key-000000";
const keyOf = (n: number) => `sk_r${String(n).padStart(7, "0")}_${SECRET}`;

/** `count` people with an API key each (keyOf(1..count)), written as the database owner; their ids in order. */
async function arrangePeople(owner: postgres.Sql, count: number): Promise<string[]> {
  const rows = await owner<{ id: string }[]>`
    with people as (
      insert into core.users (email) select format('p%s@bench.example', n) from generate_series(1, ${count}::int) n returning id, email),
    numbered as (select id, split_part(split_part(email, '@', 1), 'p', 2)::int as n from people)
    insert into core.api_keys (owner_id, name, prefix, key_hash)
      select id, 'bench', 'sk_r' || lpad(n::text, 7, '0'),
        sha256(convert_to('sk_r' || lpad(n::text, 7, '0') || '_' || ${SECRET}, 'UTF8'))
      from numbered order by n
    returning owner_id as id`;
  return rows.map((row) => row.id);
}

export async function benchCheckin(options: { seconds: number }) {
  ensureWrk();
  const { url, key: hostKey, userId: hostId } = await benchUserDatabase();
  const owner = postgres(url, { max: 2, onnotice: () => {} });
  const ticketKeys = await generateTicketSigningKey("bench");
  const keys = parseTicketSigningKeys(ticketKeys);
  const gateway = await startGatewayProcess({ DATABASE_URL: url, ...AS_DEPLOYED, TICKET_SIGNING_KEYS: ticketKeys });
  try {
    const people = await arrangePeople(owner, PEOPLE);
    const newEvent = async (name: string) => (await owner<{ id: string }[]>`
      insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone, status)
      values (${hostId}, ${name}, ${name}, now() + interval '1 day', now() + interval '1 day 2 hours', 'UTC', 'PUBLISHED') returning id`)[0]!.id;

    // ---- Online QR scans ----
    const door = await newEvent("door");
    const line = await owner<{ id: string }[]>`
      insert into checkin.reservations (event_id, user_id, status, attendee_name)
      select ${door}, id, 'approved', 'Bench attendee' from unnest(${people.slice(0, LINE)}::text[]) id returning id`;
    const tokens = await Promise.all(line.map((r) => signTicket(keys, { reservationId: r.id, eventId: door, version: 1 })));
    const lua = join(BENCH_DIR, "checkin-scans.lua");
    writeFileSync(lua, `local tokens = { ${tokens.map((t) => `"${t}"`).join(", ")} }
local n = 0
local run = tostring(math.random(1, 1000000000))
request = function()
  n = n + 1
  local direction = (math.floor((n - 1) / #tokens) % 2 == 0) and "entry" or "exit"
  local body = '{"method":"qr","ticket":"' .. tokens[((n - 1) % #tokens) + 1] .. '","direction":"' .. direction ..
    '","deviceId":"wrk","nonce":"w-' .. run .. '-' .. n .. '"}'
  return wrk.format("POST", "/api/v3/events/${door}/check-ins", { ["content-type"] = "application/json", ["x-api-key"] = "${hostKey}" }, body)
end
`);
    runWrk("warm-up", gateway.url, { connections: CONNECTIONS, seconds: 2, script: lua });
    const scans = runWrk("POST /api/v3/events/{id}/check-ins (QR)", gateway.url, { connections: CONNECTIONS, seconds: options.seconds, script: lua });
    const ids = line.map((r) => `'${r.id}'`).join(",");
    const pgbenchTps = runPgbench(url, "checkin-scans", `\\set i random(1, ${LINE})
\\set d random(0, 1)
begin;
select core.enter_api_key_scope('\\x${hashApiKey(hostKey).toString("hex")}'::bytea, '{}'::text[]);
select scan from checkin.scan('${door}', 'qr', (array[${ids}])[:i], 1, null, null, case when :d = 0 then 'entry' else 'exit' end,
  'pgbench', 'p-' || :client_id || '-' || random(), now(), null, false);
commit;
`, CONNECTIONS, options.seconds);
    const scanShare = Math.round((scans.requestsPerSecond / pgbenchTps) * 100);

    // ---- An offline batch of 10,000 ----
    const offlineEvent = await newEvent("offline");
    const offlineLine = await owner<{ id: string }[]>`
      insert into checkin.reservations (event_id, user_id, status, attendee_name)
      select ${offlineEvent}, id, 'approved', 'Bench attendee' from unnest(${people.slice(0, LINE)}::text[]) id returning id`;
    const offlineTokens = await Promise.all(offlineLine.map((r) => signTicket(keys, { reservationId: r.id, eventId: offlineEvent, version: 1 })));
    const start = Date.now() - 3_600_000;
    // 2,000 tickets: an entry each, 4,000 exits and re-entries, and 4,000 scans repeated (duplicates, then replays).
    const unique = Array.from({ length: 6_000 }, (_, i) => ({
      method: "qr", ticket: offlineTokens[i % LINE], direction: Math.floor(i / LINE) % 2 === 0 ? "entry" : "exit",
      nonce: `offline-${i}`, scannedAt: new Date(start + i * 100).toISOString(),
    }));
    const batch = { deviceId: "door-offline", scans: [...unique, ...unique.slice(0, 4_000)] };
    const body = JSON.stringify(batch);
    const started = performance.now();
    const answer = await fetch(`${gateway.url}/api/v3/events/${offlineEvent}/check-ins/offline`, {
      method: "POST", headers: { "x-api-key": hostKey, "content-type": "application/json" }, body,
    });
    const result = await answer.json();
    const offlineMs = Math.round(performance.now() - started);
    if (answer.status !== 200) throw new Error(`offline batch answered ${answer.status}: ${JSON.stringify(result).slice(0, 300)}`);

    // ---- Reservations racing for 50 seats ----
    const seats = await newEvent("seats");
    await owner`insert into checkin.event_settings (event_id, capacity) values (${seats}, 50)`;
    const reserveLua = join(BENCH_DIR, "checkin-reservations.lua");
    writeFileSync(reserveLua, `local n = ${LINE}
request = function()
  n = n + 1
  return wrk.format("POST", "/api/v3/events/${seats}/reservations", { ["x-api-key"] = "sk_r" .. string.format("%07d", n) .. "_${SECRET}" }, nil)
end
`);
    const reservations = runWrk("POST /api/v3/events/{id}/reservations (a new person each)", gateway.url,
      { connections: CONNECTIONS, seconds: Math.min(options.seconds, 10), script: reserveLua });
    const [tally] = await owner<{ approved: number; waitlisted: number; total: number }[]>`
      select count(*) filter (where status = 'approved')::int as approved, count(*) filter (where status = 'waitlisted')::int as waitlisted,
        count(*)::int as total from checkin.reservations where event_id = ${seats}`;
    const [deadlocks] = await owner<{ deadlocks: number }[]>`select deadlocks::int from pg_stat_database where datname = current_database()`;

    console.log(formatTable([scans, reservations]));
    console.log(`\npgbench calling checkin.scan, ${CONNECTIONS} clients: ${pgbenchTps} tps`);
    console.log(`online QR scan: API ${scanShare}% of pgbench (target ≥ 50%), p99 ${scans.p99Ms.toFixed(1)} ms`);
    console.log(`offline batch of ${batch.scans.length} scans: ${offlineMs} ms (target < 5000 ms): ${result.admitted} admitted or exited, ` +
      `${result.refused} refused, ${result.replayed} replayed`);
    console.log(`reservations: ${reservations.requestsPerSecond}/s at ${CONNECTIONS} connections, ${tally!.total} made: ` +
      `${tally!.approved} approved (target exactly 50), ${tally!.waitlisted} waitlisted, ${reservations.non2xx} non-2xx, deadlocks ${deadlocks!.deadlocks}`);
    return { scans, pgbenchTps, scanShare, offlineMs, offline: { admitted: result.admitted, refused: result.refused, replayed: result.replayed },
      reservations, tally, deadlocks: deadlocks!.deadlocks };
  } finally {
    await owner.end();
    await gateway.stop("SIGKILL");
  }
}
