// The public MCP endpoint's authorization server end to end with the SDK's real MCP
// Client and its OAuth support: discovery from the 401 (RFC 9728), metadata (RFC 8414), dynamic
// registration or a Client ID Metadata Document, PKCE, the e-mail code read from a local SMTP
// server, consent, the token exchange with `resource`, tools filtered by the granted scopes, and
// refresh with rotation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/client";
import { authorizeInBrowser, Browser, createOAuthTestContext, type OAuthTestContext, RESOURCE, ROOT, startDocumentServer } from "./oauth-fixtures.ts";

class MemoryProvider implements OAuthClientProvider {
  client?: { client_id: string };
  stored?: { access_token: string; refresh_token?: string; token_type: string; scope?: string };
  verifier = "";
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string, preknownClientId?: string) {
    if (preknownClientId) this.client = { client_id: preknownClientId };
  }
  get clientMetadata() {
    return { client_name: "Test Assistant", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() { return this.client; }
  saveClientInformation(info: { client_id: string }) { this.client = info; }
  tokens() { return this.stored as never; }
  saveTokens(tokens: never) { this.stored = tokens; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

let ctx: OAuthTestContext;
beforeAll(async () => {
  ctx = await createOAuthTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

/** Connects a Client through the whole flow; returns it with its provider. */
async function connectThroughOAuth(provider: MemoryProvider, email: string, scopes?: string[]) {
  const transport = () => new StreamableHTTPClientTransport(new URL(RESOURCE), { authProvider: provider, fetch: ctx.fetch });
  const first = transport();
  await expect(new Client({ name: "test", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const callback = await authorizeInBrowser(ctx, new Browser(ctx), provider.authorizationUrl!.toString(), email, scopes);
  expect(callback.searchParams.get("iss")).toBe(ROOT);
  await first.finishAuth(callback.searchParams);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport());
  return client;
}

describe("public MCP OAuth with the SDK client", () => {
  it("registers dynamically, signs in by e-mail code, consents to the read scopes and lists only the tools they allow", async () => {
    const provider = new MemoryProvider("http://127.0.0.1:8976/callback");
    const client = await connectThroughOAuth(provider, "ada@example.com");
    expect(provider.client?.client_id).toMatch(/^mcc_/);
    const authorize = provider.authorizationUrl!;
    expect(authorize.searchParams.get("resource")).toBe(RESOURCE);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(provider.stored?.scope?.split(" ").sort())
      .toEqual(["checkin:read", "checkout:read", "events:read", "hubs:read", "reservations:read", "sponsorship:read", "venues:read"]);

    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual([
      "get_check_in_counts", "get_checkout_session", "get_event", "get_event_access", "get_hub", "get_my_ticket_link", "get_nft_collection",
      "get_reservation", "get_sponsorship_balance", "get_sponsorship_settings", "list_checkout_webhook_deliveries", "list_event_reservations",
      "list_events", "list_hubs", "list_my_reservations", "list_nft_collections", "list_sponsorship_deposits", "list_sponsorship_usage",
      "search_venues",
    ]);
    const listed = await client.callTool({ name: "list_events", arguments: { take: 5 } });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({ items: [], hasMore: false });
    // The call was audited with the grant (the MCP core's audit).
    const [audit] = await ctx.owner`select endpoint, tool, outcome, client_id, scopes from mcp.tool_calls`;
    expect(audit).toMatchObject({ endpoint: "public", tool: "list_events", outcome: "ok", client_id: provider.client!.client_id });
    await client.close();

    // The person now exists, found by their e-mail, and the grant is theirs.
    const [user] = await ctx.owner`select id from core.users where email = 'ada@example.com'`;
    const [grant] = await ctx.owner`select user_id, client_name, scopes, resource from mcp_oauth.grants`;
    expect(grant).toMatchObject({ user_id: user!.id, client_name: "Test Assistant", resource: RESOURCE });
  });

  it("uses a Client ID Metadata Document as the client id, and narrows tools to the scopes the person chose", async () => {
    const documents = await startDocumentServer();
    try {
      const clientId = `${documents.base}/oauth/client.json`;
      const redirect = "http://127.0.0.1/callback"; // registered without a port: loopback redirects match on any port
      documents.documents.set("/oauth/client.json", JSON.stringify({
        client_id: clientId, client_name: "Metadata Client", redirect_uris: [redirect], token_endpoint_auth_method: "none",
      }));
      const provider = new MemoryProvider("http://127.0.0.1:49152/callback", clientId);
      const client = await connectThroughOAuth(provider, "grace@example.com", ["hubs:read"]);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["get_hub", "list_hubs"]);
      await client.close();
      const [cached] = await ctx.owner`select kind, client_name from mcp_oauth.clients where client_id = ${clientId}`;
      expect(cached).toEqual({ kind: "metadata_document", client_name: "Metadata Client" });
    } finally {
      await documents.close();
    }
  });

  it("refreshes: the SDK exchanges its refresh token for a new pair, pinned to the same resource", async () => {
    const provider = new MemoryProvider("http://127.0.0.1:8977/callback");
    const client = await connectThroughOAuth(provider, "linus@example.com", ["events:read"]);
    await client.close();
    const first = provider.stored!;
    const refreshed = await ctx.fetch(`${ROOT}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: provider.client!.client_id, resource: RESOURCE }),
    });
    expect(refreshed.status).toBe(200);
    const body = await refreshed.json();
    expect(body.refresh_token).not.toBe(first.refresh_token);
    expect(body).toMatchObject({ token_type: "Bearer", scope: "events:read", expires_in: 600 });
    const mcp = await ctx.fetch(RESOURCE, {
      method: "POST",
      headers: { authorization: `Bearer ${body.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
    });
    expect(mcp.status).toBe(200);
  });
});
