// The identity figures: GET /api/v3/me against `select 1` through the same pool, on the Deno gateway,
// 50 connections from wrk; and how fast `npm start` is ready.
import postgres from "postgres";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { createApiKey, createUser } from "../lib/admin-operations.ts";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { enableLocalGatewayLogin, LOCAL_DATABASE_URL, startCluster, stopCluster, withDatabase } from "../lib/local-postgres.ts";
import { migrate } from "../lib/migrations.ts";
import { AS_DEPLOYED, ensureWrk, formatTable, type LoadResult, runWrk } from "./wrk.ts";

/** A new migrated database `name` with one user and an API key of theirs; the gateway may log in to it. */
export async function benchUserDatabase(
  permissions: Record<string, string[]> = {},
  name = "bench_identity",
): Promise<{ url: string; key: string; userId: string }> {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`not a bench database name: ${name}`);
  startCluster();
  const server = postgres(LOCAL_DATABASE_URL, { max: 1, onnotice: () => {} });
  await server.unsafe(`drop database if exists ${name} with (force)`);
  await server.unsafe(`create database ${name}`);
  await server.end();
  const url = withDatabase(LOCAL_DATABASE_URL, name);
  await migrate(url, { jobsWithoutPgCron: true }); // a bench database: pg_cron lives only in `postgres`
  await enableLocalGatewayLogin(LOCAL_DATABASE_URL);

  const db = new Database(connect(url, { max: 1, prepare: true }));
  const user = await createUser(db, { email: "bench@example.com" });
  const { key } = await createApiKey(db, { userId: user.id, name: "bench", permissions });
  await db.close();
  return { url, key, userId: user.id };
}

export async function benchIdentity(options: { seconds: number }) {
  ensureWrk();
  const { url, key } = await benchUserDatabase();
  const startup = await measureStartup();
  const load = { connections: 50, seconds: options.seconds };
  const measure = async (label: string, env: Record<string, string>) => {
    const gateway = await startGatewayProcess({ DATABASE_URL: url, ENABLE_BENCH_ROUTES: "true", ...env });
    try {
      runWrk("warm-up", `${gateway.url}/api/v3/me`, { ...load, seconds: 2, headers: { "x-api-key": key } });
      return [
        runWrk(`GET /health (no database)${label}`, `${gateway.url}/health`, load),
        runWrk(`GET /bench/select-1${label}`, `${gateway.url}/bench/select-1`, load),
        runWrk(`GET /api/v3/me${label}`, `${gateway.url}/api/v3/me`, { ...load, headers: { "x-api-key": key } }),
      ];
    } finally {
      await gateway.stop("SIGKILL");
    }
  };
  const rows: LoadResult[] = [...await measure("", AS_DEPLOYED), ...await measure(", local header-read guard", {})];
  const ratio = rows[2]!.requestsPerSecond / rows[1]!.requestsPerSecond;
  console.log(formatTable(rows));
  console.log(`\n/me ÷ select-1 throughput: ${(ratio * 100).toFixed(0)}% (target ≥ 50%); ` +
    `through the local guard ${(rows[5]!.requestsPerSecond / rows[4]!.requestsPerSecond * 100).toFixed(0)}%`);
  console.log(`npm start ready (cluster stopped → serving): ${startup.coldMs} ms; (cluster running): ${startup.warmMs} ms (target < 5000 ms)`);
  return { rows, ratio, startup };
}

/** From spawning `npm start`'s entry to its ready banner, with the local cluster stopped and running. */
async function measureStartup() {
  const timeOnce = async () => {
    const started = performance.now();
    const gateway = await startGatewayProcess({});
    const ms = Math.round(performance.now() - started);
    await gateway.stop("SIGINT");
    return ms;
  };
  stopCluster();
  const coldMs = await timeOnce();
  const warmMs = await timeOnce();
  return { coldMs, warmMs };
}
