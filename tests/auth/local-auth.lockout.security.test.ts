// Nobody can lock another person out of the local auth server's e-mail code sign-in. Sends are
// counted per (address, client) and per client, an address gets one code per resend interval (429
// with the seconds left), another client's request never ends the owner's pending code, and what
// bounds guessing is a daily cap on wrong guesses per address. supabase-js calls the app in process,
// each client from its own peer address.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeMailedTo, type LocalAuth, newAddress, PROJECT_URL, startLocalAuth, supabaseClient } from "./local-auth-fixtures.ts";
import { connectionFrom, expectErrorBody } from "../setup/test-context.ts";

const RESEND_SECONDS = 2;
const MAX_ATTEMPTS = 3;
const WRONG_CODES_PER_DAY = 4;
const CODES_PER_ADDRESS_AND_CLIENT = 3;

let auth: LocalAuth;
beforeAll(async () => {
  auth = await startLocalAuth({
    MCP_SIGN_IN_RESEND_SECONDS: String(RESEND_SECONDS),
    MCP_SIGN_IN_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    MCP_SIGN_IN_WRONG_CODES_PER_DAY: String(WRONG_CODES_PER_DAY),
    MCP_SIGN_IN_CODES_PER_ADDRESS: String(CODES_PER_ADDRESS_AND_CLIENT),
  });
});
afterAll(() => auth.close());

let peers = 0;
const newPeer = () => `198.51.100.${++peers}`;

/** POST /auth/v1/otp from `peer`, as supabase-js sends it; the raw response (for Retry-After). */
const requestCode = (email: string, peer: string) =>
  auth.t.app.fetch(new Request(`${PROJECT_URL}/auth/v1/otp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, create_user: true }),
  }), connectionFrom(peer));

const resendIntervalPasses = () => new Promise((resolve) => setTimeout(resolve, RESEND_SECONDS * 1000 + 100));

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("code requests from one client do not lock another out", () => {
  it("an attacker's many requests for a known address: its owner, from their own client, still gets a code within the resend interval and signs in", async () => {
    const victim = newAddress("victim");
    await auth.t.userWithKey([], { email: victim });
    const attacker = newPeer();
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await requestCode(victim, attacker)).status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);

    // Asking at once, the owner waits only what is left of the interval, never a day.
    const ownerPeer = newPeer();
    const owner = supabaseClient(auth, ownerPeer);
    const refused = await requestCode(victim, ownerPeer);
    await expectErrorBody(refused, 429, "over_email_send_rate_limit");
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(RESEND_SECONDS);
    await resendIntervalPasses();
    const sent = auth.mail.mails.length;
    expect((await owner.auth.signInWithOtp({ email: victim, options: { shouldCreateUser: false } })).error).toBeNull();
    const code = await codeMailedTo(auth.mail, victim, sent);

    // The attacker asks again once the interval allows: a new code is mailed, the owner's still works.
    await resendIntervalPasses();
    expect((await requestCode(victim, attacker)).status).toBe(200);
    const { data, error } = await owner.auth.verifyOtp({ email: victim, token: code, type: "email" });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(victim);
  });

  it("sends are counted per address and client: one client's spent codes leave another client its own", async () => {
    const email = newAddress();
    const greedy = newPeer();
    const statuses = [];
    for (let i = 0; i <= CODES_PER_ADDRESS_AND_CLIENT; i++) {
      statuses.push((await requestCode(email, greedy)).status);
      await resendIntervalPasses();
    }
    expect(statuses).toEqual([...Array<number>(CODES_PER_ADDRESS_AND_CLIENT).fill(200), 429]);
    expect((await requestCode(email, newPeer())).status).toBe(200);
  });
});

describe("one code per address per resend interval", () => {
  it("a second code for the address within the interval is 429 over_email_send_rate_limit with the seconds left, whichever client asks", async () => {
    const email = newAddress();
    expect((await requestCode(email, newPeer())).status).toBe(200);
    for (const peer of [newPeer(), newPeer()]) {
      const again = await requestCode(email, peer);
      await expectErrorBody(again, 429, "over_email_send_rate_limit");
      const wait = Number(again.headers.get("retry-after"));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(RESEND_SECONDS);
    }
    await resendIntervalPasses();
    expect((await requestCode(email, newPeer())).status).toBe(200);
  });
});

describe("wrong guesses are capped per address per day", () => {
  it("across codes and clients: past the cap even the right code is refused (429), and no code is sent", async () => {
    const email = newAddress();
    const first = supabaseClient(auth, newPeer());
    let sent = auth.mail.mails.length;
    await first.auth.signInWithOtp({ email });
    const firstCode = await codeMailedTo(auth.mail, email, sent);
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect((await first.auth.verifyOtp({ email, token: wrongCode(firstCode), type: "email" })).error).toMatchObject({ code: "otp_expired" });
    }
    await resendIntervalPasses();
    const second = supabaseClient(auth, newPeer());
    sent = auth.mail.mails.length;
    await second.auth.signInWithOtp({ email });
    const secondCode = await codeMailedTo(auth.mail, email, sent);
    for (let i = MAX_ATTEMPTS; i < WRONG_CODES_PER_DAY; i++) {
      expect((await second.auth.verifyOtp({ email, token: wrongCode(secondCode), type: "email" })).error).toMatchObject({ code: "otp_expired" });
    }
    // The day's wrong guesses are spent: the right code of a live code is refused too.
    const late = await second.auth.verifyOtp({ email, token: secondCode, type: "email" });
    expect(late.error).toMatchObject({ status: 429, code: "over_request_rate_limit" });
    expect(late.data.session).toBeNull();
    await resendIntervalPasses();
    const refused = await requestCode(email, newPeer());
    await expectErrorBody(refused, 429, "over_email_send_rate_limit");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(23 * 3600);
  });
});
