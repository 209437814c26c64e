// The MCP purge jobs (20261123001300_mcp_purge_jobs.sql) as pg_cron holds them, in the test server's
// `postgres` database, the only one with pg_cron (see tests/identity/siwe-nonce-purge.cron.test.ts,
// whose approach this copies): one transaction, rolled back, that bootstraps the database, applies
// the migrations it lacks up to the scheduling one, reads the three jobs and runs their commands.
// Where the server does not preload pg_cron the test is skipped. pgTAP covers the functions
// (tests/db/mcp, tests/db/mcp_oauth, tests/db/mcp_confirmations).
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bootstrap, migrationFiles } from "../../scripts/lib/migrations.ts";

const SCHEDULING_MIGRATION = "20261123001300";
const JOBS = [
  { name: "purge_expired_mcp_oauth_rows", schedule: "23 * * * *", fn: "mcp_oauth.purge_expired_rows", column: "purge_expired_rows" },
  { name: "purge_finished_mcp_confirmations", schedule: "37 3 * * *", fn: "mcp_confirmations.purge_finished", column: "purge_finished" },
  { name: "purge_old_mcp_tool_calls", schedule: "47 3 * * *", fn: "mcp.purge_tool_calls", column: "purge_tool_calls" },
];

const server = postgres(inject("serverUrl"), { max: 1, onnotice: () => {} });
const [cron] = await server<{ preloaded: boolean }[]>`
  select current_setting('shared_preload_libraries') like '%pg_cron%'
     and current_database() = coalesce(current_setting('cron.database_name', true), 'postgres') as preloaded`;
afterAll(() => server.end());

describe.skipIf(!cron!.preloaded)("the MCP purge jobs in the database that has pg_cron", () => {
  let tx: postgres.ReservedSql;
  beforeAll(async () => {
    tx = await server.reserve();
    await tx`begin`;
    // Serialised with `npm start` and db:migrate, which hold this lock while they migrate.
    await tx`select pg_advisory_xact_lock(hashtext('supabase_migrations'))`;
    await bootstrap(tx);
    const applied = new Set((await tx<{ version: string }[]>`select version from supabase_migrations.schema_migrations`).map((r) => r.version));
    for (const file of migrationFiles()) {
      if (!applied.has(file.version) && file.version <= SCHEDULING_MIGRATION) await tx.unsafe(readFileSync(file.path, "utf8"));
    }
  });
  afterAll(async () => {
    await tx`rollback`;
    tx.release();
  });

  const job = async (name: string) => tx<{ schedule: string; command: string; username: string; database: string; active: boolean }[]>`
    select schedule, command, username, database, active from cron.job where jobname = ${name}`;

  it("the migration schedules the three jobs in this database, as the migrating role", async () => {
    const [owner] = await tx<{ me: string }[]>`select current_user as me`;
    for (const { name, schedule, fn } of JOBS) {
      expect(await job(name), name).toEqual([
        { schedule, command: `set role service_jobs; select ${fn}()`, username: owner!.me, database: "postgres", active: true },
      ]);
    }
  });

  it("each command runs its purge as service_jobs", async () => {
    for (const { name, column } of JOBS) {
      const [scheduled] = await job(name);
      const results = await tx.unsafe(scheduled!.command);
      expect(results.at(-1), name).toEqual([{ [column]: expect.any(Number) }]);
      expect(await tx`select current_user as me`).toEqual([{ me: "service_jobs" }]);
      await tx`reset role`;
    }
  });
});
