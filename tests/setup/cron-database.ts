// pg_cron exists only in the database cron.database_name names: the test server's `postgres`
// database (the one `npm start` uses), never in the test databases. That database is shared, so a
// cron test works in one transaction that it rolls back: it bootstraps the database and applies the
// migrations it lacks up to the one that schedules its jobs (on a new cluster, all of them: the
// bootstrap creates pg_cron there), and leaves no job and no object behind (only pg_cron's job id
// sequence moves on). Where the server does not preload pg_cron, `preloaded` is false and the
// test skips itself.
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { bootstrap, migrationFiles } from "../../scripts/lib/migrations.ts";

/** The test server's pg_cron database, closed after the file; `preloaded`: whether pg_cron runs there. */
export async function cronDatabase(): Promise<{ server: postgres.Sql; preloaded: boolean }> {
  const server = postgres(inject("serverUrl"), { max: 1, onnotice: () => {} });
  afterAll(() => server.end());
  const [row] = await server<{ preloaded: boolean }[]>`
    select current_setting('shared_preload_libraries') like '%pg_cron%'
       and current_database() = coalesce(current_setting('cron.database_name', true), 'postgres') as preloaded`;
  return { server, preloaded: row!.preloaded };
}

/**
 * Inside a describe: a connection holding a transaction, rolled back after the describe, in which the
 * database has every migration up to `schedulingMigration` (later ones are not the test's subject).
 */
export function migratedTransaction(server: postgres.Sql, schedulingMigration: string): () => postgres.ReservedSql {
  let tx: postgres.ReservedSql | undefined;
  beforeAll(async () => {
    tx = await server.reserve();
    await tx`begin`;
    // Serialised with `npm start` and db:migrate, which hold this lock while they migrate.
    await tx`select pg_advisory_xact_lock(hashtext('supabase_migrations'))`;
    await bootstrap(tx);
    const applied = new Set((await tx<{ version: string }[]>`select version from supabase_migrations.schema_migrations`).map((r) => r.version));
    for (const file of migrationFiles()) {
      if (!applied.has(file.version) && file.version <= schedulingMigration) await tx.unsafe(readFileSync(file.path, "utf8"));
    }
  });
  afterAll(async () => {
    if (!tx) return;
    await tx`rollback`;
    tx.release();
  });
  return () => tx!;
}
