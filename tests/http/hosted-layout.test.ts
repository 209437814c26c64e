// One layout for local and hosted. On Supabase a request to <ref>.supabase.co/functions/v1/api/<rest>
// reaches the api function as /api/<rest>:
// - every surface of the api function answers under /api as it does at the local root;
// - with PUBLIC_API_ROOT the Supabase functions root, every URL the service writes (OAuth discovery
//   and metadata, WWW-Authenticate, the pages' forms and redirects, ticket and confirmation links)
//   points under /functions/v1/api, and following it through the platform's prefix strip answers 200.
//   An MCP SDK 1.x client finds the authorization server the way the MCP authorization spec has it
//   for an issuer with a path (OpenID discovery appended to the issuer).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_SCOPES } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { createApiKey } from "../../scripts/lib/admin-operations.ts";
import { eventBody } from "../events/event-fixtures.ts";
import { authorizeInBrowser, Browser, createOAuthTestContext, type OAuthTestContext, pkce } from "../mcp/oauth-fixtures.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { API, edgeFetch, FUNCTIONS_ROOT, SUPABASE_HOST as HOST } from "./edge-runtime.ts";

const ID = "a".repeat(24);

/** What the api function serves besides REST, with the status an anonymous request gets. */
const SURFACES: Array<[method: string, path: string, status: number]> = [
  ["GET", "/health", 200],
  ["GET", "/ready", 200],
  ["GET", "/llms.txt", 200],
  ["POST", "/mcp", 401],
  ["POST", "/mcp/backend", 401],
  ["POST", "/mcp/backend/x/events/readonly", 401],
  ["GET", "/.well-known/oauth-protected-resource/mcp", 200],
  ["GET", "/.well-known/oauth-protected-resource", 200],
  ["GET", "/.well-known/oauth-authorization-server", 200],
  ["GET", "/.well-known/openid-configuration", 200],
  ["GET", "/oauth/jwks.json", 200],
  ["GET", "/oauth/grants", 200],
  ["GET", "/oauth/sign-out", 200],
  ["GET", "/tickets", 200],
  ["GET", "/tickets/assets/page.js", 200],
  ["GET", `/checkout/${ID}`, 200],
  ["GET", "/checkout/assets/page.js", 200],
  ["GET", `/confirm/${ID}`, 200],
  ["GET", "/sdk/v1/eventhub-sdk.js", 200],
];

describe("every surface of the api function answers under /api as at the root", () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(SURFACES)("%s %s and /api%s", async (method, path, status) => {
    const init = { method, headers: { "content-type": "application/json" }, body: method === "POST" ? "{}" : undefined };
    expect((await t.app.request(path, init)).status).toBe(status);
    expect((await t.app.request(`/api${path}`, init)).status).toBe(status);
  });

  it("REST and the docs stay where they are, and the OpenAPI document lists each operation once", async () => {
    for (const path of ["/api/v3/docs", "/api/v3/openapi", "/api/auth/get-session"]) {
      expect((await t.app.request(path)).status, path).not.toBe(404);
    }
    const paths = Object.keys((await (await t.app.request("/api/v3/openapi")).json()).paths);
    expect(paths).toContain("/health");
    expect(paths.filter((path) => path.startsWith("/api/health") || path.startsWith("/api/api/"))).toEqual([]);
  });
});

