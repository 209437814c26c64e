// The Supabase CLI and the project's migration runner (scripts/lib/migrations.ts) agree on what a
// database holds. On one fresh database the CLI runs what a deployment runs (`db push
// --include-roles`: supabase/roles.sql, which is sql/bootstrap.sql, then every migration); on another
// the runner migrates. Both record the same history, neither finds anything pending on the other's
// database, and both build the same schema.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PG_BIN, withDatabase } from "../../scripts/lib/local-postgres.ts";
import { migrate, migrationFiles } from "../../scripts/lib/migrations.ts";
import { supabaseJson } from "./supabase-cli.ts";

interface DbPushAnswer {
  upToDate: boolean;
  dryRun: boolean;
  migrations: string[];
  roles: string[];
}

interface MigrationListAnswer {
  migrations: Array<{ local: string; remote: string }>;
}

async function serverQuery<T>(run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(inject("serverUrl"), { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end();
  }
}

async function createEmptyDatabase(purpose: string): Promise<string> {
  const name = `supabase_cli_${purpose}_${randomBytes(4).toString("hex")}`;
  await serverQuery((sql) => sql.unsafe(`create database ${name}`));
  // pg_cron lives only in the `postgres` database: these databases say their jobs run elsewhere,
  // for the CLI's connections and the runner's alike.
  await serverQuery((sql) => sql.unsafe(`alter database ${name} set service.jobs_without_pg_cron = on`));
  return name;
}

async function recordedHistory(url: string): Promise<Array<{ version: string; name: string | null }>> {
  const sql = postgres(url, { max: 1 });
  try {
    return [...(await sql<Array<{ version: string; name: string | null }>>`
      select version, name from supabase_migrations.schema_migrations order by version`)];
  } finally {
    await sql.end();
  }
}

/** The whole schema as pg_dump writes it (tables, functions, policies, grants...), without its per-run restrict key. */
function schemaDump(url: string): string {
  return execFileSync(join(PG_BIN, "pg_dump"), ["--schema-only", "--dbname", url], { encoding: "utf8", maxBuffer: 64 << 20 })
    .split("\n")
    .filter((line) => !/^\\(un)?restrict /.test(line))
    .join("\n");
}

const databases: string[] = [];
let cliUrl: string;
let runnerUrl: string;
let cliFirstPush: DbPushAnswer;

beforeAll(async () => {
  databases.push(await createEmptyDatabase("cli"), await createEmptyDatabase("runner"));
  [cliUrl, runnerUrl] = databases.map((name) => withDatabase(inject("serverUrl"), name)) as [string, string];
  cliFirstPush = await supabaseJson<DbPushAnswer>(["db", "push", "--include-roles", "--yes", `--remote=${cliUrl}`]);
  await migrate(runnerUrl);
}, 120_000);

afterAll(async () => {
  await serverQuery(async (sql) => {
    for (const name of databases) await sql.unsafe(`drop database if exists ${name} with (force)`);
  });
});

describe("supabase db push and the project's runner", () => {
  const files = migrationFiles();

  it("the CLI applies the bootstrap as roles.sql, then every migration in order", () => {
    expect(cliFirstPush.roles).toEqual(["supabase/roles.sql"]);
    expect(cliFirstPush.migrations).toEqual(files.map((f) => `${f.version}_${f.name}.sql`));
  });

  it("both record the same versions under the same names", async () => {
    const expected = files.map((f) => ({ version: f.version, name: f.name }));
    expect(await recordedHistory(cliUrl)).toEqual(expected);
    expect(await recordedHistory(runnerUrl)).toEqual(expected);
  });

  it("the runner finds nothing to apply on the CLI's database", async () => {
    expect(await migrate(cliUrl)).toEqual([]);
  });

  it("the CLI finds nothing to push on the runner's database, and lists every migration as applied", async () => {
    const dryRun = await supabaseJson<DbPushAnswer>(["db", "push", "--dry-run", `--remote=${runnerUrl}`]);
    expect(dryRun).toMatchObject({ upToDate: true, migrations: [] });
    const list = await supabaseJson<MigrationListAnswer>(["migration", "list", `--remote=${runnerUrl}`]);
    expect(list.migrations).toEqual(files.map((f) => ({ local: f.version, remote: f.version, time: expect.any(String) })));
  });

  it("both build the same schema", () => {
    expect(schemaDump(cliUrl)).toEqual(schemaDump(runnerUrl));
  });
});
