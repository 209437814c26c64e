// The Streamable HTTP side of both MCP endpoints: the checks made before any MCP message is read
// (Origin, MCP-Protocol-Version), answered in the one error body, and the SDK's handler serving one
// request with a server built for it (never shared: GHSA-345p-7cg4-v4c7).
import { createMiddleware } from "hono/factory";
import { createMcpHandler, isJsonContentType, type Server, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
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

type ToolsCall = { method: "tools/call"; params: { name: string; arguments?: unknown } };

function toolsCall(message: unknown): ToolsCall | undefined {
  const m = message as { method?: unknown; params?: { name?: unknown } } | null;
  return m !== null && typeof m === "object" && !Array.isArray(m) && m.method === "tools/call" && typeof m.params?.name === "string"
    ? m as ToolsCall
    : undefined;
}

/** The tool a single JSON-RPC tools/call message names, else undefined. */
export const calledToolOf = (message: unknown): string | undefined => toolsCall(message)?.params.name;

/** An MCP POST read once: its body parsed (when JSON) and the tool a tools/call names. */
export interface McpRequest {
  request: Request;
  parsedBody: unknown;
  calledTool: string | undefined;
  /** The arguments of that call, as sent. */
  calledArguments: unknown;
}

/**
 * Reads and parses the body once; it goes to the SDK as `parsedBody` (its documented way to skip
 * reading, cloning and parsing the body again). A body that is empty or not JSON goes to the SDK as
 * sent, which answers it as before. (The app's body limit, smaller than the SDK's, bounds the read.)
 * Answers a Response itself only when the body cannot be read.
 */
export async function readMcpRequest(request: Request): Promise<McpRequest | Response> {
  let parsedBody: unknown;
  if (request.method === "POST" && request.body !== null && isJsonContentType(request.headers.get("content-type"))) {
    let text: string;
    try {
      text = await request.text();
    } catch {
      return jsonRpcError(400, -32700, "Parse error: the request body could not be read");
    }
    try {
      parsedBody = text.length === 0 ? undefined : JSON.parse(text);
    } catch {
      parsedBody = undefined;
    }
    if (parsedBody === undefined) request = new Request(request.url, { method: request.method, headers: request.headers, body: text });
  }
  const call = toolsCall(parsedBody);
  return { request, parsedBody, calledTool: call?.params.name, calledArguments: call?.params.arguments };
}

/**
 * Serves one MCP POST: a new handler, and through it a new server and transport, for this request
 * only. 2026-07-28 requests are served statelessly by the SDK's modern path; 2025-era ones by its
 * stateless fallback (JSON or SSE answers, no sessions).
 */
export function serveMcpRequest(mcp: McpRequest, buildServer: () => Server, requestId: string): Promise<Response> {
  const handler = createMcpHandler(buildServer, {
    onerror: (error) => console.error(`[${requestId}] MCP request failed:`, error.message),
  });
  return handler.fetch(mcp.request, mcp.parsedBody === undefined ? undefined : { parsedBody: mcp.parsedBody });
}

/** A JSON-RPC error answer as the SDK writes its own (id null: the message was never read). */
function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
