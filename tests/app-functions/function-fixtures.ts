// A test file's app functions: its own database, every edge function behind the gateway's routing
// (scripts/gateway.ts) called in process, app session tokens as Supabase Auth issues them (HS256,
// the legacy secret: the local sign-in that issues ES256 ones is not needed here), and external MCP
// servers made with the MCP SDK's McpServer, on real ports.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { SignJWT } from "jose";
import { z } from "zod";
import { expect } from "vitest";
import { createFunctions, createGateway } from "../../scripts/gateway.ts";
import { type OpenAIStandIn, startOpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";
import { createTestContext, TEST_JWT_SECRET, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

export const APP_FUNCTIONS = ["chat-with-assistant", "transcribe-audio", "discover-mcp-capabilities", "rename-chat-for-event"] as const;
export type AppFunctionName = (typeof APP_FUNCTIONS)[number];

/** A body each function accepts (the shells check it before answering 503). */
export const VALID_BODIES: Record<AppFunctionName, unknown> = {
  "chat-with-assistant": { roomId: "room-1", message: "What is on tonight?", messageId: "m-1" },
  "transcribe-audio": { roomId: "room-1", messageId: "m-2", audioData: "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=" },
  "discover-mcp-capabilities": {},
  "rename-chat-for-event": { roomId: "room-1", eventTitle: "Berlin Web3 Night" },
};

export interface FunctionsWorld {
  t: TestContext;
  /** Every function behind the gateway's routing: /functions/v1/<name>, the API at the root. */
  fetch(request: Request): Promise<Response>;
  /** POSTs JSON to /functions/v1/<name> with the session token, if any. */
  post(name: string, body: unknown, token?: string, headers?: Record<string, string>): Promise<Response>;
  sessionToken(user: UserWithKey, options?: { secret?: string; expiresAt?: number | string }): Promise<string>;
  close(): Promise<void>;
}

export async function startFunctionsWorld(env: Record<string, string> = {}): Promise<FunctionsWorld> {
  const t = await createTestContext(env);
  const functions = createFunctions({ config: t.config, db: t.db });
  const gateway = createGateway(functions, functions.api);
  const fetch = async (request: Request) => await gateway(request, {});
  return {
    t,
    fetch,
    post: (name, body, token, headers = {}) =>
      fetch(new Request(`http://localhost/functions/v1/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        body: JSON.stringify(body),
      })),
    sessionToken: (user, { secret = TEST_JWT_SECRET, expiresAt = "5m" } = {}) =>
      new SignJWT({ role: "authenticated", email: `${user.id}@example.com`, session_id: crypto.randomUUID(), is_anonymous: false })
        .setProtectedHeader({ alg: "HS256" }).setSubject(user.authUserId).setAudience("authenticated").setIssuedAt()
        .setExpirationTime(expiresAt).sign(new TextEncoder().encode(secret)),
    close: () => t.close(),
  };
}

/** The functions world with the OpenAI stand-in as its AI provider; `env` adds settings (a function's rate limit, say). */
export async function startProviderWorld(env: Record<string, string> = {}): Promise<{ standIn: OpenAIStandIn; world: FunctionsWorld }> {
  const standIn = await startOpenAIStandIn();
  const world = await startFunctionsWorld({ ASSISTANT_API_KEY: standIn.apiKey, ASSISTANT_BASE_URL: `${standIn.url}/v1`, ...env });
  return { standIn, world };
}

/** After each test: every answer the test scripted was asked for; the stand-in starts the next test empty. */
export function expectScriptedAnswersUsed(standIn: OpenAIStandIn) {
  const unused = standIn.unused();
  standIn.reset();
  expect(unused, "every scripted answer was asked for").toEqual({ chat: 0, transcription: 0 });
}

/** A node:http server answering with a fetch handler (bodies buffered: enough for MCP's stateless answers). */
export async function serveFetch(handle: (request: Request) => Response | Promise<Response>): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const url = `http://127.0.0.1${req.url}`;
    const body = chunks.length && req.method !== "GET" && req.method !== "HEAD" ? Buffer.concat(chunks) : undefined;
    const response = await handle(new Request(url, { method: req.method, headers, body }));
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  });
  await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An external MCP server (stateless Streamable HTTP) with `tools`, which refuses requests without
 * `apiKey`; with `busyOnce`, its first request is answered 503 with that Retry-After (seconds).
 */
export async function startMcpServer(tools: Array<{ name: string; description: string }>, apiKey: string, options: { busyOnce?: number } = {}) {
  const requestTimes: number[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "weather", version: "1.0.0" });
    for (const tool of tools) {
      server.registerTool(tool.name, { description: tool.description, inputSchema: z.object({ city: z.string() }) },
        async ({ city }) => ({ content: [{ type: "text", text: `${tool.name} for ${city}: sunny` }] }));
    }
    return server;
  });
  const served = await serveFetch((request) => {
    requestTimes.push(Date.now());
    if (request.headers.get("authorization") !== `Bearer ${apiKey}`) return new Response("unauthorized", { status: 401 });
    if (options.busyOnce !== undefined && requestTimes.length === 1) {
      return new Response("busy", { status: 503, headers: { "retry-after": String(options.busyOnce) } });
    }
    return handler.fetch(request);
  });
  return { ...served, url: `${served.url}/mcp`, requestTimes: () => [...requestTimes] };
}
