// The community figures, on 10,000 users, 100,000 hubs and 1,000,000 events (community-data.ts):
// - GET /hubs?search=<word>&take=20 and GET /events?take=20&sort=updatedAt at 50 connections
//   (wrk), against pgbench running the very statements the API ran, at the same concurrency;
// - cursor page 500 against page 1 (latency);
// - venue autocomplete p99 at 10 connections over the full places table.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { createApiApp } from "../../supabase/functions/api/app.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { Database } from "../../supabase/functions/_shared/db/database.ts";
import { createApiKey } from "../lib/admin-operations.ts";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { enableLocalGatewayLogin, gatewayUrl, LOCAL_DATABASE_URL, startCluster, withDatabase } from "../lib/local-postgres.ts";
import { migrate, migrationFiles } from "../lib/migrations.ts";
import { loadPlaces } from "../lib/places.ts";
import { ensureCommunityData } from "./community-data.ts";
import { AS_DEPLOYED, BENCH_DIR, ensureWrk, formatTable, type LoadResult, runPgbench, runWrk } from "./wrk.ts";

const HUB_SEARCH_WORD = "festival";

/** bench_community, rebuilt unless it records exactly the migrations there are (older, or of a rebased history). */
async function prepareBenchDatabase(): Promise<string> {
  startCluster();
  const url = withDatabase(LOCAL_DATABASE_URL, "bench_community");
  const server = postgres(LOCAL_DATABASE_URL, { max: 1, onnotice: () => {} });
  const [exists] = await server`select 1 from pg_database where datname = 'bench_community'`;
  let current = false;
  if (exists) {
    const db = postgres(url, { max: 1, onnotice: () => {} });
    const recorded = await db<{ id: string }[]>`select version || '_' || name as id from supabase_migrations.schema_migrations order by version`
      .catch(() => []);
    current = recorded.map((r) => r.id).join() === migrationFiles().map((f) => `${f.version}_${f.name}`).join();
    await db.end();
  }
  if (!current) {
    await server.unsafe("drop database if exists bench_community with (force)");
    await server.unsafe("create database bench_community");
  }
  await server.end();
  await enableLocalGatewayLogin(LOCAL_DATABASE_URL);
  await migrate(url, { jobsWithoutPgCron: true }); // a bench database: pg_cron lives only in `postgres`
  const data = await ensureCommunityData(url);
  if (data.created) console.log(`generated the data set in ${data.seconds} s`);
  await loadPlaces(url, { ifEmpty: true });
  return url;
}

/** The statements one API request runs, captured from postgres.js, as a pgbench script with literals. */
async function capturePgbenchScript(url: string, key: string, path: string): Promise<string> {
  const statements: string[] = [];
  const literal = (value: unknown): string =>
    value === null ? "null"
    : Array.isArray(value) ? literal(`{${value.map((v) => JSON.stringify(String(v))).join(",")}}`)
    : typeof value === "number" ? String(value)
    : value instanceof Uint8Array ? `'\\x${Buffer.from(value).toString("hex")}'::bytea`
    : `'${String(value).replace(/'/g, "''")}'`;
  const sql = postgres(gatewayUrl(url), {
    max: 1,
    onnotice: () => {},
    debug: (_connection, query, parameters) => {
      if (query.includes("pg_catalog.pg_type")) return; // postgres.js's one-time type lookup
      // Line comments go before the statement becomes one line, or they would swallow the rest of it.
      const uncommented = query.replace(/--[^\n]*/g, "");
      statements.push(uncommented.replace(/\$(\d+)/g, (_, n) => literal(parameters[Number(n) - 1])).replace(/\s+/g, " ").trim());
    },
  });
  const app = createApiApp({ config: loadConfig({ GATEWAY_DATABASE_URL: gatewayUrl(url) }), db: new Database(sql) });
  const response = await app.request(path, { headers: { "x-api-key": key } });
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  await sql.end();
  return statements.map((s) => `${s};`).join("\n") + "\n";
}

async function latencies(url: string, key: string, count: number): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { "x-api-key": key } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(count * 0.5)]!, p99: samples[Math.floor(count * 0.99)]! };
}

