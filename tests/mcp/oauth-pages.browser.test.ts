// The sign-in, consent and grants pages in a real browser (Debian's Chromium driven by
// playwright-core) at desktop (1280 px) and phone (375 px) widths: the forms work without any
// script, nothing overflows the phone's width, and screenshots land in .local/screenshots. Sign-out:
// the grants page's button (reached with the keyboard) and the confirmation page's link.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser as Chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { type MailCatcher, pkce, serveOverHttp, startMailCatcher } from "./oauth-fixtures.ts";

const SCREENSHOTS = join(REPO_ROOT, ".local", "screenshots");

let ctx: TestContext;
let mail: MailCatcher;
let served: Awaited<ReturnType<typeof serveOverHttp>>;
let root: string;
let browser: Chromium;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  mail = await startMailCatcher();
  served = await serveOverHttp(() => ctx.app);
  root = served.root;
  ctx = await createTestContext({ SMTP_URL: mail.url, MAIL_FROM: "Events <no-reply@example.test>", PUBLIC_API_ROOT: root });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
});
afterAll(async () => {
  await browser?.close();
  await ctx?.close();
  await mail?.close();
  await served?.close();
});

async function shoot(page: Page, name: string, width: number): Promise<void> {
  await page.setViewportSize({ width, height: width < 500 ? 740 : 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} at ${width} px overflows by ${overflow} px`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(SCREENSHOTS, `mcp-oauth-${name}-${width}.png`), fullPage: true });
}

/** Signs `page` in from the grants page by e-mail code; ends on the grants page. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${root}/oauth/grants`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  const before = mail.mails.length;
  await page.getByLabel("E-mail address").fill(email);
  await page.getByRole("button", { name: "Send code" }).click();
  await page.getByLabel("Code").fill(await mail.codeFor(email, before));
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("heading", { name: "Connected assistants" }).waitFor();
}

const sessionCookie = async (context: BrowserContext) => (await context.cookies(root)).find((c) => c.name === "mcp_session");

describe("sign-in, consent and grants pages in Chromium", () => {
  it("walks a person from the e-mail form to the client's redirect, then lists and revokes the grant", async () => {
    const registered = await (await ctx.app.fetch(new Request(`${root}/oauth/register`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Research Assistant", redirect_uris: ["http://127.0.0.1/callback"] }),
    }))).json();
    const { challenge } = pkce();
    const authorize = new URL(`${root}/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: "code", client_id: registered.client_id, redirect_uri: "http://127.0.0.1:45678/callback",
      code_challenge: challenge, code_challenge_method: "S256", state: "xyz", resource: `${root}/mcp` })) authorize.searchParams.set(k, v);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    let callback: URL | undefined;
    await page.route("http://127.0.0.1:45678/**", (route) => {
      callback = new URL(route.request().url());
      return route.fulfill({ status: 200, contentType: "text/plain", body: "back in the client" });
    });
    await page.goto(authorize.toString());
    await page.waitForSelector("h1:text-is('Sign in')");
    for (const width of [1280, 375]) await shoot(page, "sign-in", width);

    await page.fill("#email", "reader@example.com");
    await page.click("button[type=submit]");
    await page.waitForSelector("h1:text-is('Check your e-mail')");
    for (const width of [1280, 375]) await shoot(page, "code", width);
    await page.fill("#code", await mail.codeFor("reader@example.com"));
    await page.click("button[type=submit]");

    await page.waitForSelector("h1:has-text('Allow Research Assistant')");
    expect(await page.locator(".host").textContent()).toBe("127.0.0.1:45678");
    expect(await page.locator("input[name=scope]:checked").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value)))
      .toEqual(["events:read", "hubs:read", "venues:read", "checkout:read", "sponsorship:read", "reservations:read", "checkin:read"]);
    for (const width of [1280, 375]) await shoot(page, "consent", width);
    await page.uncheck("input[value='sponsorship:read']");
    await page.check("input[value='events:write']");
    await page.click("button[value=approve]");
    await page.waitForURL(/127\.0\.0\.1:45678/);
    expect(callback?.searchParams.get("state")).toBe("xyz");
    expect(callback?.searchParams.get("iss")).toBe(root);
    expect(callback?.searchParams.get("code")).toMatch(/^mca_/);
    const [grant] = await ctx.owner`select scopes from mcp_oauth.grants`;
    expect(grant!.scopes).toEqual(["events:read", "hubs:read", "venues:read", "checkout:read", "reservations:read", "checkin:read", "events:write"]);

    await page.goto(`${root}/oauth/grants`);
    expect(await page.locator("ul.grants li").count()).toBe(1);
    expect(await page.locator("ul.grants").textContent()).toContain("Research Assistant");
    for (const width of [1280, 375]) await shoot(page, "grants", width);
    await page.click("ul.grants button");
    await page.waitForSelector("text=No assistant has access to your account.");
    await shoot(page, "grants-empty", 375);
    await context.close();
  });

  it("signs out from the grants page with the keyboard: the session ends and the cookie is gone", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, "shared-computer@example.com");
    const cookie = await sessionCookie(context);
    expect(cookie?.value).toMatch(/^mcs_/);
    expect(await page.locator(".account").textContent()).toContain("Signed in as shared-computer@example.com");
    // The first control on the page, reached with Tab and pressed with Enter.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign out");
    for (const width of [1280, 375]) await shoot(page, "grants-sign-out-focused", width);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Signed out" }).waitFor();
    expect(await page.getByRole("status").textContent()).toContain("You are signed out on this browser.");
    expect(await sessionCookie(context)).toBeUndefined();
    for (const width of [1280, 375]) await shoot(page, "signed-out", width);
    const [sessions] = await ctx.owner`select count(*)::int as count from mcp_oauth.browser_sessions s join core.users u on u.id = s.user_id
      where u.email = 'shared-computer@example.com'`;
    expect(sessions!.count).toBe(0);

    // "Sign in again" leads to the sign-in page; the old cookie, put back, signs no one in.
    await page.getByRole("link", { name: "Sign in again" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await context.addCookies([{ ...cookie!, expires: -1 }]);
    await page.goto(`${root}/oauth/grants`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await page.locator(".account").count()).toBe(0);
    await context.close();
  });

  it("the confirmation page links to sign-out once the person is signed in", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, "confirming@example.com");
    // The link's view stands in for a real pending confirmation (the confirmation suite has those).
    await page.route(`${root}/confirm/*/view`, (route) => route.fulfill({
      status: 200, contentType: "application/json",
      body: JSON.stringify({
        status: "pending", expiresAt: new Date(Date.now() + 600_000).toISOString(), actionHash: "a".repeat(64),
        title: "Link a wallet to your account", clientName: "Trip Planner", email: "confirming@example.com",
        rows: [{ label: "Wallet", after: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }], signer: null, approval: "signature",
      }),
    }));
    await page.goto(`${root}/confirm/${"b".repeat(24)}#token=mcf_${"c".repeat(43)}`);
    await page.getByRole("heading", { name: "Link a wallet to your account" }).waitFor();
    expect(await page.locator("#account").textContent()).toContain("Signed in as confirming@example.com");
    for (const width of [1280, 375]) await shoot(page, "confirm-sign-out", width);
    await page.getByRole("link", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign out" }).waitFor();
    expect(await page.locator("main").textContent()).toContain("You are signed in as confirming@example.com on this browser.");
    for (const width of [1280, 375]) await shoot(page, "sign-out-form", width);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Signed out" }).waitFor();
    expect(await sessionCookie(context)).toBeUndefined();
    await context.close();
  });
});
