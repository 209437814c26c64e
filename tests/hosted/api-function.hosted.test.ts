// The api function served as Supabase serves it (edge-functions.ts: its own deno.json, no
// node_modules, /functions/v1 stripped by the platform, PUBLIC_API_ROOT <host>/functions/v1), with
// real clients over HTTP:
// - the backend MCP endpoint with the MCP SDK 1.x client and an API key, also with toolsets and
//   read-only mode chosen by path;
// - the public MCP endpoint with the MCP SDK 1.x client through OAuth discovery, dynamic client
//   registration, e-mail code sign-in and consent, then tool calls;
// - mcp-remote (the stdio bridge desktop assistants run) through the same OAuth flow, then a tool call;
// - every link the service wrote on the way (OAuth metadata, the ticket page and its assets, the
//   confirmation page) followed, answering 200.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_SCOPES } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { createApiKey } from "../../scripts/lib/admin-operations.ts";
import { freePort } from "../../scripts/lib/gateway-process.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { startBrowserDriver } from "../mcp/oauth-driver.ts";
import { eventBody } from "../events/event-fixtures.ts";
import { authorizeInBrowser, Browser, type MailCatcher, type OAuthTestContext, startMailCatcher } from "../mcp/oauth-fixtures.ts";
import { createTestContext, TEST_JWT_SECRET, type TestContext } from "../setup/test-context.ts";
import { type HostedFunctions, serveHostedFunctions } from "./edge-functions.ts";

let t: TestContext;
let mail: MailCatcher;
let hosted: HostedFunctions;
let api: string;

beforeAll(async () => {
  mail = await startMailCatcher();
  t = await createTestContext();
  hosted = await serveHostedFunctions(["api"], {
    GATEWAY_DATABASE_URL: t.config.GATEWAY_DATABASE_URL, APP_ENV: "test", JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"), SMTP_URL: mail.url, MAIL_FROM: "Events <no-reply@example.test>",
    MCP_SIGN_IN_RESEND_SECONDS: "1", TICKET_SIGNING_KEYS: await generateTicketSigningKey(),
    EVM_CHAINS: JSON.stringify([{ chainId: 31337, rpcUrl: "http://127.0.0.1:9/unused", confirmations: 1 }]),
  });
  api = `${hosted.root}/api`;
}, 300_000);
afterAll(async () => {
  await hosted?.stop();
  await t?.close();
  await mail?.close();
});

/** Every URL the service wrote in this file, to follow at the end. */
const written = new Set<string>();

