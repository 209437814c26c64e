// What the public MCP endpoint and its authorization server refuse. Each test names the
// rule it depends on.
import { SignJWT, UnsecuredJWT } from "jose";
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expectErrorBody, startOfRateLimitWindow } from "../setup/test-context.ts";
import {
  authorizeUrl, Browser, createOAuthTestContext, hiddenFields, issueTokens, mcpRequest, type OAuthTestContext, pkce, raceOnRowLock, RESOURCE, ROOT,
  startDocumentServer, tokenRequest,
} from "./oauth-fixtures.ts";

let ctx: OAuthTestContext;
beforeAll(async () => {
  ctx = await createOAuthTestContext({ MCP_RATE_LIMIT_PER_MINUTE: "1000", MCP_SIGN_IN_REQUESTS_PER_IP: "1000" });
});
afterAll(async () => {
  await ctx?.close();
});

const PRM = `${ROOT}/.well-known/oauth-protected-resource/mcp`;

/** A token signed with the service's development key but with claims of our choosing. */
async function forge(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: "HS256", typ: "at+jwt" }) {
  const key = new Uint8Array(createHmac("sha256", "development-mcp-token-secret-not-for-production").update("mcp-oauth:jwt").digest());
  return new SignJWT(claims).setProtectedHeader(header as never).sign(key);
}

describe("metadata", () => {
  it("serves protected resource metadata at the path-specific and the root well-known URLs", async () => {
    for (const url of [PRM, `${ROOT}/.well-known/oauth-protected-resource`]) {
      const body = await (await ctx.fetch(url)).json();
      expect(body).toMatchObject({ resource: RESOURCE, authorization_servers: [ROOT], bearer_methods_supported: ["header"] });
      expect(body.scopes_supported).toContain("events:read");
    }
  });

  it("advertises the code flow with S256 only, iss in responses, CIMD and the endpoints", async () => {
    const body = await (await ctx.fetch(`${ROOT}/.well-known/oauth-authorization-server`)).json();
    expect(body).toMatchObject({
      issuer: ROOT, response_types_supported: ["code"], grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"],
      authorization_response_iss_parameter_supported: true, client_id_metadata_document_supported: true,
      revocation_endpoint: `${ROOT}/oauth/revoke`, registration_endpoint: `${ROOT}/oauth/register`,
    });
  });
});

