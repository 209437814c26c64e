// The MCP purge jobs (20261123001300_mcp.sql, 20261123001400_mcp_oauth.sql and
// 20261123001500_mcp_confirmations.sql schedule one each) as pg_cron holds them, in the test
// server's pg_cron database, inside one transaction that is rolled back
// (tests/setup/cron-database.ts): reads the three jobs and runs their commands. pgTAP covers the
// functions (tests/db/mcp, tests/db/mcp_oauth, tests/db/mcp_confirmations).
import { describe, expect, it } from "vitest";
import { cronDatabase, migratedTransaction } from "../setup/cron-database.ts";

// The last of the three migrations that schedule them.
const SCHEDULING_MIGRATION = "20261123001500";
const JOBS = [
  { name: "purge_expired_mcp_oauth_rows", schedule: "23 * * * *", fn: "mcp_oauth.purge_expired_rows", column: "purge_expired_rows" },
  { name: "purge_finished_mcp_confirmations", schedule: "37 3 * * *", fn: "mcp_confirmations.purge_finished", column: "purge_finished" },
  { name: "purge_old_mcp_tool_calls", schedule: "47 3 * * *", fn: "mcp.purge_tool_calls", column: "purge_tool_calls" },
];

const { server, preloaded } = await cronDatabase();

describe.skipIf(!preloaded)("the MCP purge jobs in the database that has pg_cron", () => {
  const transaction = migratedTransaction(server, SCHEDULING_MIGRATION);

  const job = async (name: string) => transaction()<{ schedule: string; command: string; username: string; database: string; active: boolean }[]>`
    select schedule, command, username, database, active from cron.job where jobname = ${name}`;

  it("the migration schedules the three jobs in this database, as the migrating role", async () => {
    const [owner] = await transaction()<{ me: string }[]>`select current_user as me`;
    for (const { name, schedule, fn } of JOBS) {
      expect(await job(name), name).toEqual([
        { schedule, command: `set role service_jobs; select ${fn}()`, username: owner!.me, database: "postgres", active: true },
      ]);
    }
  });

  it("each command runs its purge as service_jobs", async () => {
    for (const { name, column } of JOBS) {
      const [scheduled] = await job(name);
      const results = await transaction().unsafe(scheduled!.command);
      expect(results.at(-1), name).toEqual([{ [column]: expect.any(Number) }]);
      expect(await transaction()`select current_user as me`).toEqual([{ me: "service_jobs" }]);
      await transaction()`reset role`;
    }
  });
});
