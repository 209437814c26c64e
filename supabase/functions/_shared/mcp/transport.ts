// The Streamable HTTP side of both MCP endpoints: the checks made before any MCP message is read
// (Origin, MCP-Protocol-Version), answered in the one error body, and the SDK's handler serving one
// request with a server built for it (never shared: GHSA-345p-7cg4-v4c7).
import { createMiddleware } from "hono/factory";
import { createMcpHandler, type McpServer, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { AppEnv } from "../http/context.ts";
import { ApiError } from "../http/errors.ts";

/** The 2025-era revisions the SDK serves over the stateless fallback, and the stateless 2026-07-28 revision. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [...SUPPORTED_PROTOCOL_VERSIONS, "2026-07-28"];

/**
 * DNS-rebinding protection and the protocol header, before authentication:
 * - a request with an `Origin` (a browser) is refused (403 origin_not_allowed) unless that exact
 *   origin is in `allowedOrigins`; servers and desktop clients send none and pass;
 * - an `MCP-Protocol-Version` header names a revision served here, or 400 unsupported_protocol_version
 *   (absent, the SDK assumes a 2025 revision, as the specification says).
 */
export function mcpRequestChecks(allowedOrigins: readonly string[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !allowedOrigins.includes(origin)) {
      throw new ApiError(403, "origin_not_allowed", "Requests from this browser origin are not accepted by this MCP endpoint.", { origin: origin.slice(0, 200) });
    }
    const version = c.req.header("mcp-protocol-version");
    if (version !== undefined && !MCP_PROTOCOL_VERSIONS.includes(version.trim())) {
      throw new ApiError(400, "unsupported_protocol_version", `MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))} is not served here.`, {
        supported: MCP_PROTOCOL_VERSIONS,
      });
    }
    await next();
  });
}

/**
 * Serves one MCP POST: a new handler, and through it a new server and transport, for this request
 * only. 2026-07-28 requests are served statelessly by the SDK's modern path; 2025-era ones by its
 * stateless fallback (JSON or SSE answers, no sessions).
 */
export function serveMcpRequest(request: Request, buildServer: () => McpServer, requestId: string): Promise<Response> {
  const handler = createMcpHandler(() => buildServer(), {
    onerror: (error) => console.error(`[${requestId}] MCP request failed:`, error.message),
  });
  return handler.fetch(request);
}
