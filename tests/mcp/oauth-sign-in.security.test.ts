// The e-mail code sign-in. Codes are one-time, short-lived, stored only as keyed hashes,
// capped at MCP_SIGN_IN_MAX_ATTEMPTS tries, and rate-limited per (address, IP) and per IP; a new code
// ends the earlier one its client asked for. Mail goes through SMTP to a local server (oauth-fixtures.ts).
// The resend interval and the daily cap on wrong codes: oauth-sign-in.lockout.security.test.ts.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedHash } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { Browser, createOAuthTestContext, hiddenFields, type OAuthTestContext, ROOT } from "./oauth-fixtures.ts";

let ctx: OAuthTestContext;
beforeAll(async () => {
  ctx = await createOAuthTestContext({ MCP_SIGN_IN_CODES_PER_ADDRESS: "3", MCP_SIGN_IN_REQUESTS_PER_IP: "8", MCP_SIGN_IN_MAX_ATTEMPTS: "3" });
});
afterAll(async () => {
  await ctx?.close();
});

/** Asks for a code from a client at `ip`; returns the response and the code page's hidden fields. */
async function requestCode(browser: Browser, email: string, ip = "198.51.100.7") {
  const response = await browser.request("/oauth/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email }),
  }, ip);
  return { response, fields: hiddenFields(await response.clone().text()) };
}

const verify = (browser: Browser, fields: Record<string, string>, code: string) => browser.post("/oauth/sign-in/verify", { ...fields, code });

/** The address's resend interval (a second in tests) passes. */
const resendIntervalPasses = () => new Promise((resolve) => setTimeout(resolve, ctx.config.MCP_SIGN_IN_RESEND_SECONDS * 1000 + 100));

describe("e-mail code sign-in", () => {
  it("mails a 6-digit code that signs in once; only its keyed hash is stored", async () => {
    const browser = new Browser(ctx);
    const before = ctx.mail.mails.length;
    const { response, fields } = await requestCode(browser, "Once@Example.com");
    expect(response.status).toBe(200);
    const code = await ctx.mail.codeFor("once@example.com", before);
    const [row] = await ctx.owner`select email, code_hash from mcp_oauth.sign_in_codes where id = ${fields.sign_in_id!}`;
    expect(row!.email).toBe("once@example.com");
    // The HMAC keyed with MCP_TOKEN_SECRET, bound to the address; not a plain SHA-256 of the code.
    const stored = Buffer.from(row!.code_hash).toString("hex");
    expect(stored).toBe(Buffer.from(keyedHash(ctx.config, "sign-in-code", `once@example.com:${code}`)).toString("hex"));
    expect(stored).not.toBe(createHash("sha256").update(code).digest("hex"));
    const ok = await verify(browser, fields, code);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe(`${ROOT}/oauth/grants`);
    expect(ok.headers.get("set-cookie")).toMatch(/^mcp_session=mcs_[A-Za-z0-9_-]{43}; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax/);
    // The same code again: spent.
    const again = await verify(new Browser(ctx), fields, code);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("expired or was used up");
    // The user was created with that address, once.
    const users = await ctx.owner`select id from core.users where lower(email) = 'once@example.com'`;
    expect(users).toHaveLength(1);
  });

  it("signs in as the existing user with that address (case-insensitively)", async () => {
    const existing = await ctx.userWithKey([], { email: "Known.Person@example.com" });
    const browser = new Browser(ctx);
    const before = ctx.mail.mails.length;
    const { fields } = await requestCode(browser, "known.person@EXAMPLE.com", "198.51.100.8");
    await verify(browser, fields, await ctx.mail.codeFor("known.person@example.com", before));
    const [session] = await ctx.owner`select user_id from mcp_oauth.browser_sessions order by created_at desc limit 1`;
    expect(session!.user_id).toBe(existing.id);
  });

  it("counts every wrong try; after the cap even the right code fails", async () => {
    const browser = new Browser(ctx);
    const before = ctx.mail.mails.length;
    const { fields } = await requestCode(browser, "guess@example.com", "198.51.100.9");
    const code = await ctx.mail.codeFor("guess@example.com", before);
    const wrong = code === "000000" ? "000001" : "000000";
    for (let i = 0; i < 3; i++) expect((await verify(browser, fields, wrong)).status).toBe(400);
    const late = await verify(browser, fields, code);
    expect(late.status).toBe(400);
    expect(await late.text()).toContain("expired or was used up");
  });

  it("a new code ends the earlier one its client asked for; an expired code fails", async () => {
    const browser = new Browser(ctx);
    let before = ctx.mail.mails.length;
    const first = await requestCode(browser, "twice@example.com", "198.51.100.10");
    const firstCode = await ctx.mail.codeFor("twice@example.com", before);
    await resendIntervalPasses();
    before = ctx.mail.mails.length;
    const second = await requestCode(browser, "twice@example.com", "198.51.100.10");
    const secondCode = await ctx.mail.codeFor("twice@example.com", before);
    expect((await verify(browser, first.fields, firstCode)).status).toBe(400);
    await ctx.owner`update mcp_oauth.sign_in_codes set expires_at = now() - interval '1 second' where id = ${second.fields.sign_in_id!}`;
    expect((await verify(browser, second.fields, secondCode)).status).toBe(400);
  });

  it("limits codes per address and IP and requests per IP, with Retry-After", async () => {
    const browser = new Browser(ctx);
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await requestCode(browser, "flood@example.com", "198.51.100.20")).response.status);
      await resendIntervalPasses();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another client still gets a code for the address.
    expect((await requestCode(browser, "flood@example.com", "198.51.100.21")).response.status).toBe(200);
    const perIp = [];
    for (let i = 0; i < 9; i++) perIp.push((await requestCode(browser, `spray${i}@example.com`, "198.51.100.99")).response);
    expect(perIp.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    expect(Number(perIp[8]!.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
