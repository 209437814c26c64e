// discover-mcp-capabilities against real MCP servers: the service's own public surface (in memory),
// external servers made with the MCP SDK's McpServer (one needs its API key, one is busy once and
// says when to come back), one that is down and one that never answers (both reported after their
// tries, not a 500), and the supabase-js client calling it over HTTP as the app does.
import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { FunctionsHttpError } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { PUBLIC_SERVER_INFO, publicTools } from "../../supabase/functions/_shared/mcp/public-server.ts";
import { serveOverHttp } from "../mcp/oauth-fixtures.ts";
import { expectErrorBody, PRODUCTION_REQUIREMENTS, type UserWithKey } from "../setup/test-context.ts";
import { type MailSink, startMailSink } from "../../scripts/lib/mail-sink.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { codeMailedTo, newAddress, supabaseClient } from "../auth/local-auth-fixtures.ts";
import { type FunctionsWorld, startFunctionsWorld, startMcpServer } from "./function-fixtures.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

const WEATHER_KEY = "weather-api-key-never-shown-0123456789";
const TIMEOUT_MS = 300;

/** A TCP port that accepts connections and never answers. */
async function silentPort(): Promise<{ url: string; connections: () => number; open: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    // Reads (and drops) what arrives, so that it sees the client close the connection.
    sockets.add(socket.on("error", () => {}).on("close", () => sockets.delete(socket)).resume());
  });
  await listenOnLoopback(server);
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    connections: () => connections,
    open: () => sockets.size,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await listenOnLoopback(probe);
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/mcp`;
}

let weather: Awaited<ReturnType<typeof startMcpServer>>;
let tides: Awaited<ReturnType<typeof startMcpServer>>;
let silent: Awaited<ReturnType<typeof silentPort>>;
let mail: MailSink;
let world: FunctionsWorld;
let user: UserWithKey;
let token: string;

beforeAll(async () => {
  weather = await startMcpServer([
    { name: "get_forecast", description: "The forecast for a city" },
    { name: "get_alerts", description: "Weather alerts for a city" },
  ], WEATHER_KEY);
  tides = await startMcpServer([{ name: "get_tides", description: "Tides at a port" }], WEATHER_KEY, { busyOnce: 1 });
  silent = await silentPort();
  mail = await startMailSink();
  world = await startFunctionsWorld({
    // The local Supabase Auth stand-in, so that supabase-js signs in by e-mail code.
    LOCAL_AUTH_ENABLED: "true",
    LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey(),
    SMTP_URL: mail.url,
    ASSISTANT_MCP_TIMEOUT_MS: String(TIMEOUT_MS),
    ASSISTANT_MCP_SERVERS: JSON.stringify([
      { name: "weather", url: `${weather.url}?region=eu`, headers: { authorization: `Bearer ${WEATHER_KEY}` } },
      { name: "tides", url: tides.url, headers: { authorization: `Bearer ${WEATHER_KEY}` } },
      { name: "down", url: await closedPortUrl() },
      { name: "silent", url: silent.url },
    ]),
  });
  user = await world.t.userWithKey();
  token = await world.sessionToken(user);
});
afterAll(async () => {
  await world.close();
  await weather.close();
  await tides.close();
  await silent.close();
  await mail.close();
});

const SERVICE_TOOLS = Object.keys(publicTools).length;

describe("discover-mcp-capabilities", () => {
  let first: Record<string, any>;

  it("lists and registers the service's own tools and the external server's, reporting the servers that failed", async () => {
    const response = await world.post("discover-mcp-capabilities", {}, token);
    expect(response.status).toBe(200);
    first = await response.json();
    expect(first.success).toBe(true);
    expect(first.servers).toEqual([
      { name: PUBLIC_SERVER_INFO.name, source: "service", status: "ok", toolCount: SERVICE_TOOLS, skipped: 0 },
      { name: "weather", source: "external", status: "ok", toolCount: 2, skipped: 0 },
      { name: "tides", source: "external", status: "ok", toolCount: 1, skipped: 0 },
      { name: "down", source: "external", status: "failed", toolCount: 0, skipped: 0, error: "the server could not be reached" },
      { name: "silent", source: "external", status: "failed", toolCount: 0, skipped: 0, error: `no answer within ${TIMEOUT_MS} ms` },
    ]);
    expect(first.total_discovered).toBe(SERVICE_TOOLS + 3);
    expect(first.capabilities).toHaveLength(first.total_discovered);
    expect(first.new_capabilities).toBe(SERVICE_TOOLS + 3);
    // Three tries at the silent server, each cut at its deadline, with backoff between them.
    expect(silent.connections()).toBe(3);
    await expect.poll(silent.open, { timeout: 1000 }).toBe(0); // each try closed its connection
    // The busy server was asked again once the second it named had passed, not before.
    const [busy, again] = tides.requestTimes();
    expect(again! - busy!).toBeGreaterThanOrEqual(990);
  });

  it("answers each capability with its schema, and nothing of a server's URL or key", async () => {
    const forecast = first.capabilities.find((c: { name: string }) => c.name === "get_forecast");
    expect(forecast).toMatchObject({
      server: "weather", source: "external", description: "The forecast for a city", enabled: true, new: true,
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    });
    const listEvents = first.capabilities.find((c: { name: string }) => c.name === "list_events");
    expect(listEvents).toMatchObject({ server: PUBLIC_SERVER_INFO.name, source: "service", annotations: { readOnlyHint: true } });
    const text = JSON.stringify(first);
    expect(text).not.toContain(WEATHER_KEY);
    expect(text).not.toContain(weather.url.replace(/\/mcp$/, ""));
  });

  it("registers the tools once: a second discovery finds the same ones and no new one", async () => {
    const again = await (await world.post("discover-mcp-capabilities", {}, await world.sessionToken(await world.t.userWithKey()))).json();
    expect(again.total_discovered).toBe(first.total_discovered);
    expect(again.new_capabilities).toBe(0);
    expect(again.capabilities.every((c: { new: boolean }) => !c.new)).toBe(true);
    const rows = await world.t.owner<{ source: string; count: number }[]>`
      select source, count(*)::int as count from chat.capabilities group by source order by source`;
    // The server's URL without its query: a key could be in it.
    expect(rows).toEqual(
      [{ source: weather.url, count: 2 }, { source: tides.url, count: 1 }, { source: "service", count: SERVICE_TOOLS }]
        .sort((a, b) => a.source.localeCompare(b.source)),
    );
  });

  it("is what supabase-js's functions.invoke gets over HTTP, signed in by e-mail code, and an error body without a session", async () => {
    const { root, close } = await serveOverHttp(() => ({ fetch: world.fetch }));
    try {
      const supabase = supabaseClient({ url: root });
      const email = newAddress("discover");
      const sent = mail.mails.length;
      expect((await supabase.auth.signInWithOtp({ email })).error).toBeNull();
      expect((await supabase.auth.verifyOtp({ email, token: await codeMailedTo(mail, email, sent), type: "email" })).error).toBeNull();
      // The client sends its session's token itself.
      const { data, error } = await supabase.functions.invoke("discover-mcp-capabilities");
      expect(error).toBeNull();
      expect(data).toMatchObject({ success: true, total_discovered: first.total_discovered, new_capabilities: 0 });
      await supabase.auth.signOut();

      // supabase-js sends its anon key as the bearer token when no session is given: not an app session.
      const refused = await supabase.functions.invoke("discover-mcp-capabilities", { body: {} });
      expect(refused.error).toBeInstanceOf(FunctionsHttpError);
      await expectErrorBody((refused.error as FunctionsHttpError).context as Response, 401, "invalid_session");
    } finally {
      await close();
    }
  });
});

describe("in production", () => {
  it("never contacts an external server on a private address", async () => {
    let contacted = 0;
    const counter = createServer((socket) => {
      contacted++;
      socket.destroy();
    });
    await listenOnLoopback(counter);
    const { port } = counter.address() as { port: number };
    const production = await startFunctionsWorld({
      APP_ENV: "production",
      ...PRODUCTION_REQUIREMENTS,
      ASSISTANT_MCP_SERVERS: JSON.stringify([{ name: "inside", url: `https://127.0.0.1:${port}/mcp` }]),
    });
    try {
      const person = await production.t.userWithKey();
      const response = await production.post("discover-mcp-capabilities", {}, await production.sessionToken(person));
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.servers[1]).toEqual({ name: "inside", source: "external", status: "failed", toolCount: 0, skipped: 0, error: "its address is not public" });
      expect(contacted).toBe(0);
    } finally {
      await production.close();
      await new Promise<void>((resolve) => counter.close(() => resolve()));
    }
  });

  it("refuses a plain-http server in its configuration", () => {
    expect(() => loadConfig({
      GATEWAY_DATABASE_URL: "postgres://api_gateway@127.0.0.1:54322/postgres",
      APP_ENV: "production",
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      ...PRODUCTION_REQUIREMENTS,
      ASSISTANT_MCP_SERVERS: JSON.stringify([{ name: "plain", url: "http://mcp.example.com/mcp" }]),
    })).toThrow(/ASSISTANT_MCP_SERVERS: plain: https only in production/);
  });
});
