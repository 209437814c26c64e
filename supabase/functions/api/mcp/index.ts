import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../_shared/http/context.ts";
import { mcpBackendRouter } from "./backend/handlers.ts";

/** The MCP routes of the api app: the backend MCP endpoint and the audit read (GET /api/v3/me/mcp-audit). */
export function registerMcp(app: OpenAPIHono<AppEnv>) {
  app.route("/", mcpBackendRouter(app));
}
