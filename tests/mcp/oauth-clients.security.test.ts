// Client kinds and configuration of the authorization server: pre-registered clients,
// registration switched off, a person who denies, two redemptions of one code racing (the row lock
// decides), and production refusing to start without what it needs.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import {
  authorizeInBrowser, authorizeUrl, Browser, createOAuthTestContext, hiddenFields, type OAuthTestContext, pkce, raceOnRowLock, ROOT, tokenRequest,
} from "./oauth-fixtures.ts";

let ctx: OAuthTestContext;
beforeAll(async () => {
  ctx = await createOAuthTestContext({
    MCP_DYNAMIC_REGISTRATION: "false",
    MCP_PRE_REGISTERED_CLIENTS: JSON.stringify([{ client_id: "desktop-app", client_name: "Desktop App", redirect_uris: ["http://127.0.0.1/oauth/callback"] }]),
  });
});
afterAll(async () => {
  await ctx?.close();
});

const sha256 = (text: string) => createHash("sha256").update(text).digest();

describe("clients and configuration", () => {
  it("serves a pre-registered client; with registration off, /oauth/register is 404 and not advertised", async () => {
    const metadata = await (await ctx.fetch(`${ROOT}/.well-known/oauth-authorization-server`)).json();
    expect(metadata.registration_endpoint).toBeUndefined();
    const register = await ctx.fetch(`${ROOT}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: ["https://a.example/cb"] }) });
    expect(register.status).toBe(404);
    expect((await register.json()).error).toBe("registration_not_supported");

    const { verifier, challenge } = pkce();
    const redirectUri = "http://127.0.0.1:40001/oauth/callback";
    const callback = await authorizeInBrowser(ctx, new Browser(ctx), authorizeUrl({ clientId: "desktop-app", redirectUri, challenge }), "desk@example.com", ["venues:read"]);
    const response = await tokenRequest(ctx, { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: redirectUri, client_id: "desktop-app", code_verifier: verifier });
    expect(await response.json()).toMatchObject({ token_type: "Bearer", scope: "venues:read" });
  });

  it("a person who denies sends the client back with access_denied, and no grant is made", async () => {
    const browser = new Browser(ctx);
    const url = authorizeUrl({ clientId: "desktop-app", redirectUri: "http://127.0.0.1:40002/oauth/callback", challenge: pkce().challenge, state: "s-deny" });
    // Sign in first (through the grants page), then open the authorization: the consent page comes straight away.
    const { signInByEmail } = await import("./oauth-fixtures.ts");
    const signIn = await (await browser.request("/oauth/grants")).text();
    expect((await signInByEmail(ctx, browser, signIn, "deny@example.com")).status).toBe(303);
    const consent = await (await browser.request(url)).text();
    expect(consent).toContain("Allow <span>Desktop App</span>");
    const denied = await browser.post("/oauth/consent", { ...hiddenFields(consent), decision: "deny" });
    const back = new URL(denied.headers.get("location")!);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: "access_denied", state: "s-deny", iss: ROOT });
    const [count] = await ctx.owner`select count(*)::int as n from mcp_oauth.grants g join core.users u on u.id = g.user_id where u.email = 'deny@example.com'`;
    expect(count!.n).toBe(0);
  });

  it("of two redemptions of one code, the one waiting on the other's uncommitted one is a reuse (row lock)", async () => {
    const { verifier, challenge } = pkce();
    const redirectUri = "http://127.0.0.1:40003/oauth/callback";
    const callback = await authorizeInBrowser(ctx, new Browser(ctx), authorizeUrl({ clientId: "desktop-app", redirectUri, challenge }), "race-code@example.com", ["events:read"]);
    const code = sha256(callback.searchParams.get("code")!);
    const s256 = createHash("sha256").update(verifier).digest("base64url");
    const [won, lost] = await raceOnRowLock<{ error: string | null }>(ctx.url, (sql, n) =>
      sql`select * from mcp_oauth.redeem_authorization_code(${code}, 'desktop-app', ${redirectUri}, ${s256}, null, ${sha256(`r${n}`)}, 3600)`);
    expect(won.error).toBeNull();
    expect(lost.error).toBe("invalid_grant");
    const [grant] = await ctx.owner`select g.revoked_reason from mcp_oauth.grants g join core.users u on u.id = g.user_id where u.email = 'race-code@example.com'`;
    expect(grant!.revoked_reason).toBe("authorization_code_reuse");
  });

  it("production refuses to start without SMTP_URL, MAIL_FROM and MCP_TOKEN_SECRET", () => {
    const base = { GATEWAY_DATABASE_URL: "postgres://x@127.0.0.1/x", APP_ENV: "production", SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64") };
    expect(() => loadConfig(base)).toThrow(/SMTP_URL: required in production; MAIL_FROM: required in production; MCP_TOKEN_SECRET: required in production/);
    expect(() => loadConfig({ ...base, SMTP_URL: "smtp://relay:587", MAIL_FROM: "a@b.c", MCP_TOKEN_SECRET: "x".repeat(32) })).not.toThrow();
    expect(() => loadConfig({ ...base, MCP_PRE_REGISTERED_CLIENTS: "[{\"client_id\": \"a\"}]" })).toThrow(/MCP_PRE_REGISTERED_CLIENTS/);
  });
});
