// The nonce purge as pg_cron holds it. pg_cron exists only in the database cron.database_name
// names: the test server's `postgres` database (the one `npm start` uses), never in the test
// databases. That database is shared, so this test works in one transaction that it rolls back:
// it bootstraps it and applies the migrations it lacks (on a new cluster, all of them: the bootstrap
// creates pg_cron there), reads the job, re-schedules it and runs its command, and leaves no job and
// no object behind (only pg_cron's job id sequence moves on). Where the server does not preload
// pg_cron the test is skipped. pgTAP covers the job's function itself.
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bootstrap, migrationFiles } from "../../scripts/lib/migrations.ts";

const JOB = "purge_expired_siwe_nonces";
const COMMAND = "set role service_jobs; select core.purge_expired_siwe_nonces()";
// The migration that schedules the job; later ones are left out, they are not this test's subject.
const SCHEDULING_MIGRATION = "20261123000300";

const server = postgres(inject("serverUrl"), { max: 1, onnotice: () => {} });
const [cron] = await server<{ preloaded: boolean }[]>`
  select current_setting('shared_preload_libraries') like '%pg_cron%'
     and current_database() = coalesce(current_setting('cron.database_name', true), 'postgres') as preloaded`;
afterAll(() => server.end());

describe.skipIf(!cron!.preloaded)("the purge job in the database that has pg_cron", () => {
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

  const jobs = () => tx<{ jobid: number; schedule: string; command: string; username: string; database: string; active: boolean }[]>`
    select jobid::int, schedule, command, username, database, active from cron.job where jobname = ${JOB}`;

  it("the migration schedules it every 10 minutes, in this database, as the migrating role", async () => {
    const [owner] = await tx<{ me: string }[]>`select current_user as me`;
    expect(await jobs()).toEqual([
      { jobid: expect.any(Number), schedule: "*/10 * * * *", command: COMMAND, username: owner!.me, database: "postgres", active: true },
    ]);
  });

  it("scheduling it again replaces it", async () => {
    const [before] = await jobs();
    const [again] = await tx<{ jobid: number }[]>`select core.schedule_job(${JOB}, '*/5 * * * *', 'core.purge_expired_siwe_nonces')::int as jobid`;
    expect(again!.jobid).toBe(before!.jobid);
    expect((await jobs()).map((j) => j.schedule)).toEqual(["*/5 * * * *"]);
  });

  it("its command runs the purge as service_jobs", async () => {
    const [job] = await jobs();
    const results = await tx.unsafe(job!.command);
    expect(results.at(-1)).toEqual([{ purge_expired_siwe_nonces: expect.any(Number) }]);
    expect(await tx`select current_user as me`).toEqual([{ me: "service_jobs" }]);
    await tx`reset role`;
  });
});
