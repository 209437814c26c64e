// Nobody can lock another person out of the OAuth pages' e-mail code sign-in (the public MCP's):
// sends are counted per (address, client) and per client, an address gets one code per resend
// interval (429 with the seconds left), another client's request never ends the owner's pending
// code, and what bounds guessing is a daily cap on wrong guesses per address.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, createOAuthTestContext, hiddenFields, type OAuthTestContext, ROOT } from "./oauth-fixtures.ts";

const RESEND_SECONDS = 2;
const MAX_ATTEMPTS = 3;
const WRONG_CODES_PER_DAY = 4;

let ctx: OAuthTestContext;
beforeAll(async () => {
  ctx = await createOAuthTestContext({
    MCP_SIGN_IN_RESEND_SECONDS: String(RESEND_SECONDS),
    MCP_SIGN_IN_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    MCP_SIGN_IN_WRONG_CODES_PER_DAY: String(WRONG_CODES_PER_DAY),
  });
});
afterAll(async () => {
  await ctx?.close();
});

let peers = 0;
const newPeer = () => `198.51.100.${++peers}`;

/** Asks for a code on the sign-in page from a client at `peer`; the response and the code page's hidden fields. */
async function requestCode(browser: Browser, email: string, peer: string) {
  const response = await browser.request("/oauth/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email }),
  }, peer);
  return { response, fields: hiddenFields(await response.clone().text()) };
}

const verify = (browser: Browser, fields: Record<string, string>, code: string, peer: string) =>
  browser.request("/oauth/sign-in/verify", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...fields, code }),
  }, peer);

const resendIntervalPasses = () => new Promise((resolve) => setTimeout(resolve, RESEND_SECONDS * 1000 + 100));
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("code requests from one client do not lock another out", () => {
  it("an attacker's many requests for a known address: its owner, from their own browser, gets a code within the resend interval and signs in", async () => {
    const victim = "victim@example.com";
    await ctx.userWithKey([], { email: victim });
    const attacker = new Browser(ctx);
    const attackerPeer = newPeer();
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await requestCode(attacker, victim, attackerPeer)).response.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);

    const owner = new Browser(ctx);
    const ownerPeer = newPeer();
    const refused = (await requestCode(owner, victim, ownerPeer)).response;
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(RESEND_SECONDS);
    await resendIntervalPasses();
    const before = ctx.mail.mails.length;
    const { response, fields } = await requestCode(owner, victim, ownerPeer);
    expect(response.status).toBe(200);
    const code = await ctx.mail.codeFor(victim, before);

    // The attacker asks again once the interval allows: a new code is mailed, the owner's still works.
    await resendIntervalPasses();
    expect((await requestCode(attacker, victim, attackerPeer)).response.status).toBe(200);
    const signedIn = await verify(owner, fields, code, ownerPeer);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(`${ROOT}/oauth/grants`);
  });
});

describe("one code per address per resend interval", () => {
  it("a second code for the address within the interval is 429 with the seconds left, whichever client asks", async () => {
    const email = "resend@example.com";
    expect((await requestCode(new Browser(ctx), email, newPeer())).response.status).toBe(200);
    const again = (await requestCode(new Browser(ctx), email, newPeer())).response;
    expect(again.status).toBe(429);
    const wait = Number(again.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(RESEND_SECONDS);
    expect(await again.text()).toContain(`Try again in ${wait} seconds.`);
    await resendIntervalPasses();
    expect((await requestCode(new Browser(ctx), email, newPeer())).response.status).toBe(200);
  });
});

describe("wrong guesses are capped per address per day", () => {
  it("across codes and clients: past the cap even the right code is refused (429)", async () => {
    const email = "guessed@example.com";
    const first = new Browser(ctx);
    const firstPeer = newPeer();
    let before = ctx.mail.mails.length;
    const one = await requestCode(first, email, firstPeer);
    const firstCode = await ctx.mail.codeFor(email, before);
    for (let i = 0; i < MAX_ATTEMPTS; i++) expect((await verify(first, one.fields, wrongCode(firstCode), firstPeer)).status).toBe(400);
    await resendIntervalPasses();
    const second = new Browser(ctx);
    const secondPeer = newPeer();
    before = ctx.mail.mails.length;
    const two = await requestCode(second, email, secondPeer);
    const secondCode = await ctx.mail.codeFor(email, before);
    for (let i = MAX_ATTEMPTS; i < WRONG_CODES_PER_DAY; i++) {
      expect((await verify(second, two.fields, wrongCode(secondCode), secondPeer)).status).toBe(400);
    }
    const late = await verify(second, two.fields, secondCode, secondPeer);
    expect(late.status).toBe(429);
    expect(Number(late.headers.get("retry-after"))).toBeGreaterThan(23 * 3600);
    expect(late.headers.get("set-cookie")).toBeNull();
  });
});
