// Liveness and readiness, for load balancers and deploy checks: public, no credential. Readiness
// asks the database on the pool itself (no role, no claims): whether it answers, whether the login
// could bypass RLS, and whether every migration this code needs is applied.
import { databaseUnavailable } from "../db/availability.ts";
import { REQUIRED_SCHEMA_VERSION } from "../db/schema-version.ts";
import { ApiError } from "../http/errors.ts";
import { ok, operation } from "../operations/operation.ts";

export const health = operation({
  name: "health.live",
  async run() {
    return ok({ status: "ok" as const });
  },
});

export const readiness = operation({
  name: "health.ready",
  ownTransactions: true,
  async run({ database, config }) {
    const rows = await database.query((sql) =>
      sql<{ version: string | null; bypasses_rls: boolean }[]>`
        select max(version) as version,
          (select rolsuper or rolbypassrls from pg_roles where rolname = current_user) as bypasses_rls
        from supabase_migrations.schema_migrations`
    ).catch(() => {
      throw databaseUnavailable();
    });
    // RLS is the access rule only if the service cannot bypass it: production refuses such a login.
    if (rows[0]?.bypasses_rls && config.APP_ENV === "production") {
      throw new ApiError(503, "unsafe_database_role", "The service is connected as a role that bypasses RLS; connect as api_gateway (GATEWAY_DATABASE_URL).");
    }
    const version = rows[0]?.version ?? "";
    if (version < REQUIRED_SCHEMA_VERSION) {
      throw new ApiError(503, "migrations_pending", `The database schema is at ${version || "nothing"}; this code needs ${REQUIRED_SCHEMA_VERSION}.`);
    }
    return ok({ status: "ready" as const, schemaVersion: version });
  },
});