describe("the api function served as on Supabase", () => {
  it("answers the backend MCP endpoint to the MCP SDK 1.x client with an API key", async () => {
    const owner = await t.userWithKey();
    const client = new Client({ name: "hosted-backend", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api}/mcp/backend`), { requestInit: { headers: { "x-api-key": owner.key } } }));
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain("list_events");
    const listed = await client.callTool({ name: "list_events", arguments: {} });
    expect(listed.isError, JSON.stringify(listed)).toBeFalsy();
    await client.close();
    // A client that cannot set headers chooses toolsets and read-only mode by path, below the function's prefix.
    const chosen = new Client({ name: "hosted-backend", version: "1.0.0" });
    await chosen.connect(new StreamableHTTPClientTransport(new URL(`${api}/mcp/backend/x/events/readonly`), { requestInit: { headers: { "x-api-key": owner.key } } }));
    expect((await chosen.listTools()).tools.map((tool) => tool.name)).toEqual(["list_events", "get_event"]);
    await expect(chosen.callTool({ name: "create_event", arguments: eventBody() })).rejects.toThrow(/read-only/);
    await chosen.close();
  });

  it("lets the MCP SDK 1.x client discover, register, sign in by e-mail code and call tools on the public endpoint", async () => {
    let authorization: URL | undefined;
    let client: OAuthClientInformationMixed | undefined;
    let tokens: OAuthTokens | undefined;
    let verifier = "";
    const provider: OAuthClientProvider = {
      redirectUrl: "http://127.0.0.1:7777/callback",
      clientMetadata: { client_name: "Hosted SDK client", redirect_uris: ["http://127.0.0.1:7777/callback"], token_endpoint_auth_method: "none", scope: MCP_SCOPES.join(" ") },
      clientInformation: () => client,
      saveClientInformation: (information) => void (client = information),
      tokens: () => tokens,
      saveTokens: (saved) => void (tokens = saved),
      redirectToAuthorization: (url) => void (authorization = url),
      saveCodeVerifier: (saved) => void (verifier = saved),
      codeVerifier: () => verifier,
    };
    const resource = new URL(`${api}/mcp`);
    const first = new StreamableHTTPClientTransport(resource, { authProvider: provider });
    await expect(new Client({ name: "hosted-public", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(authorization?.href.startsWith(`${api}/oauth/authorize?`), authorization?.href).toBe(true);
    written.add(authorization!.href);

    // The person: e-mail code, consent with every scope, back to the client's callback.
    const person: OAuthTestContext = { ...t, mail, root: api, fetch: (input, init) => fetch(input, init) };
    const callback = await authorizeInBrowser(person, new Browser(person, hosted.origin), authorization!.href, "ada@example.com", [...MCP_SCOPES]);
    await first.finishAuth(callback.searchParams.get("code")!);

    const mcp = new Client({ name: "hosted-public", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(resource, { authProvider: provider }));
    const userId = (await t.owner<{ id: string }[]>`select id from core.users where email = 'ada@example.com'`)[0]!.id;
    const key = (await createApiKey(t.adminDb, { userId, name: "host", permissions: {} })).key;
    const created = await fetch(`${api}/v3/events`, {
      method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(eventBody({ status: "PUBLISHED" })),
    });
    expect(created.status).toBe(201);
    const eventId = (await created.json()).id as string;
    type Result = { isError?: boolean; structuredContent?: Record<string, unknown> };
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await mcp.callTool({ name, arguments: args })) as Result;
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      return result.structuredContent!;
    };
    const reservation = await call("reserve_spot", { eventId });
    written.add((await call("get_my_ticket_link", { eventId, reservationId: reservation.id })).url as string);
    written.add((await call("request_wallet_link", { chainId: 31337 })).url as string);
    await mcp.close();
  });

  it("lets mcp-remote discover, register, sign in by e-mail code and call a tool on the public endpoint", { timeout: 120_000 }, async () => {
    const driver = startBrowserDriver();
    const configDir = mkdtempSync(join(tmpdir(), "mcp-remote-"));
    const callbackPort = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(REPO_ROOT, "node_modules", "mcp-remote", "dist", "proxy.js"), `${api}/mcp`, String(callbackPort), "--host", "127.0.0.1", "--transport", "http-only"],
      env: { ...driver.env, MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "hosted-mcp-remote", version: "1.0.0" });
    try {
      const connecting = client.connect(transport);
      const authorize = await driver.nextUrl(1, 60_000).catch((error) => {
        throw new Error(`${error.message}\nmcp-remote said:\n${stderr}`);
      });
      expect(authorize.origin + authorize.pathname).toBe(`${api}/oauth/authorize`);
      expect(authorize.searchParams.get("resource")).toBe(`${api}/mcp`);
      const person: OAuthTestContext = { ...t, mail, root: api, fetch: (input, init) => fetch(input, init) };
      const callback = await authorizeInBrowser(person, new Browser(person, hosted.origin), authorize.href, "remote@example.com");
      expect((await fetch(callback)).status).toBe(200); // mcp-remote's callback page took the code
      await connecting;
      const listed = await client.callTool({ name: "list_events", arguments: {} });
      expect(listed.isError, JSON.stringify(listed)).toBeFalsy();
    } finally {
      await client.close().catch(() => {});
      driver.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it("every link it wrote resolves under /functions/v1/api and answers 200, with the pages' own assets", async () => {
    const metadata = await (await fetch(`${api}/.well-known/openid-configuration`)).json();
    for (const url of [metadata.issuer, metadata.jwks_uri, metadata.service_documentation]) written.add(url);
    const resource = await (await fetch(`${api}/.well-known/oauth-protected-resource/mcp`)).json();
    written.add(resource.resource_documentation);
    expect(written.size).toBeGreaterThanOrEqual(6);
    for (const link of written) {
      expect(link.startsWith(`${api}`), link).toBe(true);
      if (link === metadata.issuer) continue; // the issuer is an identifier, not a page
      const url = new URL(link);
      url.hash = "";
      const answer = await fetch(url, { redirect: "manual" });
      expect(answer.status, link).toBe(200);
      if (!/text\/html/.test(answer.headers.get("content-type") ?? "")) continue;
      for (const [, src] of (await answer.text()).matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)) {
        const asset = new URL(src!, url);
        // Deployed, the docs page loads Scalar from jsDelivr (docs/quickstart.md), which this machine cannot reach.
        if (asset.origin !== url.origin) continue;
        expect((await fetch(asset)).status, `${src} on ${link}`).toBe(200);
      }
    }
  });

  // Both are built from outside the function folder (node_modules/qrcode-generator, packages/sdk),
  // which Supabase does not deploy: the function carries them as generated modules.
  it.each(["/tickets/assets/qrcode.js", "/sdk/v1/eventhub-sdk.js"])("serves %s without node_modules", async (path) => {
    const answer = await fetch(`${api}${path}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  });
});
