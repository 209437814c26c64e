// Sign-out of the sign-in pages' browser session, on the real Deno gateway over HTTP. The
// session row is deleted, so the old cookie signs no one in afterwards; the cookie is cleared with
// the attributes it was set with; the form is protected like the other forms (a foreign Origin gets
// the one error body, a wrong CSRF token a 403 page) and neither refusal ends the session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody } from "../setup/test-context.ts";
import { type OAuthGateway, startOAuthGateway } from "./oauth-driver.ts";
import { authorizeUrl, Browser, hiddenFields, pkce, signInByEmail } from "./oauth-fixtures.ts";

let ctx: OAuthGateway;
beforeAll(async () => {
  ctx = await startOAuthGateway();
});
afterAll(async () => {
  await ctx?.close();
});

/** A browser signed in as `email` on the grants page; its session cookie and the grants page. */
async function signedIn(email: string): Promise<{ browser: Browser; cookie: string; page: string }> {
  const browser = new Browser(ctx);
  const start = await (await browser.request("/oauth/grants")).text();
  const verified = await signInByEmail(ctx, browser, start, email);
  expect(verified.status).toBe(303);
  const cookie = browser.cookies.get("mcp_session")!;
  expect(cookie).toMatch(/^mcs_/);
  const page = await (await browser.request("/oauth/grants")).text();
  expect(page).toContain("<h1>Connected assistants</h1>");
  return { browser, cookie, page };
}

/** The sign-out form's hidden fields on `page`. */
function signOutFields(page: string): Record<string, string> {
  const form = /<form method="post" action="[^"]*\/oauth\/sign-out">.*?<\/form>/s.exec(page);
  expect(form, "the page has a sign-out form").not.toBeNull();
  return hiddenFields(form![0]);
}

const sessionsOf = async (email: string) =>
  Number((await ctx.owner`select count(*) from mcp_oauth.browser_sessions s join core.users u on u.id = s.user_id
    where lower(u.email) = ${email}`)[0]!.count);

/** A request carrying exactly `cookie` as the session cookie (a replay), with the page's own Origin on POSTs. */
function withCookie(cookie: string, path: string, fields?: Record<string, string>): Promise<Response> {
  const replay = new Browser(ctx);
  replay.cookies.set("mcp_session", cookie);
  return fields ? replay.post(path, fields) : replay.request(path);
}

