// The public MCP endpoint (`/mcp`): OAuth 2.1 access tokens only (requireMcpAccessToken), tools
// filtered by the grant's scopes. A call of a tool the grant does not cover is refused before the
// MCP layer with 403 insufficient_scope naming every scope the tool needs, so the client can ask
// the person for more (RFC 6750 3.1; MCP's scope challenge). A new server per request (stateless).
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import type { Context } from "hono";
import { insufficientScope, missingScopes, requireMcpAccessToken } from "../../../_shared/auth/mcp-oauth.ts";
import { createRouter } from "../../../_shared/http/app.ts";
import type { AppEnv } from "../../../_shared/http/context.ts";
import { ApiError } from "../../../_shared/http/errors.ts";
import { PUBLIC_TOOLS, type ToolContext, toolByName } from "./tools.ts";

function serverFor(context: ToolContext, scopes: readonly string[]): McpServer {
  const server = new McpServer({ name: "events-public-mcp", version: "1.0.0" });
  for (const tool of PUBLIC_TOOLS) {
    if (missingScopes(scopes, tool.scopes).length > 0) continue;
    server.registerTool(tool.name, {
      title: tool.title,
      description: `${tool.description} (scopes: ${tool.scopes.join(", ")})`,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    }, async (input: unknown) => {
      const result = await tool.run(input as never, context);
      return { content: [{ type: "text" as const, text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    });
  }
  return server;
}

/** Browsers may call only from an allowed origin (CORS_ALLOWED_ORIGINS); native clients send no Origin. */
function refuseForeignOrigin(c: Context<AppEnv>): void {
  const origin = c.req.header("origin");
  const allowed = c.get("config").CORS_ALLOWED_ORIGINS;
  if (origin === undefined || allowed.includes("*") || allowed.includes(origin)) return;
  throw new ApiError(403, "origin_not_allowed", "Requests from this Origin are not accepted.");
}

async function serve(c: Context<AppEnv>): Promise<Response> {
  refuseForeignOrigin(c);
  const principal = c.get("principal");
  if (principal.kind !== "oauth") throw new ApiError(401, "missing_access_token", "Send an OAuth access token.");
  let parsedBody: unknown;
  if (c.req.method === "POST") {
    try {
      parsedBody = await c.req.json();
    } catch {
      throw new ApiError(400, "invalid_json", "The request body is not valid JSON.");
    }
    for (const message of Array.isArray(parsedBody) ? parsedBody : [parsedBody]) {
      const m = message as { method?: unknown; params?: { name?: unknown } } | null;
      if (m?.method !== "tools/call" || typeof m.params?.name !== "string") continue;
      const tool = toolByName(m.params.name);
      if (tool && missingScopes(principal.scopes, tool.scopes).length > 0) {
        throw insufficientScope(c.get("config"), tool.scopes, `The tool ${tool.name}`);
      }
    }
  }
  const context: ToolContext = { db: c.get("db"), config: c.get("config"), principal };
  const handler = createMcpHandler(() => serverFor(context, principal.scopes), { legacy: "stateless" });
  try {
    return await handler.fetch(c.req.raw, {
      parsedBody,
      authInfo: { token: "", clientId: principal.clientId, scopes: principal.scopes, extra: { userId: principal.userId, grantId: principal.grantId } },
    });
  } finally {
    await handler.close().catch(() => {});
  }
}

export const publicMcpRouter = createRouter();
publicMcpRouter.use("/mcp", requireMcpAccessToken);
publicMcpRouter.on(["GET", "POST", "DELETE"], "/mcp", serve);
