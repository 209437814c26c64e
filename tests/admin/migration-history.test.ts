// scripts/lib/migrations.ts's migrate refuses a database whose migration log names migrations that
// are not files of supabase/migrations (the history was rebased once, before the first deployment):
// it applies nothing, so such a database is never half-migrated, and tells the person to run
// `npm run db:reset`.
import postgres from "postgres";
import { afterEach, expect, it } from "vitest";
import { migrate, migrationFiles } from "../../scripts/lib/migrations.ts";
import { cloneTemplateDatabase } from "../setup/test-context.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A migrated database of this test's own, and its owner's connection. */
async function migratedDatabase() {
  const database = await cloneTemplateDatabase();
  cleanups.push(database.drop);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  cleanups.push(() => sql.end());
  const versions = async () =>
    (await sql<{ version: string }[]>`select version from supabase_migrations.schema_migrations order by version`).map((r) => r.version);
  return { url: database.url, sql, versions };
}

it("a database migrated from these files migrates again with nothing to apply", async () => {
  const { url, versions } = await migratedDatabase();
  expect(await versions()).toEqual(migrationFiles().map((f) => f.version));
  expect(await migrate(url)).toEqual([]);
});

it("refuses a database that records a version no file has, and applies nothing", async () => {
  const { url, sql, versions } = await migratedDatabase();
  // As a database migrated before the rebase: its log names a file that is gone...
  await sql`insert into supabase_migrations.schema_migrations (version, name) values ('20261122000100', 'core')`;
  // ...and a file of the new history looks pending, which a runner that went on would apply.
  const newest = migrationFiles().at(-1)!;
  await sql`delete from supabase_migrations.schema_migrations where version = ${newest.version}`;
  const before = await versions();

  const refusal = migrate(url);
  await expect(refusal).rejects.toThrow("records migrations that are not files of supabase/migrations: 20261122000100_core.");
  await expect(refusal).rejects.toThrow("nothing was applied. Run `npm run db:reset`");
  expect(await versions()).toEqual(before);
});

it("refuses a database that recorded a version under another file's name", async () => {
  const { url, sql, versions } = await migratedDatabase();
  const [first] = migrationFiles();
  await sql`update supabase_migrations.schema_migrations set name = 'sponsorship' where version = ${first!.version}`;
  const before = await versions();

  await expect(migrate(url)).rejects.toThrow(`not files of supabase/migrations: ${first!.version}_sponsorship.`);
  expect(await versions()).toEqual(before);
});
