// The public MCP endpoint (`POST /mcp`): OAuth 2.1 access tokens only (requireMcpAccessToken, which
// also checks revocation and takes the per-grant rate limit), tools filtered by the grant's scopes.
// A call of a tool the grant does not cover is refused before the MCP layer with 403
// insufficient_scope naming every scope the tool needs, so the client can ask the person for more
// (RFC 6750 3.1). Tools run through the MCP core (buildToolServer: audited, REST routes in-process
// as the person); a new server per request. Not in the OpenAPI document (JSON-RPC, not REST).
import { insufficientScope, requireMcpAccessToken } from "../../../_shared/auth/mcp-oauth.ts";
import { scopeOf } from "../../../_shared/auth/principal.ts";
import type { Config } from "../../../_shared/config.ts";
import { createRouter } from "../../../_shared/http/app.ts";
import { ApiError } from "../../../_shared/http/errors.ts";
import { callRoute, type InProcessApp } from "../../../_shared/mcp/call-route.ts";
import { buildToolServer, type ToolSession } from "../../../_shared/mcp/tools.ts";
import { calledToolOf, mcpRequestChecks, serveMcpRequest } from "../../../_shared/mcp/transport.ts";
import { allowsTool, isPublicTool, PUBLIC_TOOL_SCOPES, publicImplementations, scopeRuleText, toolsFor } from "./tools.ts";

const SERVER_INFO = {
  name: "eventhub-public",
  version: "3.0.0",
  instructions: "Tools for assistants acting for a person who signed in with their e-mail and chose what to allow: events, " +
    "hubs and venues they may see, their checkouts, sponsor wallets and wallets. Linking a wallet or changing sponsorship settings " +
    "is never done by a tool: request_* tools return a single-use link the person approves with their wallet in a browser " +
    "(poll get_confirmation_status). Which tools are listed depends on the scopes they granted; a tool outside them answers " +
    "HTTP 403 insufficient_scope naming the scopes to ask for.",
};

/** Refuses the request when a JSON-RPC tools/call message in it names a tool the grant does not cover. */
function refuseMissingScopes(config: Config, granted: readonly string[], message: unknown): void {
  for (const item of Array.isArray(message) ? message : [message]) {
    const name = calledToolOf(item);
    if (name === undefined || !isPublicTool(name)) continue;
    if (!allowsTool(name, granted)) throw insufficientScope(config, PUBLIC_TOOL_SCOPES[name], scopeRuleText(name));
  }
}

export function publicMcpRouter(app: InProcessApp) {
  const router = createRouter();
  const implementations = publicImplementations(app);
  router.post("/mcp", async (c, next) => {
    // Browsers only from an exact allowed origin (CORS_ALLOWED_ORIGINS; "*" allows none here).
    return mcpRequestChecks(c.get("config").CORS_ALLOWED_ORIGINS.filter((o) => o !== "*"))(c, next);
  }, requireMcpAccessToken, async (c) => {
    const principal = c.get("principal");
    if (principal.kind !== "oauth") throw new ApiError(401, "missing_access_token", "Send an OAuth access token.");
    const requestId = c.get("requestId");
    const origin = c.req.header("origin");
    const session: ToolSession = {
      endpoint: "public",
      db: c.get("db"),
      scope: scopeOf(principal),
      requestId,
      oauth: { clientId: principal.clientId, grantId: principal.grantId, scopes: principal.scopes },
      context: { requestId, route: (call) => callRoute(app, { principal }, call, { requestId, origin }) },
    };
    return serveMcpRequest(
      c.req.raw,
      (calledTool) => buildToolServer(SERVER_INFO, toolsFor(principal.scopes) as never, implementations as never, session, calledTool),
      requestId,
      (message) => refuseMissingScopes(c.get("config"), principal.scopes, message),
    );
  });
  return router;
}