describe("/mcp credentials", () => {
  it("answers 401 with resource_metadata when no token is sent", async () => {
    const response = await mcpRequest(ctx, {});
    expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${PRM}"`);
    await expectErrorBody(response, 401, "missing_access_token");
  });

  it("never accepts an API key, even a valid one, alone or beside a token", async () => {
    const { key } = await ctx.userWithKey();
    const alone = await mcpRequest(ctx, { "x-api-key": key });
    expect(alone.headers.get("www-authenticate")).toContain('error="invalid_token"');
    await expectErrorBody(alone, 401, "api_key_not_accepted");
    const asBearer = await mcpRequest(ctx, { authorization: `Bearer ${key}` });
    await expectErrorBody(asBearer, 401, "invalid_token");
  });

  it("an access token is no credential anywhere else: the backend MCP endpoint and REST refuse it", async () => {
    const tokens = await issueTokens(ctx, "elsewhere@example.com", ["events:read"]);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    await expectErrorBody(await ctx.fetch(`${ROOT}/mcp/backend`, {
      method: "POST", headers: { ...bearer, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    }), 401, "wrong_auth_scheme");
    await expectErrorBody(await ctx.call("/api/v3/events", { headers: bearer }), 401, "wrong_auth_scheme");
    await expectErrorBody(await ctx.call("/api/v3/me/mcp-grants", { headers: bearer }), 401, "wrong_auth_scheme");
  });

  it("refuses any browser Origin by default (CORS_ALLOWED_ORIGINS *)", async () => {
    const tokens = await issueTokens(ctx, "browser@example.com", ["events:read"]);
    await expectErrorBody(await mcpRequest(ctx, { authorization: `Bearer ${tokens.access_token}`, origin: "https://evil.example" }), 403, "origin_not_allowed");
  });

  it("refuses a token for another audience, an expired one, alg none and garbage", async () => {
    const tokens = await issueTokens(ctx, "auditor@example.com", ["events:read"]);
    expect((await mcpRequest(ctx, { authorization: `Bearer ${tokens.access_token}` })).status).toBe(200);
    const claims = JSON.parse(Buffer.from(tokens.access_token.split(".")[1]!, "base64url").toString());
    const now = Math.floor(Date.now() / 1000);
    const cases = {
      otherAudience: await forge({ ...claims, aud: `${ROOT}/mcp/backend` }),
      expired: await forge({ ...claims, iat: now - 1200, exp: now - 600 }),
      noTyp: await forge(claims, { alg: "HS256" }),
      otherKey: await new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "at+jwt" }).sign(new Uint8Array(32)),
      algNone: new UnsecuredJWT(claims).encode(),
      garbage: "not-a-token",
    };
    for (const [name, token] of Object.entries(cases)) {
      const response = await mcpRequest(ctx, { authorization: `Bearer ${token}` });
      expect(response.headers.get("www-authenticate"), name).toContain('error="invalid_token"');
      await expectErrorBody(response, 401, "invalid_token");
    }
  });

  it("refuses a token signed with the right key whose person, client or scopes are not its grant's", async () => {
    const tokens = await issueTokens(ctx, "bound@example.com", ["events:read"]);
    const other = await ctx.userWithKey();
    const claims = JSON.parse(Buffer.from(tokens.access_token.split(".")[1]!, "base64url").toString());
    const cases = {
      anotherPerson: await forge({ ...claims, sub: other.id }),
      anotherClient: await forge({ ...claims, client_id: "https://another.example/client.json" }),
      widerScopes: await forge({ ...claims, scope: "events:read events:write" }),
    };
    for (const [name, token] of Object.entries(cases)) {
      const response = await mcpRequest(ctx, { authorization: `Bearer ${token}` });
      expect(response.headers.get("www-authenticate"), name).toContain('error="invalid_token"');
      await expectErrorBody(response, 401, "invalid_token");
    }
    expect((await mcpRequest(ctx, { authorization: `Bearer ${await forge(claims)}` })).status).toBe(200);
  });

  it("refuses tokens of a grant the person revoked (REST with their API key), and an access token revoked by the client", async () => {
    const tokens = await issueTokens(ctx, "revoker@example.com", ["events:read"]);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    expect((await mcpRequest(ctx, bearer)).status).toBe(200);
    const [user] = await ctx.owner`select id from core.users where email = 'revoker@example.com'`;
    const key = (await import("../../scripts/lib/admin-operations.ts")).createApiKey;
    const apiKey = await key(ctx.adminDb, { userId: user!.id, name: "k", permissions: {} });
    const list = await (await ctx.call("/api/v3/me/mcp-grants", { key: apiKey.key })).json();
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ clientId: tokens.clientId, clientName: "Fixture Client", scopes: ["events:read"], resource: RESOURCE });
    // Another user can neither see nor revoke it.
    const other = await ctx.userWithKey();
    expect((await (await ctx.call("/api/v3/me/mcp-grants", { key: other.key })).json()).items).toEqual([]);
    await expectErrorBody(await ctx.call(`/api/v3/me/mcp-grants/${list.items[0].id}`, { method: "DELETE", key: other.key }), 404, "not_found");
    expect((await mcpRequest(ctx, bearer)).status).toBe(200);

    expect((await ctx.call(`/api/v3/me/mcp-grants/${list.items[0].id}`, { method: "DELETE", key: apiKey.key })).status).toBe(204);
    await expectErrorBody(await mcpRequest(ctx, bearer), 401, "invalid_token");
    const refreshed = await tokenRequest(ctx, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: tokens.clientId });
    expect(await refreshed.json()).toMatchObject({ error: "invalid_grant" });

    // RFC 7009: the client revokes one access token; the grant's other tokens still work.
    const second = await issueTokens(ctx, "revoker2@example.com", ["events:read"]);
    const revoked = await ctx.fetch(`${ROOT}/oauth/revoke`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: second.access_token, client_id: second.clientId }),
    });
    expect(revoked.status).toBe(200);
    await expectErrorBody(await mcpRequest(ctx, { authorization: `Bearer ${second.access_token}` }), 401, "invalid_token");
    const next = await (await tokenRequest(ctx, { grant_type: "refresh_token", refresh_token: second.refresh_token, client_id: second.clientId })).json();
    expect((await mcpRequest(ctx, { authorization: `Bearer ${next.access_token}` })).status).toBe(200);
  });

  it("answers 403 insufficient_scope naming every scope a tool needs, and does not list it", async () => {
    const tokens = await issueTokens(ctx, "scoped@example.com", ["hubs:read"]);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const response = await mcpRequest(ctx, bearer, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_events", arguments: {} } });
    expect(response.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(response.headers.get("www-authenticate")).toContain('scope="events:read"');
    const body = await expectErrorBody(response, 403, "insufficient_scope");
    expect(body.details).toEqual({ requiredScopes: ["events:read"] });
    const listed = await mcpRequest(ctx, bearer, { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} });
    const text = await listed.text();
    expect(text).toContain("list_hubs");
    expect(text).not.toContain("list_events");
  });

  it("refuses a foreign Origin when origins are configured", async () => {
    const strict = await createOAuthTestContext({ CORS_ALLOWED_ORIGINS: "https://app.example" });
    try {
      const tokens = await issueTokens(strict, "origin@example.com", ["events:read"]);
      const bearer = { authorization: `Bearer ${tokens.access_token}` };
      await expectErrorBody(await mcpRequest(strict, { ...bearer, origin: "https://evil.example" }), 403, "origin_not_allowed");
      expect((await mcpRequest(strict, { ...bearer, origin: "https://app.example" })).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe("per-grant rate limit", () => {
  it("answers 429 with Retry-After past MCP_RATE_LIMIT_PER_MINUTE", async () => {
    const limited = await createOAuthTestContext({ MCP_RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const tokens = await issueTokens(limited, "busy@example.com", ["events:read"]);
      const bearer = { authorization: `Bearer ${tokens.access_token}` };
      await startOfRateLimitWindow();
      const answers = [];
      for (let i = 0; i < 7; i++) answers.push(await mcpRequest(limited, bearer));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429, 429, 429, 429]);
      expect(Number(answers[3]!.headers.get("retry-after"))).toBeGreaterThan(0);
      await expectErrorBody(answers[3]!, 429, "rate_limited");
    } finally {
      await limited.close();
    }
  });
});

describe("token endpoint", () => {
  it("rotates refresh tokens; a reuse revokes the grant and its newest tokens", async () => {
    const tokens = await issueTokens(ctx, "rotate@example.com", ["events:read"]);
    const first = await (await tokenRequest(ctx, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: tokens.clientId })).json();
    expect(first.refresh_token).toMatch(/^mcr_/);
    const reuse = await tokenRequest(ctx, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: tokens.clientId });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: "invalid_grant", code: "invalid_grant" });
    const newest = await tokenRequest(ctx, { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: tokens.clientId });
    expect(await newest.json()).toMatchObject({ error: "invalid_grant" });
    await expectErrorBody(await mcpRequest(ctx, { authorization: `Bearer ${first.access_token}` }), 401, "invalid_token");
  });

  it("of 10 concurrent uses of one refresh token, one rotates and the reuse revokes the grant (row lock)", async () => {
    const tokens = await issueTokens(ctx, "race@example.com", ["events:read"]);
    const answers = await Promise.all(Array.from({ length: 10 }, () =>
      tokenRequest(ctx, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: tokens.clientId })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    const [grant] = await ctx.owner`select g.revoked_reason from mcp_oauth.grants g join core.users u on u.id = g.user_id where u.email = 'race@example.com'`;
    expect(grant!.revoked_reason).toBe("refresh_token_reuse");
  });

  it("a use that waits on another's uncommitted rotation finds the token rotated: a reuse (the row lock decides)", async () => {
    const tokens = await issueTokens(ctx, "lock@example.com", ["events:read"]);
    const { createHash } = await import("node:crypto");
    const hash = (t: string) => createHash("sha256").update(t).digest();
    const [won, lost] = await raceOnRowLock<{ error: string | null }>(ctx.url, (sql, n) =>
      sql`select * from mcp_oauth.rotate_refresh_token(${hash(tokens.refresh_token)}, ${tokens.clientId}, null, null, ${hash(`new-${n}`)}, 3600)`);
    expect(won.error).toBeNull();
    expect(lost.error).toBe("invalid_grant");
    const [grant] = await ctx.owner`select g.revoked_reason from mcp_oauth.grants g join core.users u on u.id = g.user_id where u.email = 'lock@example.com'`;
    expect(grant!.revoked_reason).toBe("refresh_token_reuse");
  });

  it("pins the resource: another one is invalid_target at authorize, token and refresh", async () => {
    const tokens = await issueTokens(ctx, "target@example.com", ["events:read"]);
    const refresh = await tokenRequest(ctx, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: tokens.clientId, resource: `${ROOT}/mcp/backend` });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: "invalid_target" });
    const { challenge } = pkce();
    const authorize = await ctx.fetch(authorizeUrl({ clientId: tokens.clientId, redirectUri: tokens.redirectUri, challenge, resource: "https://elsewhere.example/mcp" }));
    expect(authorize.status).toBe(303);
    const back = new URL(authorize.headers.get("location")!);
    expect(back.searchParams.get("error")).toBe("invalid_target");
    expect(back.searchParams.get("iss")).toBe(ROOT);
    expect(back.searchParams.get("state")).toBe("state-1");
  });

  it("redeems a code once, with the right verifier, client and redirect URI; a second redemption revokes the grant", async () => {
    const registered = await (await ctx.fetch(`${ROOT}/oauth/register`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Code Client", redirect_uris: ["http://127.0.0.1:9000/cb"] }),
    })).json();
    const { verifier, challenge } = pkce();
    const { authorizeInBrowser } = await import("./oauth-fixtures.ts");
    const callback = await authorizeInBrowser(ctx, new Browser(ctx), authorizeUrl({ clientId: registered.client_id, redirectUri: "http://127.0.0.1:9000/cb", challenge }), "codes@example.com");
    const code = callback.searchParams.get("code")!;
    const base = { grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1:9000/cb", client_id: registered.client_id, code_verifier: verifier };
    for (const wrong of [{ code_verifier: pkce().verifier }, { redirect_uri: "http://127.0.0.1:9001/cb" }, { client_id: "mcc_other" }]) {
      expect(await (await tokenRequest(ctx, { ...base, ...wrong })).json()).toMatchObject({ error: "invalid_grant" });
    }
    const ok = await tokenRequest(ctx, base);
    expect(ok.status).toBe(200);
    const { access_token } = await ok.json();
    expect(await (await tokenRequest(ctx, base)).json()).toMatchObject({ error: "invalid_grant" });
    await expectErrorBody(await mcpRequest(ctx, { authorization: `Bearer ${access_token}` }), 401, "invalid_token");
  });

  it("requires PKCE S256 at authorize", async () => {
    const tokens = await issueTokens(ctx, "pkce@example.com", ["events:read"]);
    const url = new URL(authorizeUrl({ clientId: tokens.clientId, redirectUri: tokens.redirectUri, challenge: pkce().challenge }));
    url.searchParams.set("code_challenge_method", "plain");
    const response = await ctx.fetch(url.toString());
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });
});

