// The public MCP endpoint (`POST /mcp`): OAuth 2.1 access tokens only (requireMcpAccessToken, which
// also checks revocation and takes the per-grant rate limit), tools filtered by the grant's scopes.
// A call of a tool the grant does not cover is refused before the MCP layer with 403
// insufficient_scope naming every scope the tool needs, so the client can ask the person for more
// (RFC 6750 3.1), and recorded like every call. A tools/call runs in one transaction as the
// person: the operation and the record of the call commit together. A new server per request. Not
// in the OpenAPI document (JSON-RPC).
import { insufficientScope, requireMcpAccessToken } from "../../../_shared/auth/mcp-oauth.ts";
import { scopeOf } from "../../../_shared/auth/principal.ts";
import type { Config } from "../../../_shared/config.ts";
import { createRouter } from "../../../_shared/http/app.ts";
import { ApiError } from "../../../_shared/http/errors.ts";
import { McpCall } from "../../../_shared/mcp/call.ts";
import { auditRefusedCall, runsInCallTransaction, type ToolSession } from "../../../_shared/mcp/tools.ts";
import { calledToolOf, mcpRequestChecks, readMcpRequest, serveMcpRequest } from "../../../_shared/mcp/transport.ts";
import { contextFor } from "../../../_shared/operations/operation.ts";
import { allowsTool, isPublicTool, PUBLIC_TOOL_SCOPES, publicToolServer, publicTools, scopeRuleText } from "../../../_shared/mcp/public-server.ts";

/**
 * Refuses the request when a JSON-RPC tools/call message in it names a tool the grant does not
 * cover, after recording the refused call.
 */
async function refuseMissingScopes(config: Config, session: ToolSession, granted: readonly string[], message: unknown): Promise<void> {
  for (const item of Array.isArray(message) ? message : [message]) {
    const name = calledToolOf(item);
    if (name === undefined || !isPublicTool(name) || allowsTool(name, granted)) continue;
    await auditRefusedCall(session, name, (item as { params?: { arguments?: unknown } }).params?.arguments, "insufficient_scope", 403);
    throw insufficientScope(config, PUBLIC_TOOL_SCOPES[name], scopeRuleText(name));
  }
}

export const publicMcpRouter = createRouter();
publicMcpRouter.post("/mcp", async (c, next) => {
  // Browsers only from an exact allowed origin (CORS_ALLOWED_ORIGINS; "*" allows none here).
  return mcpRequestChecks(c.get("config").CORS_ALLOWED_ORIGINS.filter((o) => o !== "*"))(c, next);
}, requireMcpAccessToken, async (c) => {
  const principal = c.get("principal");
  if (principal.kind !== "oauth") throw new ApiError(401, "missing_access_token", "Send an OAuth access token.");
  const config = c.get("config");
  const db = c.get("db");
  const mcp = await readMcpRequest(c.req.raw);
  if (mcp instanceof Response) return mcp;
  const scope = scopeOf(principal);
  const called = mcp.calledTool !== undefined && isPublicTool(mcp.calledTool) ? publicTools[mcp.calledTool] : undefined;
  const call = runsInCallTransaction(called, mcp.calledArguments) ? new McpCall(() => db.open(scope)) : undefined;
  const session: ToolSession = {
    endpoint: "public",
    context: contextFor({ db, config }, principal, c.get("requestId"), scope),
    scope,
    call,
    oauth: { clientId: principal.clientId, grantId: principal.grantId, scopes: principal.scopes },
  };
  if (mcp.parsedBody !== undefined) await refuseMissingScopes(config, session, principal.scopes, mcp.parsedBody);
  const response = await serveMcpRequest(mcp, () => publicToolServer(session, principal.scopes), c.get("requestId"));
  return call ? call.settle(response) : response;
});