export async function benchCommunity(options: { seconds: number }) {
  ensureWrk();
  const url = await prepareBenchDatabase();
  // A generated user who owns hubs and events and is a member of others.
  const owner = postgres(url, { max: 1, onnotice: () => {} });
  const [user] = await owner<{ id: string }[]>`select id from core.users order by id offset 500 limit 1`;
  await owner.end();
  const adminDb = new Database(postgres(url, { max: 1, onnotice: () => {} }));
  const { key } = await createApiKey(adminDb, { userId: user!.id, name: "bench", permissions: {} });
  await adminDb.close();

  const hubsPath = `/api/v3/hubs?search=${HUB_SEARCH_WORD}&take=20`;
  const eventsPath = "/api/v3/events?take=20&sort=updatedAt";
  const gateway = await startGatewayProcess({ DATABASE_URL: url, ...AS_DEPLOYED });
  try {
    const load = { connections: 50, seconds: options.seconds, headers: { "x-api-key": key } };
    runWrk("warm-up", gateway.url + eventsPath, { ...load, seconds: 2 });
    const rows: LoadResult[] = [
      runWrk(`GET ${hubsPath}`, gateway.url + hubsPath, load),
      runWrk(`GET ${eventsPath}`, gateway.url + eventsPath, load),
    ];
    const pgbench = {
      hubs: runPgbench(url, "hubs-search", await capturePgbenchScript(url, key, hubsPath), 50, options.seconds),
      events: runPgbench(url, "events-updated", await capturePgbenchScript(url, key, eventsPath), 50, options.seconds),
    };

    // Page 500 by cursor: walk there, then time it against page 1.
    let cursor = "";
    for (let page = 1; page < 500; page++) {
      const response = await fetch(`${gateway.url}/api/v3/events?take=20${cursor ? `&cursor=${cursor}` : ""}`, { headers: { "x-api-key": key } });
      cursor = (await response.json()).nextCursor;
    }
    const page1 = await latencies(`${gateway.url}/api/v3/events?take=20`, key, 300);
    const page500 = await latencies(`${gateway.url}/api/v3/events?take=20&cursor=${cursor}`, key, 300);
    const offset500 = await latencies(`${gateway.url}/api/v3/events?take=20&page=500`, key, 100);

    // Autocomplete at 10 connections, cycling through prefixes of real place names.
    const queries = ["Berl", "Par", "san fran", "Tok", "New Y", "Lond", "Mün", "ber", "sa", "Rio de", "Kyiv", "Lis", "Ams", "Buenos", "Kra"];
    const lua = join(BENCH_DIR, "autocomplete.lua");
    writeFileSync(lua, `local q = {${queries.map((q) => JSON.stringify(encodeURIComponent(q))).join(",")}}\nlocal i = 0\n` +
      `request = function() i = i + 1; return wrk.format("GET", "/api/v3/adresses/autocomplete?q=" .. q[(i % #q) + 1]) end\n`);
    const autocompleteLoad = { connections: 10, seconds: options.seconds, headers: { "x-api-key": key }, script: lua };
    runWrk("warm-up", gateway.url, { ...autocompleteLoad, seconds: 2 }); // as every other route here
    const autocomplete = runWrk("GET /api/v3/adresses/autocomplete (15 queries)", gateway.url, autocompleteLoad);

    rows.push(autocomplete);
    console.log(formatTable(rows));
    console.log(`\npgbench, same statements, 50 clients: hubs search ${pgbench.hubs} tps, events list ${pgbench.events} tps`);
    console.log(`hubs search: API ${(rows[0]!.requestsPerSecond / pgbench.hubs * 100).toFixed(0)}% of pgbench (target ≥ 50%)`);
    console.log(`events list: API ${(rows[1]!.requestsPerSecond / pgbench.events * 100).toFixed(0)}% of pgbench (target ≥ 50%)`);
    console.log(`cursor page 500 p50 ${page500.p50.toFixed(2)} ms vs page 1 p50 ${page1.p50.toFixed(2)} ms: ` +
      `${(page500.p50 / page1.p50).toFixed(2)}x (target ≤ 1.5x); offset page=500 p50 ${offset500.p50.toFixed(2)} ms`);
    console.log(`autocomplete p99 at 10 connections: ${autocomplete.p99Ms.toFixed(2)} ms (target < 20 ms)`);
    return { rows, pgbench, page1, page500, offset500 };
  } finally {
    await gateway.stop("SIGKILL");
  }
}
