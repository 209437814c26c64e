import type { RouteHandler } from "@hono/zod-openapi";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { REQUIRED_SCHEMA_VERSION } from "../../_shared/db/schema-version.ts";
import * as routes from "./routes.ts";

export const health: RouteHandler<typeof routes.health, AppEnv> = (c) => c.json({ status: "ok" as const }, 200);

export const ready: RouteHandler<typeof routes.ready, AppEnv> = async (c) => {
  const rows = await c.get("db").sql<{ version: string | null; bypasses_rls: boolean }[]>`
    select max(version) as version,
      (select rolsuper or rolbypassrls from pg_roles where rolname = current_user) as bypasses_rls
    from supabase_migrations.schema_migrations`.catch(() => {
    throw new ApiError(503, "database_unreachable", "The database does not answer.");
  });
  // RLS is the access rule only if the service cannot bypass it: production refuses such a login.
  if (rows[0]?.bypasses_rls && c.get("config").APP_ENV === "production") {
    throw new ApiError(503, "unsafe_database_role", "The service is connected as a role that bypasses RLS; connect as api_gateway (GATEWAY_DATABASE_URL).");
  }
  const version = rows[0]?.version ?? "";
  if (version < REQUIRED_SCHEMA_VERSION) {
    throw new ApiError(503, "migrations_pending", `The database schema is at ${version || "nothing"}; this code needs ${REQUIRED_SCHEMA_VERSION}.`);
  }
  return c.json({ status: "ready" as const, schemaVersion: version }, 200);
};

export const healthRouter = createRouter()
  .openapi(routes.health, health)
  .openapi(routes.ready, ready);
