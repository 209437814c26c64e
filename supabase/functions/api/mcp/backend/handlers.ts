// POST /mcp/backend (also /api/mcp/backend, which is /functions/v1/api/mcp/backend on Supabase's
// path): the MCP endpoint for trusted backends. x-api-key only, with the same keys and permissions
// as REST; each tool calls its REST route in-process as the caller's key. Not in the OpenAPI document
// (it speaks JSON-RPC, not REST); README "MCP endpoints" describes it.
import { requireApiKey } from "../../../_shared/auth/middleware.ts";
import { createRouter } from "../../../_shared/http/app.ts";
import { takeRateLimit } from "../../../_shared/mcp/audit.ts";
import { callRoute, type InProcessApp } from "../../../_shared/mcp/call-route.ts";
import { buildToolServer, type ToolSession } from "../../../_shared/mcp/tools.ts";
import { mcpRequestChecks, serveMcpRequest } from "../../../_shared/mcp/transport.ts";
import { backendImplementations } from "./implementations.ts";
import { backendTools } from "./tools.ts";

export const BACKEND_MCP_PATHS = ["/mcp/backend", "/api/mcp/backend"] as const;

const SERVER_INFO = {
  name: "eventhub-backend",
  version: "3.0.0",
  instructions: "Tools for trusted backends, authenticated by your API key (x-api-key) with its permissions: events, hubs, " +
    "venues, NFT collections, checkout sessions and transaction primitives; list_operations and call_api reach every v3 " +
    "operation. Each tool answers what the REST API answers; errors carry the REST error code. Never expose this endpoint " +
    "or the key to browsers or public assistants.",
};

/**
 * The endpoint's router. `app` is the app it is mounted on: tools call its REST routes in-process.
 * Browsers are refused (any Origin: 403 origin_not_allowed): the endpoint is for servers, and some of
 * its operations (usage/record) must never be reachable from a page.
 */
export function mcpBackendRouter(app: InProcessApp) {
  const router = createRouter();
  const implementations = backendImplementations(app);
  for (const path of BACKEND_MCP_PATHS) {
    router.post(path, mcpRequestChecks([]), requireApiKey, async (c) => {
      const principal = c.get("principal");
      if (principal.kind !== "api_key") throw new Error("requireApiKey let another principal through");
      const db = c.get("db");
      const requestId = c.get("requestId");
      // Per key and minute (mcp.take_rate_limit); this also checks the key in the database.
      await takeRateLimit(db, principal.scope, "backend", c.get("config").MCP_RATE_LIMIT_PER_MINUTE);
      const apiKey = c.req.header("x-api-key")!;
      const origin = c.req.header("origin");
      const session: ToolSession = {
        endpoint: "backend",
        db,
        scope: principal.scope,
        requestId,
        context: { requestId, route: (call) => callRoute(app, { apiKey }, call, { requestId, origin }) },
      };
      return serveMcpRequest(c.req.raw, (calledTool) => buildToolServer(SERVER_INFO, backendTools, implementations, session, calledTool), requestId);
    });
  }
  return router;
}
