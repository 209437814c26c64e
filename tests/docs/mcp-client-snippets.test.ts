// The client configurations docs/mcp-clients.md shows (docs/snippets/mcp/*.json), connected as written:
// each file is read the way its client reads it (Claude Desktop: a command and its arguments; Cursor:
// a URL, headers and ${env:NAME}; VS Code: a URL, headers and ${input:id}), its URL must name one of
// the MCP routes, and the MCP SDK 1.x client (what the hosts run) connects with that URL and those
// headers to a local server and lists the tools the configuration chose. Claude Desktop's backend
// configuration runs mcp-remote itself, over HTTP. The doc shows each file exactly as it is.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { MCP_SCOPES } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { toolsetsOf } from "../../supabase/functions/_shared/mcp/toolsets.ts";
import { backendTools } from "../../supabase/functions/api/app.ts";
import { publicTools } from "../../supabase/functions/_shared/mcp/public-server.ts";
import { createOAuthTestContext, issueTokens, type OAuthTestContext, ROOT, serveOverHttp } from "../mcp/oauth-fixtures.ts";
import type { UserWithKey } from "../setup/test-context.ts";

const SNIPPETS = join(REPO_ROOT, "docs", "snippets", "mcp");
const DOC = readFileSync(join(REPO_ROOT, "docs", "mcp-clients.md"), "utf8");
const files = readdirSync(SNIPPETS).filter((file) => file.endsWith(".json")).sort();

/** What a configuration connects to: a URL and the headers sent, with the client's placeholders resolved by `resolve`. */
interface Connection {
  url: URL;
  headers: Record<string, string>;
  /** Claude Desktop: the command the host runs (npx mcp-remote ...), its arguments and environment. */
  stdio?: { args: string[]; env: Record<string, string> };
}

type Json = Record<string, any>;

/** The one server of a configuration file, read as its client reads it. `secret` is what a placeholder stands for. */
function connectionOf(file: string, config: Json, secret: string): Connection {
  if (file.startsWith("claude-desktop-")) {
    const [server] = Object.values<Json>(config.mcpServers);
    expect(server!.command, file).toBe("npx");
    const args: string[] = server!.args;
    expect(args.slice(0, 2), file).toEqual(["-y", "mcp-remote"]);
    const env: Record<string, string> = Object.fromEntries(Object.keys(server!.env ?? {}).map((name) => [name, secret]));
    const headers: Record<string, string> = {};
    for (let i = 3; i < args.length; i += 2) {
      expect(args[i], `${file}: mcp-remote takes --header Name:value`).toBe("--header");
      const [, name, value] = /^([A-Za-z0-9_-]+):(.*)$/.exec(args[i + 1]!)!;
      headers[name!] = value!.replace(/\$\{([^}]+)\}/g, (_, variable: string) => {
        expect(Object.hasOwn(env, variable), `${file}: ${variable} is in env`).toBe(true);
        return env[variable]!;
      });
    }
    return { url: new URL(args[2]!), headers, stdio: { args: args.slice(2), env } };
  }
  if (file.startsWith("cursor-")) {
    const [server] = Object.values<Json>(config.mcpServers);
    const headers = Object.fromEntries(Object.entries<string>(server!.headers ?? {}).map(([name, value]) => [name, value.replace(/\$\{env:[A-Z_]+\}/g, secret)]));
    return { url: new URL(server!.url), headers };
  }
  if (file.startsWith("vscode-")) {
    const [server] = Object.values<Json>(config.servers);
    expect(server!.type, file).toBe("http");
    const inputs = new Set((config.inputs ?? []).map((input: Json) => input.id));
    const headers = Object.fromEntries(Object.entries<string>(server!.headers ?? {}).map(([name, value]) => [name, value.replace(/\$\{input:([^}]+)\}/g, (_, id: string) => {
      expect(inputs.has(id), `${file}: input ${id} is declared`).toBe(true);
      return secret;
    })]));
    return { url: new URL(server!.url), headers };
  }
  throw new Error(`${file}: no client reads this configuration`);
}

/** The tools a backend URL and headers choose: its path's toolsets and read-only mode, as the endpoint's routes take them. */
function backendChoice({ url, headers }: Connection): { toolsets: string[]; readOnly: boolean } {
  const route = /^\/mcp\/backend(?:\/x\/([^/]+))?(\/readonly)?$/.exec(decodeURIComponent(url.pathname));
  expect(route, `${url.pathname} is a route of the backend endpoint`).not.toBeNull();
  const header = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const lists = [route![1], header("x-mcp-toolsets")].filter((list) => list !== undefined).map((list) => list!.split(","));
  const toolsets = toolsetsOf(backendTools).filter((toolset) => lists.every((list) => list.includes(toolset)));
  return { toolsets, readOnly: route![2] !== undefined || header("x-mcp-readonly") === "true" };
}

