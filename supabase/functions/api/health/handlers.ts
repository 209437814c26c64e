import type { RouteHandler } from "@hono/zod-openapi";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { REQUIRED_SCHEMA_VERSION } from "../../_shared/db/schema-version.ts";
import * as routes from "./routes.ts";

export const health: RouteHandler<typeof routes.health, AppEnv> = (c) => c.json({ status: "ok" as const }, 200);

export const ready: RouteHandler<typeof routes.ready, AppEnv> = async (c) => {
  const rows = await c.get("db").sql<{ version: string | null }[]>`
    select max(version) as version from supabase_migrations.schema_migrations`.catch(() => {
    throw new ApiError(503, "database_unreachable", "The database does not answer.");
  });
  const version = rows[0]?.version ?? "";
  if (version < REQUIRED_SCHEMA_VERSION) {
    throw new ApiError(503, "migrations_pending", `The database schema is at ${version || "nothing"}; this code needs ${REQUIRED_SCHEMA_VERSION}.`);
  }
  return c.json({ status: "ready" as const, schemaVersion: version }, 200);
};

export const healthRouter = createRouter()
  .openapi(routes.health, health)
  .openapi(routes.ready, ready);
