// Applies sql/bootstrap.sql, then supabase/migrations in order, recording each in
// supabase_migrations.schema_migrations as the Supabase CLI does. A database whose log names
// migrations that are no longer files (a history rewritten under it) is refused, never patched.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { REPO_ROOT } from "./local-postgres.ts";

export const MIGRATIONS_DIR = join(REPO_ROOT, "supabase", "migrations");

export interface MigrationFile {
  version: string;
  name: string;
  path: string;
}

export function migrationFiles(): MigrationFile[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{14}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => {
      const [, version = "", name = ""] = /^(\d{14})_(.+)\.sql$/.exec(f) ?? [];
      return { version, name, path: join(MIGRATIONS_DIR, f) };
    });
}

/** The Supabase-compatibility bootstrap and the migration log, both idempotent. */
export async function bootstrap(sql: postgres.Sql | postgres.ReservedSql): Promise<void> {
  await sql.unsafe(readFileSync(join(REPO_ROOT, "sql", "bootstrap.sql"), "utf8"));
  await sql.unsafe(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text primary key, statements text[], name text
    );`);
}

/** A recorded migration: its version and the name it was applied under (null if none was kept). */
export interface AppliedMigration {
  version: string;
  name: string | null;
}

/**
 * Recorded migrations that are not files of supabase/migrations: a version with no file, or a
 * version whose file now has another name. Applying the files that are missing on top of such a
 * database would mix two histories.
 */
export function migrationsWithoutFiles(applied: AppliedMigration[], files: MigrationFile[] = migrationFiles()): AppliedMigration[] {
  const nameOf = new Map(files.map((f) => [f.version, f.name]));
  return applied
    .filter((m) => !nameOf.has(m.version) || (m.name !== null && m.name !== nameOf.get(m.version)))
    .sort((a, b) => a.version.localeCompare(b.version));
}

export interface MigrateOptions {
  seed?: boolean;
  /**
   * The database has no pg_cron and its jobs run elsewhere (test and bench databases: pg_cron lives
   * only in the database cron.database_name names). Otherwise a migration that schedules a job fails
   * where pg_cron is missing, saying how to enable it (migration 20261128000500_require_pg_cron.sql).
   */
  jobsWithoutPgCron?: boolean;
}

/** Applies what is missing; returns the versions applied by this call. */
export async function migrate(databaseUrl: string, options: MigrateOptions = {}): Promise<string[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    if (options.jobsWithoutPgCron) await sql`set service.jobs_without_pg_cron = on`;
    await bootstrap(sql);
    // One migrator at a time: two `npm start`s racing must not apply a migration twice.
    await sql`select pg_advisory_lock(hashtext('supabase_migrations'))`;
    const recorded = await sql<AppliedMigration[]>`select version, name from supabase_migrations.schema_migrations`;
    const unknown = migrationsWithoutFiles(recorded);
    if (unknown.length > 0) {
      // Closing the connection (finally) releases the lock.
      throw new Error(
        `this database records migrations that are not files of supabase/migrations: ` +
          `${unknown.map((m) => (m.name ? `${m.version}_${m.name}` : m.version)).join(", ")}. ` +
          `Its history is not this checkout's (the history was rebased once, before the first deployment), ` +
          `so nothing was applied. Run \`npm run db:reset\` to rebuild the local database from the current ` +
          `migrations (its data is lost); any other database must be recreated and migrated again.`,
      );
    }
    const applied = new Set(recorded.map((r) => r.version));
    const done: string[] = [];
    for (const file of migrationFiles()) {
      if (applied.has(file.version)) continue;
      const text = readFileSync(file.path, "utf8");
      await sql.begin(async (tx) => {
        await tx.unsafe(text);
        await tx`insert into supabase_migrations.schema_migrations (version, statements, name)
                 values (${file.version}, ${[text]}, ${file.name})`;
      });
      done.push(file.version);
    }
    if (options.seed) await sql.unsafe(readFileSync(join(REPO_ROOT, "supabase", "seed.sql"), "utf8"));
    await sql`select pg_advisory_unlock(hashtext('supabase_migrations'))`;
    return done;
  } finally {
    await sql.end();
  }
}