let ctx: OAuthTestContext;
let user: UserWithKey;

beforeAll(async () => {
  ctx = await createOAuthTestContext();
  user = await ctx.userWithKey();
});
afterAll(async () => ctx?.close());

async function listedThrough(connection: Connection, fetch: OAuthTestContext["fetch"], headers = connection.headers): Promise<string[]> {
  const client = new Client({ name: "snippet", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(connection.url, { fetch, requestInit: { headers } }));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe("docs/snippets/mcp", () => {
  it("holds a backend and a public configuration for each client, each shown in docs/mcp-clients.md exactly", () => {
    expect(files).toEqual(["claude-desktop", "cursor", "vscode"].flatMap((client) => [`${client}-backend.json`, `${client}-public.json`]));
    const blocks = [...DOC.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]);
    expect(blocks).toEqual(files.map((file) => readFileSync(join(SNIPPETS, file), "utf8")));
  });

  it("lists every toolset of the backend endpoint in docs/mcp-clients.md", () => {
    const section = DOC.slice(DOC.indexOf("| Toolset | Tools |"), DOC.indexOf("## Claude Desktop"));
    const table = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);
    expect(table).toEqual(toolsetsOf(backendTools));
  });

  it.each(files.filter((file) => file.endsWith("-backend.json")))("%s lists the tools it chose on the backend endpoint", async (file) => {
    const connection = connectionOf(file, JSON.parse(readFileSync(join(SNIPPETS, file), "utf8")), user.key);
    expect(connection.url.origin).toBe(ROOT);
    const { toolsets, readOnly } = backendChoice(connection);
    expect(toolsets.length, `${file} chooses toolsets`).toBeGreaterThan(0);
    const names = await listedThrough(connection, ctx.fetch);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const tool = backendTools[name as keyof typeof backendTools];
      expect(toolsets, name).toContain(tool.toolset);
      if (readOnly) expect(tool.annotations.readOnlyHint || tool.whenReadOnly !== undefined, name).toBe(true);
    }
    expect(names).toEqual(Object.values(backendTools)
      .filter((tool) => toolsets.includes(tool.toolset) && (!readOnly || tool.annotations.readOnlyHint || tool.whenReadOnly))
      .map((tool) => tool.name));
  });

  it("claude-desktop-backend.json works through mcp-remote itself, as Claude Desktop runs it", { timeout: 60_000 }, async () => {
    const connection = connectionOf("claude-desktop-backend.json", JSON.parse(readFileSync(join(SNIPPETS, "claude-desktop-backend.json"), "utf8")), user.key);
    const server = await serveOverHttp(() => ctx.app);
    const configDir = mkdtempSync(join(tmpdir(), "mcp-remote-"));
    const [url, ...rest] = connection.stdio!.args;
    const transport = new StdioClientTransport({
      // npx -y mcp-remote, without reaching the registry: the installed package's entry.
      command: process.execPath,
      args: [join(REPO_ROOT, "node_modules", "mcp-remote", "dist", "proxy.js"), url!.replace(ROOT, server.root), ...rest, "--transport", "http-only"],
      env: { ...connection.stdio!.env, PATH: process.env.PATH ?? "", MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "claude-desktop-snippet", version: "1.0.0" });
    try {
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names, stderr).toEqual(await listedThrough(connection, ctx.fetch));
    } finally {
      await client.close().catch(() => {});
      await server.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it.each(files.filter((file) => file.endsWith("-public.json")))("%s names the public endpoint, which asks for OAuth and then lists tools", async (file) => {
    const connection = connectionOf(file, JSON.parse(readFileSync(join(SNIPPETS, file), "utf8")), "");
    expect(connection.url.href).toBe(`${ROOT}/mcp`);
    expect(connection.headers).toEqual({});
    // What the host starts from: a 401 naming the protected resource metadata (RFC 9728).
    const refused = await ctx.fetch(connection.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain(`resource_metadata="${ROOT}/.well-known/oauth-protected-resource/mcp"`);
    // And once it holds a token from the sign-in, the endpoint lists the person's tools.
    const { access_token } = await issueTokens(ctx, `${file.replace(/\W/g, "")}@example.com`, [...MCP_SCOPES]);
    const names = await listedThrough(connection, ctx.fetch, { authorization: `Bearer ${access_token}` });
    expect(names).toEqual(Object.keys(publicTools));
  });
});
