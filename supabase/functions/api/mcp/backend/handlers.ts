// POST /mcp/backend (also /api/mcp/backend, which is /functions/v1/api/mcp/backend on Supabase, like
// every surface of the api function): the MCP endpoint for trusted backends. x-api-key only, with the
// same keys and permissions as REST; each tool runs its operation as the key's owner. Not in the OpenAPI document (it speaks
// JSON-RPC, not REST); README "MCP endpoints" describes it.
import { requireApiKey } from "../../../_shared/auth/middleware.ts";
import { createRouter } from "../../../_shared/http/app.ts";
import { takeRateLimit } from "../../../_shared/mcp/audit.ts";
import { McpCall } from "../../../_shared/mcp/call.ts";
import { buildToolServer, runsInCallTransaction } from "../../../_shared/mcp/tools.ts";
import { mcpRequestChecks, readMcpRequest, serveMcpRequest } from "../../../_shared/mcp/transport.ts";
import { contextFor } from "../../../_shared/operations/operation.ts";
import { backendTools } from "./tools.ts";

const SERVER_INFO = {
  name: "eventhub-backend",
  version: "3.0.0",
  instructions: "Tools for trusted backends, authenticated by your API key (x-api-key) with its permissions: events, hubs, " +
    "venues, reservations and check-in, NFT collections, checkout sessions and transaction primitives; list_operations and call_api reach every v3 " +
    "operation. Each tool answers what the REST API answers; errors carry the REST error code. Never expose this endpoint " +
    "or the key to browsers or public assistants.",
};

/**
 * The endpoint's router. Browsers are refused (any Origin: 403 origin_not_allowed): the endpoint is
 * for servers, and some of its operations (usage/record) must never be reachable from a page.
 * Every request first takes the key's per-minute rate limit in a statement of its own
 * (core.mcp_take_rate_limit): the count is exact under the counter row's lock, which a statement of
 * its own holds only while it commits. A tools/call then runs in one transaction: the key's scope,
 * the operation and the record of the call.
 */
export const mcpBackendRouter = createRouter().post("/mcp/backend", mcpRequestChecks([]), requireApiKey, async (c) => {
  const principal = c.get("principal");
  if (principal.kind !== "api_key") throw new Error("requireApiKey let another principal through");
  const { scope } = principal;
  const db = c.get("db");
  const config = c.get("config");
  const limit = config.MCP_RATE_LIMIT_PER_MINUTE;
  const mcp = await readMcpRequest(c.req.raw);
  if (mcp instanceof Response) return mcp;
  await takeRateLimit(db, scope, "backend", limit);
  const call = mcp.calledTool !== undefined && runsInCallTransaction(backendTools[mcp.calledTool as keyof typeof backendTools], mcp.calledArguments)
    ? new McpCall(() => db.open(scope))
    : undefined;
  const session = { endpoint: "backend" as const, context: contextFor({ db, config }, principal, c.get("requestId")), scope, call };
  const response = await serveMcpRequest(mcp, () => buildToolServer(SERVER_INFO, backendTools, session), c.get("requestId"));
  return call ? call.settle(response) : response;
});
