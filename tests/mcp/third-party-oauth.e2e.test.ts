// The public MCP endpoint with a third-party client: mcp-remote (pinned devDependency), the stdio-to-HTTP bridge
// desktop assistants run, connects to the public /mcp of the real Deno gateway and runs the whole
// OAuth flow itself: discovery from the 401, metadata, dynamic registration, PKCE, the browser
// (oauth-driver.ts plays the person: e-mail code from a local SMTP server, consent with the default
// read scopes, the redirect to mcp-remote's loopback callback), the token exchange. The test talks to
// mcp-remote over stdio, as an assistant would: it lists tools and calls list_events through it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { freePort } from "../../scripts/lib/gateway-process.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { completeAuthorization, DEFAULT_SCOPE_TOOLS, DEFAULT_SCOPES, type OAuthGateway, startBrowserDriver, startOAuthGateway } from "./oauth-driver.ts";

const MCP_REMOTE = join(REPO_ROOT, "node_modules", "mcp-remote", "dist", "proxy.js");

let ctx: OAuthGateway;
beforeAll(async () => {
  ctx = await startOAuthGateway();
});
afterAll(async () => {
  await ctx?.close();
});

/** The JWT's claims (the test only reads them; the gateway verified the signature). */
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;

describe("mcp-remote through the public MCP endpoint's OAuth", () => {
  it("signs in headless, lists the read tools, calls list_events as the person, and the audit names its client", { timeout: 120_000 }, async () => {
    const email = "remote@example.com";
    // The person already has an account (found by e-mail at sign-in) with a private event only they
    // see; a stranger has another, which the person must not see.
    const person = await ctx.userWithKey([], { email });
    const created = await ctx.call("/api/v3/events", { method: "POST", key: person.key, json: {
      name: "Private rehearsal", startsAt: "2026-12-05T19:00:00+01:00", endsAt: "2026-12-05T23:30:00+01:00", timeZone: "Europe/Berlin", visibility: "private",
    } });
    expect(created.status, await created.clone().text()).toBe(201);
    const event = await created.json() as { id: string };
    const stranger = await ctx.userWithKey();
    expect((await ctx.call("/api/v3/events", { method: "POST", key: stranger.key, json: {
      name: "Someone else's rehearsal", startsAt: "2026-12-06T19:00:00+01:00", endsAt: "2026-12-06T23:30:00+01:00", timeZone: "Europe/Berlin", visibility: "private",
    } })).status).toBe(201);

    const driver = startBrowserDriver();
    const configDir = mkdtempSync(join(tmpdir(), "mcp-remote-"));
    const callbackPort = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE, `${ctx.root}/mcp`, String(callbackPort), "--host", "127.0.0.1", "--transport", "http-only"],
      env: { ...driver.env, MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "third-party-test", version: "1.0.0" });
    try {
      // mcp-remote answers `initialize` only once it is connected upstream, i.e. after the sign-in.
      const connecting = client.connect(transport);
      const authorize = await driver.nextUrl(1, 60_000).catch((error) => {
        throw new Error(`${error.message}\nmcp-remote said:\n${stderr}`);
      });
      expect(authorize.origin + authorize.pathname).toBe(`${ctx.root}/oauth/authorize`);
      expect(authorize.searchParams.get("client_id")).toMatch(/^mcc_/); // registered dynamically
      expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorize.searchParams.get("resource")).toBe(`${ctx.root}/mcp`);
      expect(authorize.searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${callbackPort}/oauth/callback`);
      // mcp-remote asks for every scope the metadata lists, write scopes too; the person approves the
      // consent page as it comes, with only the read scopes ticked.
      expect(authorize.searchParams.get("scope")?.split(" ")).toContain("events:write");
      const clientId = authorize.searchParams.get("client_id")!;

      const { callback, answer } = await completeAuthorization(ctx, authorize, email);
      expect(callback.origin).toBe(`http://127.0.0.1:${callbackPort}`);
      expect(callback.searchParams.get("iss")).toBe(ctx.root);
      expect(answer.status, await answer.clone().text()).toBe(200); // mcp-remote's callback page took the code
      await connecting;
      expect(stderr).toContain("Browser opened automatically."); // through xdg-open and $BROWSER, as on a desktop

      // The token mcp-remote holds: for this client, audience /mcp, the read scopes the page defaulted to.
      const tokenFile = readdirSync(configDir, { recursive: true }).map(String).find((f) => f.endsWith("_tokens.json"));
      expect(tokenFile, `files: ${readdirSync(configDir, { recursive: true })}`).toBeDefined();
      const tokens = JSON.parse(readFileSync(join(configDir, tokenFile!), "utf8")) as { access_token: string; refresh_token?: string; scope?: string };
      expect(tokens.refresh_token).toMatch(/^mcr_/);
      const claims = claimsOf(tokens.access_token);
      expect(claims).toMatchObject({ aud: `${ctx.root}/mcp`, iss: ctx.root, client_id: clientId });
      const granted = String(claims.scope).split(" ").sort();
      expect(granted).toEqual(DEFAULT_SCOPES);
      const [grant] = await ctx.owner`select user_id, client_id, scopes, resource from mcp_oauth.grants where client_id = ${clientId}`;
      expect(grant).toMatchObject({ user_id: person.id, resource: `${ctx.root}/mcp` });

      // Through mcp-remote: the tools the read scopes allow (none needing more), and list_events as the person.
      expect(DEFAULT_SCOPE_TOOLS).toContain("list_events");
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(DEFAULT_SCOPE_TOOLS);
      const listed = await client.callTool({ name: "list_events", arguments: { scope: "mine" } });
      expect(listed.isError, JSON.stringify(listed)).toBeFalsy();
      const rest = await (await ctx.call("/api/v3/events?scope=mine", { key: person.key })).json() as { items: { id: string }[] };
      expect(rest.items.map((e) => e.id)).toEqual([event.id]);
      expect(listed.structuredContent).toEqual(rest); // exactly what REST answers the person
      const everything = await client.callTool({ name: "list_events", arguments: {} });
      expect((everything.structuredContent as { items: { id: string }[] }).items.map((e) => e.id)).toEqual([event.id]);

      // The person's audit (their API key on the gateway) shows the calls, with mcp-remote's client id and the grant.
      const audit = await fetch(`${ctx.root}/api/v3/me/mcp-audit?endpoint=public`, { headers: { "x-api-key": person.key } });
      expect(audit.status).toBe(200);
      const { items } = await audit.json() as { items: Record<string, unknown>[] };
      expect(items).toHaveLength(2);
      for (const item of items) {
        expect(item).toMatchObject({ endpoint: "public", tool: "list_events", outcome: "ok", clientId, grantId: expect.any(String), apiKeyId: null });
        expect((item.scopes as string[]).sort()).toEqual(granted);
      }
      expect(items.map((i) => i.arguments)).toContainEqual({ scope: "mine" });
      expect(ctx.gateway.output()).not.toMatch(/mcr_|mca_|mcs_/);
    } finally {
      await client.close().catch(() => {});
      driver.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
