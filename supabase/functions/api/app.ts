import { createBaseApp } from "../_shared/http/app.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { checkoutRouter } from "./checkout/handlers.ts";
import { checkoutPageRouter } from "./checkout-page/handlers.ts";
import { collectionsRouter } from "./collections/handlers.ts";
import { registerDocs } from "./docs/handlers.ts";
import { sponsorshipRouter } from "./sponsorship/handlers.ts";
import { relaysRouter } from "./relays/handlers.ts";
import { eventsRouter } from "./events/handlers.ts";
import { healthRouter } from "./health/handlers.ts";
import { registerMcp } from "./mcp/index.ts";
import { hubsRouter } from "./hubs/handlers.ts";
import { identityRouter } from "./identity/handlers.ts";
import { venuesRouter } from "./venues/handlers.ts";
import { versioningRouter } from "./versioning/handlers.ts";
import { oauthRouter } from "./oauth/handlers.ts";
import { publicMcpRouter } from "./mcp/public/handlers.ts";
import { meGrantsRouter } from "./me-grants/handlers.ts";
import { meAuditRouter } from "./me-audit/handlers.ts";
import { confirmationsRouter } from "./confirmations/handlers.ts";

/** REST v3, auth/session, docs and operations routes. Runs under Deno and, in tests, under Node. */
export function createApiApp(services: AppServices) {
  const app = createBaseApp(services);
  app.route("/", healthRouter);
  app.route("/", versioningRouter);
  app.route("/", identityRouter);
  app.route("/", eventsRouter);
  app.route("/", hubsRouter);
  app.route("/", venuesRouter);
  app.route("/", collectionsRouter);
  app.route("/", checkoutRouter);
  app.route("/", checkoutPageRouter);
  app.route("/", sponsorshipRouter);
  app.route("/", relaysRouter);
  app.route("/", oauthRouter);
  app.route("/", publicMcpRouter);
  app.route("/", confirmationsRouter(app)); // /confirm/{id} pages and the public MCP tools' /mcp/confirmations
  app.route("/", meGrantsRouter);
  app.route("/", meAuditRouter);
  registerMcp(app); // /mcp/backend and GET /api/v3/me/mcp-audit
  if (services.config.ENABLE_BENCH_ROUTES) {
    // The baseline of scripts/bench: one `select 1` through the same pool, nothing else.
    app.get("/bench/select-1", async (c) => c.json(await c.get("db").sql`select 1 as one`));
  }
  registerDocs(app, services.config.PUBLIC_API_ROOT);
  return app;
}