describe("sign-out on the Deno gateway", () => {
  it("ends the session: the row is deleted, the cookie cleared, and the old cookie no longer signs in", async () => {
    const { browser, cookie, page } = await signedIn("leaving@example.com");
    expect(await sessionsOf("leaving@example.com")).toBe(1);
    const fields = signOutFields(page);
    expect(fields.csrf).toBeTruthy();

    const response = await browser.post("/oauth/sign-out", fields);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    // Cleared with the attributes it was set with (Path=/; HttpOnly; SameSite=Lax), at once.
    expect(response.headers.getSetCookie()).toEqual(["mcp_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"]);
    const body = await response.text();
    expect(body).toContain("<h1>Signed out</h1>");
    expect(body).toContain("You are signed out on this browser.");
    expect(body).toContain(`href="${ctx.root}/oauth/grants"`);
    expect(await sessionsOf("leaving@example.com")).toBe(0);

    // The old cookie replayed: the grants page asks to sign in, a revoke or a consent with the old
    // CSRF token does nothing but ask to sign in, and a second sign-out has no session to end.
    const grants = await (await withCookie(cookie, "/oauth/grants")).text();
    expect(grants).toContain("<h1>Sign in</h1>");
    expect(grants).not.toContain("leaving@example.com");
    const revoke = await withCookie(cookie, "/oauth/grants/revoke", { csrf: fields.csrf!, grant_id: "0".repeat(24) });
    expect(revoke.status).toBe(200);
    expect(await revoke.text()).toContain("<h1>Sign in</h1>");
    const form = await (await withCookie(cookie, "/oauth/sign-out")).text();
    expect(form).toContain("You are not signed in on this browser.");
    const again = await withCookie(cookie, "/oauth/sign-out", fields);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("You are not signed in on this browser.");
  });

  it("ends only this browser's session", async () => {
    const first = await signedIn("two-browsers@example.com");
    const second = await signedIn("two-browsers@example.com");
    expect(await sessionsOf("two-browsers@example.com")).toBe(2);
    expect((await first.browser.post("/oauth/sign-out", signOutFields(first.page))).status).toBe(200);
    expect(await (await withCookie(second.cookie, "/oauth/grants")).text()).toContain("<h1>Connected assistants</h1>");
    expect(await sessionsOf("two-browsers@example.com")).toBe(1);
  });

  it("refuses a cross-site POST with the one error body, and the session lives on", async () => {
    const { cookie, page } = await signedIn("targeted@example.com");
    const fields = signOutFields(page);
    for (const origin of ["https://evil.example", "null"]) {
      const forged = new Browser(ctx, origin);
      forged.cookies.set("mcp_session", cookie);
      const response = await forged.post("/oauth/sign-out", fields);
      expect(response.headers.getSetCookie(), origin).toEqual([]);
      await expectErrorBody(response, 403, "origin_not_allowed");
    }
    expect(await sessionsOf("targeted@example.com")).toBe(1);
    expect(await (await withCookie(cookie, "/oauth/grants")).text()).toContain("<h1>Connected assistants</h1>");
  });

  it("needs the session's CSRF token, like the other forms", async () => {
    const { cookie } = await signedIn("stale@example.com");
    for (const fields of [{}, { csrf: "forged" }] as Record<string, string>[]) {
      const response = await withCookie(cookie, "/oauth/sign-out", fields);
      expect(response.status).toBe(403);
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(await response.text()).toContain("This form is out of date.");
    }
    expect(await sessionsOf("stale@example.com")).toBe(1);
  });

  it("GET /oauth/sign-out shows the button alone, with the session's CSRF token", async () => {
    const { browser, cookie, page } = await signedIn("linked@example.com");
    const response = await browser.request("/oauth/sign-out");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("You are signed in as <strong>linked@example.com</strong>");
    expect(signOutFields(html).csrf).toBe(signOutFields(page).csrf);
    expect((await browser.post("/oauth/sign-out", signOutFields(html))).status).toBe(200);
    expect(await (await withCookie(cookie, "/oauth/grants")).text()).toContain("<h1>Sign in</h1>");
  });

  it("from the consent page: the signed-out page offers to sign in again for the same client", async () => {
    const registered = await (await ctx.fetch(`${ctx.root}/oauth/register`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Shared Laptop Client", redirect_uris: ["http://127.0.0.1:7777/cb"] }),
    })).json() as { client_id: string };
    const { browser } = await signedIn("consenting@example.com");
    const authorize = authorizeUrl({ clientId: registered.client_id, redirectUri: "http://127.0.0.1:7777/cb", challenge: pkce().challenge,
      resource: `${ctx.root}/mcp` }).replace(/^http:\/\/127\.0\.0\.1:54321/, ctx.root);
    const consent = await (await browser.request(authorize)).text();
    expect(consent).toContain("Signed in as <strong>consenting@example.com</strong>");
    const fields = signOutFields(consent);
    expect(fields.request).toBeTruthy();
    const body = await (await browser.post("/oauth/sign-out", fields)).text();
    expect(body).toContain("Sign in again to connect Shared Laptop Client");
    const again = /href="([^"]*\/oauth\/consent\?request=[^"]+)"/.exec(body)![1]!.replace(/&amp;/g, "&");
    // Without a session, the consent link shows the sign-in page for that client.
    expect(await (await browser.request(again)).text()).toContain("to connect <strong>Shared Laptop Client</strong>");
  });
});
