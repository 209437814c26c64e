// POST /mcp/backend (also /api/mcp/backend, which is /functions/v1/api/mcp/backend on Supabase, like
// every surface of the api function): the MCP endpoint for trusted backends. x-api-key only, with the
// same keys and permissions as REST; each tool runs its operation as the key's owner. A client may
// choose toolsets and read-only mode (_shared/mcp/toolsets.ts) by header or by path:
// /mcp/backend/x/<toolsets>, /mcp/backend/readonly, /mcp/backend/x/<toolsets>/readonly. Not in the
// OpenAPI document (it speaks JSON-RPC, not REST); docs/mcp-clients.md says how to connect.
import { requireApiKey } from "../../../_shared/auth/middleware.ts";
import { createRouter } from "../../../_shared/http/app.ts";
import { takeRateLimit } from "../../../_shared/mcp/audit.ts";
import { McpCall } from "../../../_shared/mcp/call.ts";
import { buildToolServer, runsInCallTransaction } from "../../../_shared/mcp/tools.ts";
import { selectionOf, selectTools, toolsetsOf, whyNotSelected } from "../../../_shared/mcp/toolsets.ts";
import { mcpRequestChecks, readMcpRequest, serveMcpRequest } from "../../../_shared/mcp/transport.ts";
import { contextFor } from "../../../_shared/operations/operation.ts";
import type { BackendTools } from "./tools.ts";

const serverInfo = (backendTools: BackendTools) => ({
  name: "eventhub-backend",
  version: "3.0.0",
  instructions: "Tools for trusted backends, authenticated by your API key (x-api-key) with its permissions: events, hubs, " +
    "venues, reservations and check-in, NFT collections, checkout sessions and transaction primitives; list_operations and call_api reach every v3 " +
    "operation. Each tool answers what the REST API answers; errors carry the REST error code. Never expose this endpoint " +
    "or the key to browsers or public assistants. Choose toolsets with the X-MCP-Toolsets header (comma-separated) or the " +
    `path /mcp/backend/x/<toolsets>: ${toolsetsOf(backendTools).join(", ")}. Read-only mode (tools that change nothing; ` +
    "call_api runs GET operations only): X-MCP-Readonly: true, or the path /mcp/backend/readonly or /mcp/backend/x/<toolsets>/readonly.",
});

/**
 * The endpoint's router, serving `backendTools`. Browsers are refused (any Origin: 403 origin_not_allowed): the endpoint is
 * for servers, and some of its operations (usage/record) must never be reachable from a page.
 * The client's choice of tools is read first (an unknown toolset: 400). Every request then takes
 * the key's per-minute rate limit in a statement of its own (core.mcp_take_rate_limit): the count is
 * exact under the counter row's lock, which a statement of its own holds only while it commits. A tools/call then runs in one transaction: the key's scope,
 * the operation and the record of the call.
 */
export function mcpBackendRouter(backendTools: BackendTools) {
  const info = serverInfo(backendTools);
  const router = createRouter();
  for (const path of ["/mcp/backend", "/mcp/backend/readonly", "/mcp/backend/x/:toolsets", "/mcp/backend/x/:toolsets/readonly"]) {
    router.post(path, mcpRequestChecks([]), requireApiKey, async (c) => {
      const principal = c.get("principal");
      if (principal.kind !== "api_key") throw new Error("requireApiKey let another principal through");
      const selection = selectionOf(backendTools, {
        header: (name) => c.req.header(name),
        pathToolsets: c.req.param("toolsets"),
        pathReadOnly: path.endsWith("/readonly"),
      });
      const tools = selectTools(backendTools, selection);
      const { scope } = principal;
      const db = c.get("db");
      const config = c.get("config");
      const limit = config.MCP_RATE_LIMIT_PER_MINUTE;
      const mcp = await readMcpRequest(c.req.raw);
      if (mcp instanceof Response) return mcp;
      await takeRateLimit(db, scope, "backend", limit);
      const call = mcp.calledTool !== undefined && runsInCallTransaction(tools[mcp.calledTool as keyof typeof tools], mcp.calledArguments)
        ? new McpCall(() => db.open(scope))
        : undefined;
      const session = { endpoint: "backend" as const, context: contextFor({ db, config }, principal, c.get("requestId")), scope, call };
      const notSelected = (name: string) => whyNotSelected(backendTools, selection, name);
      const response = await serveMcpRequest(mcp, () => buildToolServer(info, tools, session, notSelected), c.get("requestId"));
      return call ? call.settle(response) : response;
    });
  }
  return router;
}
