// The background jobs need pg_cron: migrating a database without it fails with what to do, instead
// of leaving the jobs unscheduled (migration 20261128000500_require_pg_cron.sql), unless the database
// says its jobs run elsewhere (the test databases). And where pg_cron exists, that migration schedules
// every job, also one an earlier migration skipped because pg_cron was enabled only later.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, describe, expect, inject, it } from "vitest";
import { withDatabase } from "../../scripts/lib/local-postgres.ts";
import { migrate, migrationFiles } from "../../scripts/lib/migrations.ts";
import { cronDatabase, migratedTransaction } from "../setup/cron-database.ts";

const FILES = migrationFiles();
const REQUIRE_PG_CRON = FILES.find((file) => file.name === "require_pg_cron")!;
const PREVIOUS = FILES[FILES.indexOf(REQUIRE_PG_CRON) - 1]!;

/** Every job the migrations schedule, by name: the function its command runs. */
const JOBS = {
  purge_expired_siwe_nonces: "core.purge_expired_siwe_nonces",
  purge_rate_limit_windows: "core.purge_rate_limit_windows",
  expire_checkout_sessions: "checkout.expire_sessions",
  release_expired_sponsorship_holds: "sponsorship.release_expired_holds",
  purge_old_mcp_tool_calls: "mcp.purge_tool_calls",
  purge_expired_mcp_oauth_rows: "mcp_oauth.purge_expired_rows",
  purge_finished_mcp_confirmations: "mcp_confirmations.purge_finished",
  purge_expired_app_auth_rows: "app_auth.purge_expired_rows",
};

describe("migrating a database without pg_cron", () => {
  const server = postgres(inject("serverUrl"), { max: 1, onnotice: () => {} });
  const name = `require_pg_cron_${randomBytes(4).toString("hex")}`;
  afterAll(async () => {
    await server.unsafe(`drop database if exists ${name} with (force)`);
    await server.end();
  });

  it("fails at the first job it would schedule, saying how to enable pg_cron, and applies it once told the jobs run elsewhere", async () => {
    await server.unsafe(`create database ${name}`);
    const url = withDatabase(inject("serverUrl"), name);

    const refusal = migrate(url);
    await expect(refusal).rejects.toThrow(`pg_cron is not installed in database ${name}, so the background job purge_expired_siwe_nonces cannot be scheduled.`);
    await expect(refusal).rejects.toThrow("Enable pg_cron first (Supabase: Dashboard, Database, Extensions, pg_cron;");
    await expect(refusal).rejects.toThrow("then apply the migrations again: they schedule every job then.");
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const recorded = async () => (await sql<{ version: string }[]>`select version from supabase_migrations.schema_migrations order by version`).map((r) => r.version);
      expect((await recorded()).at(-1)).toBe(PREVIOUS.version);

      // It and every migration after it apply.
      const rest = FILES.slice(FILES.indexOf(REQUIRE_PG_CRON)).map((file) => file.version);
      expect(await migrate(url, { jobsWithoutPgCron: true })).toEqual(rest);
      expect((await recorded()).slice(-rest.length)).toEqual(rest);
    } finally {
      await sql.end();
    }
  });
});

const { server: cronServer, preloaded } = await cronDatabase();

describe.skipIf(!preloaded)("the migration in the database that has pg_cron", () => {
  const transaction = migratedTransaction(cronServer, PREVIOUS.version);

  it("schedules every job, also one that an earlier migration left unscheduled", async () => {
    // As on a project that enabled pg_cron after its first migrations: one job is missing.
    await transaction()`select cron.unschedule('purge_old_mcp_tool_calls') where exists (select from cron.job where jobname = 'purge_old_mcp_tool_calls')`;
    await transaction().unsafe(readFileSync(REQUIRE_PG_CRON.path, "utf8"));
    const jobs = await transaction()<{ jobname: string; command: string }[]>`
      select jobname, command from cron.job where jobname = any(${Object.keys(JOBS)}) order by jobname`;
    expect(Object.fromEntries(jobs.map((job) => [job.jobname, job.command]))).toEqual(
      Object.fromEntries(Object.entries(JOBS).map(([job, fn]) => [job, `set role service_jobs; select ${fn}()`])),
    );
  });
});