describe("redirect URIs and clients", () => {
  it("matches redirect URIs exactly (loopback on any port only) and never redirects to an unregistered one", async () => {
    const registered = await (await ctx.fetch(`${ROOT}/oauth/register`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Redirects", redirect_uris: ["http://127.0.0.1:5000/cb", "https://app.example/cb"] }),
    })).json();
    const { challenge } = pkce();
    const status = async (redirectUri: string) => (await ctx.fetch(authorizeUrl({ clientId: registered.client_id, redirectUri, challenge }))).status;
    expect(await status("http://127.0.0.1:6123/cb")).toBe(200); // another port: the sign-in page
    expect(await status("https://app.example/cb")).toBe(200);
    for (const bad of ["http://127.0.0.1:6123/cb2", "http://127.0.0.1:6123/cb?x=1", "https://app.example/cb/", "https://app.example:8443/cb",
      "https://evil.example/cb", "http://localhost:5000/cb", "http://127.0.0.1:6123/cb/../cb", "http://127.0.0.1:5000/x/../cb",
      "http://127.0.0.1:6123/%63b", "http://127.0.0.1:6123//cb", "https://app.example/cb/../cb", "HTTP://127.0.0.1:6123/cb"]) {
      const response = await ctx.fetch(authorizeUrl({ clientId: registered.client_id, redirectUri: bad, challenge }));
      expect(response.status, bad).toBe(400);
      expect(response.headers.get("location"), bad).toBeNull();
    }
  });

  it("refuses registrations with unsafe redirect URIs or client secrets", async () => {
    for (const body of [{ redirect_uris: ["http://evil.example/cb"] }, { redirect_uris: ["javascript:alert(1)"] },
      { redirect_uris: ["https://app.example/cb#x"] }, { redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "client_secret_basic" }]) {
      const response = await ctx.fetch(`${ROOT}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("refuses a Client ID Metadata Document whose client_id differs from its URL", async () => {
    const documents = await startDocumentServer();
    try {
      const url = `${documents.base}/impostor.json`;
      documents.documents.set("/impostor.json", JSON.stringify({ client_id: "https://claude.ai/oauth/client.json", client_name: "Claude", redirect_uris: ["http://127.0.0.1/cb"] }));
      const response = await ctx.fetch(authorizeUrl({ clientId: url, redirectUri: "http://127.0.0.1:5555/cb", challenge: pkce().challenge }));
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("client_id differs from its URL");
      const [cached] = await ctx.owner`select count(*)::int as n from mcp_oauth.clients where client_id = ${url}`;
      expect(cached!.n).toBe(0);
      // Over the size limit.
      documents.documents.set("/big.json", JSON.stringify({ client_id: `${documents.base}/big.json`, redirect_uris: ["http://127.0.0.1/cb"], pad: "x".repeat(20_000) }));
      const big = await ctx.fetch(authorizeUrl({ clientId: `${documents.base}/big.json`, redirectUri: "http://127.0.0.1:5555/cb", challenge: pkce().challenge }));
      expect(await big.text()).toContain("larger than");
    } finally {
      await documents.close();
    }
  });

  it("in production fetches metadata documents only over https from public addresses (SSRF), telling the caller no network detail", async () => {
    const production = await createOAuthTestContext({
      APP_ENV: "production", MCP_TOKEN_SECRET: "a-production-secret-for-this-test-only-0123", MCP_CIMD_TIMEOUT_MS: "1500",
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      // Each target and why it is refused: the address (checked on the literal, or in the
      // connection's own DNS lookup for a name), in the log only; the scheme, or the URL's shape,
      // which the caller chose, in the answer.
      const unreachable: Record<string, string> = {
        "https://127.0.0.1/client.json": "not reachable (loopback IPv4 address)",
        "https://10.1.2.3/client.json": "not reachable (private IPv4 address)",
        "https://169.254.169.254/latest/meta-data": "not reachable (link-local IPv4 address)",
        "https://[::1]/client.json": "not reachable (loopback IPv6 address)",
        "https://[::ffff:127.0.0.1]/client.json": "not reachable (loopback IPv4 address)",
        "https://192.168.1.1:8443/client.json": "not reachable (private IPv4 address)",
        "https://localhost/client.json": "refused localhost (127.0.0.1: loopback IPv4 address)",
      };
      const refusedShape: Record<string, string> = {
        "http://127.0.0.1:9/client.json": "unknown client_id",
        "https://user:pw@example.com/client.json": "must not carry credentials",
        "https://example.com/": "must have a path",
      };
      for (const [clientId, detail] of Object.entries(unreachable)) {
        const response = await production.fetch(authorizeUrl({ clientId, redirectUri: "http://127.0.0.1:5555/cb", challenge: pkce().challenge }));
        expect(response.status, clientId).toBe(400);
        const page = await response.text();
        expect(page, clientId).toContain("metadata document could not be fetched");
        expect(page, clientId).not.toContain("reachable");
        expect(page, clientId).not.toContain("127.0.0.1:");
        expect(logged.mock.calls.map((call) => call.join(" ")).join("\n"), clientId).toContain(detail);
      }
      for (const [clientId, reason] of Object.entries(refusedShape)) {
        const response = await production.fetch(authorizeUrl({ clientId, redirectUri: "http://127.0.0.1:5555/cb", challenge: pkce().challenge }));
        expect(response.status, clientId).toBe(400);
        expect(await response.text(), clientId).toContain(reason);
      }
    } finally {
      logged.mockRestore();
      await production.close();
    }
  });

  it("answers a closed port, like any failure to fetch a metadata document, with no network detail", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const response = await ctx.fetch(authorizeUrl({ clientId: "https://127.0.0.1:1/client.json", redirectUri: "http://127.0.0.1:5555/cb", challenge: pkce().challenge }));
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toContain("metadata document could not be fetched");
      expect(page).not.toMatch(/ECONNREFUSED|127\.0\.0\.1:1/);
      expect(logged.mock.calls.map((call) => call.join(" ")).join("\n")).toMatch(/ECONNREFUSED/);
    } finally {
      logged.mockRestore();
    }
  });
});

describe("pages", () => {
  it("refuse form posts from a foreign Origin (sign-in, code, consent, grants)", async () => {
    const browser = new Browser(ctx, "https://evil.example");
    for (const path of ["/oauth/sign-in", "/oauth/sign-in/verify", "/oauth/consent", "/oauth/grants/revoke"]) {
      const response = await browser.post(path, { email: "victim@example.com" });
      expect(response.status, path).toBe(403);
    }
    expect(ctx.mail.mails.filter((m) => m.to.includes("victim@example.com"))).toHaveLength(0);
  });

  it("the consent form needs the session's CSRF token", async () => {
    const tokens = await issueTokens(ctx, "csrf@example.com", ["events:read"]);
    const page = await (await tokens.browser.request(authorizeUrl({ clientId: tokens.clientId, redirectUri: tokens.redirectUri, challenge: pkce().challenge }))).text();
    const fields = hiddenFields(page);
    const forged = await tokens.browser.post("/oauth/consent", { ...fields, csrf: "forged", scope: "events:read", decision: "approve" });
    expect(forged.status).toBe(403);
  });

  it("lists the person's grants and revokes one", async () => {
    const tokens = await issueTokens(ctx, "pages@example.com", ["events:read"]);
    const page = await (await tokens.browser.request("/oauth/grants")).text();
    expect(page).toContain("Fixture Client");
    const revoked = await tokens.browser.post("/oauth/grants/revoke", hiddenFields(page));
    expect(revoked.status).toBe(303);
    expect(await (await tokens.browser.request("/oauth/grants")).text()).not.toContain("Fixture Client");
    await expectErrorBody(await mcpRequest(ctx, { authorization: `Bearer ${tokens.access_token}` }), 401, "invalid_token");
  });
});