describe("with PUBLIC_API_ROOT Supabase's functions root, every link resolves under /functions/v1/api", () => {
  let ctx: OAuthTestContext;
  let edge: OAuthTestContext["fetch"];
  /** Every URL the service wrote in this suite. */
  const written: string[] = [];
  const wrote = (url: string) => {
    written.push(url);
    return url;
  };

  beforeAll(async () => {
    const local = await createOAuthTestContext({
      PUBLIC_API_ROOT: FUNCTIONS_ROOT,
      TICKET_SIGNING_KEYS: await generateTicketSigningKey(),
      EVM_CHAINS: JSON.stringify([{ chainId: 31337, rpcUrl: "http://127.0.0.1:9/unused", confirmations: 1 }]),
    });
    edge = edgeFetch((request: Request, peer?: string) => local.fetch(request, undefined, peer));
    ctx = { ...local, root: FUNCTIONS_ROOT, fetch: edge };
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it("an MCP SDK 1.x client finds the protected resource and its authorization server from the 401", async () => {
    const refused = await edge(`${API}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(refused.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
    expect(resourceMetadataUrl?.href).toBe(wrote(`${API}/.well-known/oauth-protected-resource/mcp`));
    const resource = await discoverOAuthProtectedResourceMetadata(`${API}/mcp`, { resourceMetadataUrl }, edge);
    expect(resource).toMatchObject({ resource: wrote(`${API}/mcp`), authorization_servers: [API] });
    wrote(resource.resource_documentation!);
    const metadata = await discoverAuthorizationServerMetadata(resource.authorization_servers![0]!, { fetchFn: edge });
    expect(metadata).toMatchObject({
      issuer: API,
      authorization_endpoint: `${API}/oauth/authorize`,
      token_endpoint: `${API}/oauth/token`,
      registration_endpoint: `${API}/oauth/register`,
    });
    for (const url of [metadata!.authorization_endpoint, metadata!.token_endpoint, metadata!.registration_endpoint!, String(metadata!.jwks_uri)]) wrote(url);
    // The RFC 8414 form appended to the issuer answers too.
    expect((await edge(`${API}/.well-known/oauth-authorization-server`)).status).toBe(200);
  });

  it("the OpenAPI document's servers put every operation under its function, and the plain GETs answer there", async () => {
    const document = await (await ctx.call("/api/v3/openapi")).json();
    type Servers = { servers?: { url: string; variables?: Record<string, { default: string }> }[] };
    for (const [path, item] of Object.entries<Servers & Record<string, Servers>>(document.paths)) {
      for (const method of ["get", "post", "put", "patch", "delete"].filter((m) => item[m])) {
        const server = (item[method]!.servers ?? item.servers ?? document.servers)[0]!;
        // A server's variables (the app functions' {app_url}) at their defaults.
        const url = `${server.url.replace(/\{(\w+)\}/g, (_: string, name: string) => server.variables![name]!.default)}${path}`;
        // The app-backend functions' operations are at the host, /functions/v1/<name>.
        expect(url.startsWith(`${API}/`) || url === `${HOST}${path}` && /^\/functions\/v1\/[a-z-]+$/.test(path), url).toBe(true);
        if (method === "get" && !path.includes("{")) expect((await edge(url)).status, url).not.toBe(404);
      }
    }
  });

  it("signs in through the pages' own forms, and the ticket and confirmation links the tools write open", async () => {
    const metadata = (await discoverAuthorizationServerMetadata(API, { fetchFn: edge }))!;
    const redirectUri = "http://127.0.0.1:7777/cb";
    const registered = await edge(metadata.registration_endpoint!, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Hosted", redirect_uris: [redirectUri] }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = await registered.json();
    const { verifier, challenge } = pkce();
    const authorize = new URL(metadata.authorization_endpoint);
    authorize.search = new URLSearchParams({
      response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256",
      state: "s", resource: `${API}/mcp`, scope: MCP_SCOPES.join(" "),
    }).toString();
    const browser = new Browser(ctx, HOST);
    const callback = await authorizeInBrowser(ctx, browser, authorize.toString(), "ada@example.com", [...MCP_SCOPES]);
    const tokens = await (await edge(metadata.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: redirectUri, client_id: clientId,
        code_verifier: verifier, resource: `${API}/mcp`,
      }),
    })).json();
    expect(tokens.access_token).toBeTruthy();
    // The person's grants page (the sign-in's redirect) and its forms, under the function.
    const grantsPage = await (await browser.request(`${API}/oauth/grants`)).text();
    const actions = [...grantsPage.matchAll(/action="([^"]+)"/g)].map((m) => m[1]!);
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) wrote(action);

    const userId = (await ctx.owner<{ id: string }[]>`select id from core.users where email = 'ada@example.com'`)[0]!.id;
    const key = (await createApiKey(ctx.adminDb, { userId, name: "host", permissions: {} })).key;
    const eventId = (await (await ctx.call("/api/v3/events", { method: "POST", key, json: eventBody({ status: "PUBLISHED" }) })).json()).id;
    const client = new Client({ name: "hosted-layout-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${API}/mcp`), {
      fetch: edge, requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
    }));
    type Result = { isError?: boolean; structuredContent?: Record<string, unknown> };
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as Result;
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      return result.structuredContent!;
    };
    const reservation = await call("reserve_spot", { eventId });
    const ticket = wrote((await call("get_my_ticket_link", { eventId, reservationId: reservation.id })).url as string);
    const confirmation = wrote((await call("request_wallet_link", { chainId: 31337 })).url as string);
    await client.close();

    const page = await edge(ticket.split("#")[0]!);
    expect(page.status).toBe(200);
    // The page's assets, relative to it.
    for (const [, src] of (await page.text()).matchAll(/(?:src|href)="([^"]+)"/g)) wrote(new URL(src!, ticket).href);
    expect((await edge(confirmation.split("#")[0]!)).status).toBe(200);

    expect(written.length).toBeGreaterThan(10);
    for (const url of written) {
      expect(url.startsWith(`${API}/`), url).toBe(true);
      // The MCP endpoint, OAuth endpoints and forms: used above.
      if (/\/mcp$|\/oauth\/(authorize|token|register|sign-in|consent|grants\/revoke|sign-out)/.test(url)) continue;
      expect((await browser.request(url.split("#")[0]!)).status, url).toBe(200);
    }
  });
});
