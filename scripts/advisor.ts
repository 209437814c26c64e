// npm run advisor -- <path to splinter.sql> [--all-schemas] [--details]
//
// Runs Supabase's database linter (splinter, the lints behind Studio's Security and Performance
// Advisors; not committed here: fetch supabase/splinter and pass its splinter.sql). Prints the
// findings counted by level and lint, with --details each one. Exposure is Supabase's default
// (pgrst.db_schemas = 'public, graphql_public'); --all-schemas exposes every schema instead.
//
// Lints the database DATABASE_URL names, as it is (splinter only reads). Without DATABASE_URL: a
// fresh database on the local cluster with every migration applied, dropped afterwards.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import process from "node:process";
import postgres from "postgres";
import { LOCAL_DATABASE_URL, startCluster, withDatabase } from "./lib/local-postgres.ts";
import { migrate } from "./lib/migrations.ts";

const DEFAULT_EXPOSURE = "public, graphql_public";

interface Finding {
  name: string;
  level: string;
  detail: string;
}

async function report(url: string, args: string[], lints: string): Promise<void> {
  const db = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const findings = await db.begin(async (tx) => {
      const [{ exposure }] = args.includes("--all-schemas")
        ? await tx<{ exposure: string }[]>`
            select string_agg(nspname, ', ' order by nspname) as exposure from pg_namespace
            where nspname !~ '^pg_' and nspname not in ('information_schema', 'supabase_migrations')`
        : [{ exposure: DEFAULT_EXPOSURE }];
      await tx`select set_config('pgrst.db_schemas', ${exposure}, true)`;
      await tx`set local search_path = ''`;
      return await tx.unsafe<Finding[]>(lints);
    });
    const counts = new Map<string, number>();
    for (const f of findings) counts.set(`${f.level} ${f.name}`, (counts.get(`${f.level} ${f.name}`) ?? 0) + 1);
    for (const [key, count] of [...counts].sort()) process.stdout.write(`${String(count).padStart(4)} ${key}\n`);
    if (findings.length === 0) process.stdout.write("no findings\n");
    if (args.includes("--details")) {
      for (const f of findings) process.stdout.write(`${f.level} ${f.name}: ${f.detail}\n`);
    }
  } finally {
    await db.end();
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const splinterPath = args.find((a) => !a.startsWith("--"));
  if (!splinterPath) {
    process.stderr.write("usage: npm run advisor -- <path to splinter.sql> [--all-schemas] [--details]\n");
    return 2;
  }
  // splinter.sql is one query with a `set local` before it: run the query alone, inside a transaction.
  const lints = readFileSync(splinterPath, "utf8").replace(/^\s*set local search_path = '';/m, "");

  const target = process.env.DATABASE_URL;
  if (target) {
    await report(target, args, lints);
    return 0;
  }
  startCluster();
  const name = `advisor_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(LOCAL_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  try {
    const url = withDatabase(LOCAL_DATABASE_URL, name);
    await migrate(url, { jobsWithoutPgCron: true });
    await report(url, args, lints);
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`[advisor] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
