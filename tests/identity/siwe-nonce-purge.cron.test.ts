// The nonce purge as pg_cron holds it, in the test server's pg_cron database, inside one transaction
// that is rolled back (tests/setup/cron-database.ts): reads the job, re-schedules it and runs its
// command. pgTAP covers the job's function itself.
import { describe, expect, it } from "vitest";
import { cronDatabase, migratedTransaction } from "../setup/cron-database.ts";

const JOB = "purge_expired_siwe_nonces";
const COMMAND = "set role service_jobs; select core.purge_expired_siwe_nonces()";
// The migration that schedules the job; later ones are left out, they are not this test's subject.
const SCHEDULING_MIGRATION = "20261123000800";

const { server, preloaded } = await cronDatabase();

describe.skipIf(!preloaded)("the purge job in the database that has pg_cron", () => {
  const transaction = migratedTransaction(server, SCHEDULING_MIGRATION);

  const jobs = () => transaction()<{ jobid: number; schedule: string; command: string; username: string; database: string; active: boolean }[]>`
    select jobid::int, schedule, command, username, database, active from cron.job where jobname = ${JOB}`;

  it("the migration schedules it every 10 minutes, in this database, as the migrating role", async () => {
    const [owner] = await transaction()<{ me: string }[]>`select current_user as me`;
    expect(await jobs()).toEqual([
      { jobid: expect.any(Number), schedule: "*/10 * * * *", command: COMMAND, username: owner!.me, database: "postgres", active: true },
    ]);
  });

  it("scheduling it again replaces it", async () => {
    const [before] = await jobs();
    const [again] = await transaction()<{ jobid: number }[]>`select core.schedule_job(${JOB}, '*/5 * * * *', 'core.purge_expired_siwe_nonces')::int as jobid`;
    expect(again!.jobid).toBe(before!.jobid);
    expect((await jobs()).map((j) => j.schedule)).toEqual(["*/5 * * * *"]);
  });

  it("its command runs the purge as service_jobs", async () => {
    const [job] = await jobs();
    const results = await transaction().unsafe(job!.command);
    expect(results.at(-1)).toEqual([{ purge_expired_siwe_nonces: expect.any(Number) }]);
    expect(await transaction()`select current_user as me`).toEqual([{ me: "service_jobs" }]);
    await transaction()`reset role`;
  });
});
