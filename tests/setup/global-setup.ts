// Once per `vitest run`: the local cluster is up and a template database is migrated; every test
// file clones it (tests/setup/test-context.ts), so suites run in parallel on databases of their own.
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { enableLocalGatewayLogin, LOCAL_DATABASE_URL, startCluster, withDatabase } from "../../scripts/lib/local-postgres.ts";
import { migrate } from "../../scripts/lib/migrations.ts";
import { loadPlaces } from "../../scripts/lib/places.ts";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
    serverUrl: string;
  }
}


const databaseUrl = (name: string) => withDatabase(process.env.TEST_DATABASE_URL ?? LOCAL_DATABASE_URL, name);

export default async function setup(project: TestProject) {
  if (!process.env.TEST_DATABASE_URL) startCluster();
  const template = `test_template_${process.pid}_${Date.now()}`;
  const admin = postgres(databaseUrl("postgres"), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${template}`);
  // pg_cron lives only in the `postgres` database; the cron tests use that one (tests/setup/cron-database.ts).
  await migrate(databaseUrl(template), { jobsWithoutPgCron: true });
  await enableLocalGatewayLogin(databaseUrl("postgres"));
  await loadPlaces(databaseUrl(template), { ifEmpty: true });
  project.provide("templateDatabase", template);
  project.provide("serverUrl", databaseUrl("postgres"));
  return async () => {
    await admin.unsafe(`drop database if exists ${template} with (force)`);
    await admin.end();
  };
}
