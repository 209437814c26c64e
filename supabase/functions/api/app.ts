import { Hono } from "hono";
import { localIssuerOf } from "../_shared/app-auth/sessions.ts";
import { createBaseApp } from "../_shared/http/app.ts";
import { routerOf } from "../_shared/http/endpoint.ts";
import { apiRoutingPath } from "../_shared/http/public-urls.ts";
import type { AppEnv, AppServices } from "../_shared/http/context.ts";
import { checkoutPageRouter } from "./checkout-page/handlers.ts";
import { confirmationsRouter } from "./confirmations/handlers.ts";
import { registerDocs } from "./docs/handlers.ts";
import { localAuthRouter } from "./local-auth/handlers.ts";
import { mcpBackendRouter } from "./mcp/backend/handlers.ts";
import { backendToolsOf } from "./mcp/backend/tools.ts";
import { publicMcpRouter } from "./mcp/public/handlers.ts";
import { oauthRouter } from "./oauth/handlers.ts";
import { endpoints } from "./registry.ts";
import { ticketPageRouter } from "./ticket-page/handlers.ts";
import { versioningRouter } from "./versioning/handlers.ts";

/** The backend MCP endpoint's tools; its call_api runs over the REST registry. */
export const backendTools = backendToolsOf(endpoints);

/** REST v3, auth/session, docs, MCP and page routes. Runs under Deno and, in tests, under Node. */
export function createApiApp(services: AppServices) {
  // One route table for both layouts: on Supabase the function receives /api/<rest> for what the
  // local gateway serves at /<rest> (http/public-urls.ts).
  const app = createBaseApp(services, { routingPath: apiRoutingPath });
  app.route("/", routerOf(endpoints)); // every REST operation (api/registry.ts)
  app.route("/", versioningRouter);
  app.route("/", checkoutPageRouter);
  app.route("/", ticketPageRouter);
  app.route("/", oauthRouter);
  app.route("/", publicMcpRouter);
  app.route("/", confirmationsRouter); // the confirmation links' pages
  app.route("/", mcpBackendRouter(backendTools));
  // Supabase Auth's e-mail code sign-in where no Supabase Auth runs (npm start); off in production unless set.
  // Mounted through a plain Hono so that its routes stay out of the API's document: they have their own (/auth/v1/openapi.json).
  if (localIssuerOf(services.config)) app.route("/", new Hono<AppEnv>().route("/", localAuthRouter));
  if (services.config.ENABLE_BENCH_ROUTES) {
    // The baseline of scripts/bench: one `select 1` through the same pool, nothing else.
    app.get("/bench/select-1", async (c) => c.json(await c.get("db").sql`select 1 as one`));
  }
  registerDocs(app, services.config.PUBLIC_API_ROOT);
  return app;
}
