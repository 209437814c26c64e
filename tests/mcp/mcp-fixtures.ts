// A real MCP client (@modelcontextprotocol/client) over its Streamable HTTP transport, against the
// app in-process (a fetch that calls app.request) or a real server over HTTP.
import { Client, StreamableHTTPClientTransport, type FetchLike } from "@modelcontextprotocol/client";
import { expect } from "vitest";

export interface AppLike {
  request(input: string, init?: RequestInit): Response | Promise<Response>;
}

/** A fetch that serves every request with `app` in-process. */
export function inProcessFetch(app: AppLike): FetchLike {
  return async (url, init) => app.request(String(url), init as RequestInit);
}

export interface ConnectOptions {
  headers?: Record<string, string>;
  fetch?: FetchLike;
  /** The client's protocol negotiation: 2025-11-25 (`legacy`, the default) or the stateless 2026-07-28 revision. */
  versionNegotiation?: "legacy" | { pin: string };
}

export async function connectClient(url: string, options: ConnectOptions = {}): Promise<Client> {
  const client = new Client(
    { name: "mcp-test-client", version: "1.0.0" },
    options.versionNegotiation ? { versionNegotiation: { mode: options.versionNegotiation } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: options.headers ?? {} },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST, for what the SDK client would not send (bad headers, GET, foreign origins). */
export function rpcInit(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  };
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

export const LIST_TOOLS = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

/**
 * What a tool's error result looks like to clients (for toMatchObject): isError, and the error code
 * then its message as the text. It carries no structuredContent (clients.compat.test.ts checks that
 * for every tool).
 */
export function toolError(code: string) {
  return { isError: true, content: [{ type: "text", text: expect.stringMatching(new RegExp(`^${code}: .`)) }] };
}
