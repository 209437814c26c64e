// supabase/schemas/ (the schema as it is now, which people read and edit) and supabase/migrations/
// (the history a database is built by) describe the same database. Each builds one, on the same
// bootstrap, in a throwaway cluster that preloads pg_cron (the jobs are part of the schema, and
// pg_cron runs only in the `postgres` database of a cluster): the schema dumps and the jobs must be
// equal, so a change made in one place only fails here, with the objects that differ.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/gateway-process.ts";
import { type Cluster, destroyCluster, PG_BIN, REPO_ROOT, startCluster } from "../../scripts/lib/local-postgres.ts";
import { bootstrap, migrate } from "../../scripts/lib/migrations.ts";

const SCHEMAS_DIR = join(REPO_ROOT, "supabase", "schemas");

interface Built {
  /** pg_dump's entries by their header (name, type, schema, owner): order and SET lines left out. */
  dump: Record<string, string>;
  jobs: Array<{ jobname: string; schedule: string; command: string }>;
}

function schemaDump(url: string): Record<string, string> {
  const text = execFileSync(join(PG_BIN, "pg_dump"), ["--schema-only", "--dbname", url], { encoding: "utf8", maxBuffer: 64 << 20 });
  const entries: Record<string, string> = {};
  // Every object is introduced by a "-- Name: ...; Type: ...; Schema: ...; Owner: ..." block.
  const parts = text.split(/\n--\n-- (Name: .*)\n--\n/);
  for (let i = 1; i < parts.length; i += 2) {
    let name = parts[i]!;
    while (name in entries) name += " (again)";
    entries[name] = parts[i + 1]!
      .split("\n")
      // Not the per-run restrict key, nor the session settings pg_dump writes wherever they change.
      .filter((line) => !/^\\(un)?restrict |^SET \w+ = |^-- PostgreSQL database dump complete$|^--$/.test(line))
      .join("\n")
      .trim();
  }
  return entries;
}

async function build(cluster: Cluster, apply: (url: string) => Promise<void>): Promise<Built> {
  startCluster(cluster);
  const url = `postgres://postgres:postgres@127.0.0.1:${cluster.port}/postgres`;
  await apply(url);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const jobs = await sql<Built["jobs"]>`select jobname, schedule, command from cron.job order by jobname`;
    return { dump: schemaDump(url), jobs: [...jobs] };
  } finally {
    await sql.end();
  }
}

async function applySchemaFiles(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await bootstrap(sql);
    for (const file of readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith(".sql")).sort()) {
      await sql.unsafe(readFileSync(join(SCHEMAS_DIR, file), "utf8"));
    }
  } finally {
    await sql.end();
  }
}

const clusters: Cluster[] = [];
let fromMigrations: Built;
let fromSchemas: Built;

beforeAll(async () => {
  for (let i = 0; i < 2; i++) clusters.push({ dir: mkdtempSync("/var/tmp/events-service-schemas-"), port: await freePort() });
  const [migrationsCluster, schemasCluster] = clusters as [Cluster, Cluster];
  fromMigrations = await build(migrationsCluster, async (url) => void (await migrate(url)));
  fromSchemas = await build(schemasCluster, applySchemaFiles);
}, 120_000);

afterAll(() => {
  for (const cluster of clusters) destroyCluster(cluster);
});

describe("supabase/schemas and supabase/migrations", () => {
  it("build the same tables, functions, policies and grants", () => {
    expect(Object.keys(fromMigrations.dump).length).toBeGreaterThan(100);
    const names = new Set([...Object.keys(fromMigrations.dump), ...Object.keys(fromSchemas.dump)]);
    const differing = [...names].filter((name) => fromSchemas.dump[name] !== fromMigrations.dump[name]).sort();
    expect.soft(differing, "the objects that differ").toEqual([]);
    expect(fromSchemas.dump).toEqual(fromMigrations.dump);
  });

  it("schedule the same pg_cron jobs", () => {
    expect(fromMigrations.jobs.length).toBeGreaterThan(0);
    expect(fromSchemas.jobs).toEqual(fromMigrations.jobs);
  });
});
