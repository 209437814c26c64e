import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationFiles } from "../../scripts/lib/migrations.ts";
import { REQUIRED_SCHEMA_VERSION } from "../../supabase/functions/_shared/db/schema-version.ts";
import { createTestContext, expectErrorBody, type TestContext, PRODUCTION_REQUIREMENTS } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe("health and readiness", () => {
  it("the code requires the newest migration", () => {
    expect(REQUIRED_SCHEMA_VERSION).toBe(migrationFiles().at(-1)!.version);
  });

  it("/health answers without the database", async () => {
    expect(await (await t.call("/health")).json()).toEqual({ status: "ok" });
  });

  it("/ready is ready on a migrated database and 503 when a migration is missing", async () => {
    const ok = await t.call("/ready");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: "ready", schemaVersion: REQUIRED_SCHEMA_VERSION });

    await t.owner`delete from supabase_migrations.schema_migrations where version = ${REQUIRED_SCHEMA_VERSION}`;
    await expectErrorBody(await t.call("/ready"), 503, "migrations_pending");
  });

  it("/ready refuses, in production, a connection that could bypass RLS", async () => {
    const productionEnv = { APP_ENV: "production", ...PRODUCTION_REQUIREMENTS };
    const asOwner = await createTestContext({ ...productionEnv, GATEWAY_DATABASE_URL: t.url });
    try {
      await expectErrorBody(await asOwner.call("/ready"), 503, "unsafe_database_role");
    } finally {
      await asOwner.close();
    }
    const production = await createTestContext(productionEnv);
    try {
      expect((await production.call("/ready")).status).toBe(200); // as api_gateway
    } finally {
      await production.close();
    }
  });
});
