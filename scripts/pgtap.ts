// npm run test:db [-- <file or folder under tests/db> ...]
//
// Runs the pgTAP suite: a fresh database of its own (migrations applied, pgTAP and the helpers in
// sql/pgtap loaded), pg_prove over every tests/db/**/*.test.sql in sorted order, then the database
// is dropped, also when something fails. Exits with pg_prove's exit code.
//
// With TEST_DATABASE_URL or DATABASE_URL set, the database is created on that server instead of
// the local cluster, which is then neither started nor touched.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import process from "node:process";
import postgres from "postgres";
import { LOCAL_DATABASE_URL, REPO_ROOT, startCluster, withDatabase } from "./lib/local-postgres.ts";
import { migrate } from "./lib/migrations.ts";

const TESTS_DIR = join(REPO_ROOT, "tests", "db");
const HELPERS = join(REPO_ROOT, "sql", "pgtap", "helpers.sql");
const PG_PROVE = "/usr/bin/pg_prove";

function log(message: string) {
  process.stderr.write(`[pgtap] ${message}\n`);
}

/** Every *.test.sql below `dir`, as paths relative to the repository, sorted. */
function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return dir.endsWith(".test.sql") ? [relative(REPO_ROOT, dir)] : [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (entry.isFile() && entry.name.endsWith(".test.sql")) found.push(relative(REPO_ROOT, path));
  }
  return found.sort();
}

/** libpq environment for a postgres:// URL, so the password never shows in a process list. */
function libpqEnvironment(url: string): Record<string, string> {
  const u = new URL(url);
  const env: Record<string, string> = {
    PGHOST: u.hostname.replace(/^\[(.*)\]$/, "$1"),
    PGPORT: u.port || "5432",
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)),
  };
  if (u.username) env.PGUSER = decodeURIComponent(u.username);
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  const sslmode = u.searchParams.get("sslmode");
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
}

function runPgProve(files: string[], env: Record<string, string>): Promise<number> {
  // --ext: pg_prove only hands files with its extension (default .pg) to psql.
  // --failures/--comments: show which assertions failed and pgTAP's diagnostics for them.
  const args = ["--ext", ".sql", "--failures", "--comments", ...files];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(PG_PROVE, args, { cwd: REPO_ROOT, stdio: "inherit", env: { ...process.env, ...env } });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const requested = process.argv.slice(2);
  const files = requested.length === 0
    ? testFiles(TESTS_DIR)
    : [...new Set(requested.flatMap((p) => testFiles(resolve(p))))].sort();
  if (files.length === 0) {
    log(`no *.test.sql files found in ${requested.length ? requested.join(" ") : relative(REPO_ROOT, TESTS_DIR)}`);
    return 1;
  }

  const external = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!external) startCluster();
  const serverUrl = external ?? LOCAL_DATABASE_URL;
  const name = `pgtap_${process.pid}_${randomBytes(4).toString("hex")}`;
  const databaseUrl = withDatabase(serverUrl, name);

  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  let created = false;
  const dropDatabase = async () => {
    if (!created) return;
    created = false;
    await admin.unsafe(`drop database if exists ${name} with (force)`);
  };
  // Ctrl-C or a killed job must not leave the database behind.
  const onSignal = (signal: "SIGINT" | "SIGTERM") => {
    log(`${signal}: dropping ${name}`);
    dropDatabase().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));

  try {
    await admin.unsafe(`create database ${name}`);
    created = true;
    log(`database ${name}`);
    // Plain PostgreSQL: no pg_cron here; the tests call each job's function themselves.
    await migrate(databaseUrl, { jobsWithoutPgCron: true });

    const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await db.unsafe("create extension if not exists pgtap with schema extensions");
      // Supabase's search_path, so tests call plan(), is() ... without a schema.
      await db.unsafe(`alter database ${name} set search_path = "$user", public, extensions`);
      await db.unsafe(readFileSync(HELPERS, "utf8"));
    } finally {
      await db.end();
    }

    log(`pg_prove over ${files.length} file(s)`);
    return await runPgProve(files, libpqEnvironment(databaseUrl));
  } finally {
    try {
      await dropDatabase();
    } finally {
      await admin.end();
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
