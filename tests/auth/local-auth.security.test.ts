// The local auth server's refusals, as supabase-js surfaces them (Supabase Auth's error codes), and
// the gateway's refusal of every token it must not accept (one error body, 401, with request_id).
import { randomUUID } from "node:crypto";
import { decodeJwt, generateKeyPair, importJWK, SignJWT, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { createTestContext, expectErrorBody, startOfRateLimitWindow, TEST_JWT_SECRET, type TestContext } from "../setup/test-context.ts";
import { codeMailedTo, type LocalAuth, newAddress, PROJECT_URL, startLocalAuth, supabaseClient } from "./local-auth-fixtures.ts";

const MAX_ATTEMPTS = 3;
const REQUESTS_PER_IP = 4; // codes per IP per 15 minutes; tries per IP: twice that

let auth: LocalAuth;
let eventId: string;
beforeAll(async () => {
  auth = await startLocalAuth({ MCP_SIGN_IN_MAX_ATTEMPTS: String(MAX_ATTEMPTS), MCP_SIGN_IN_REQUESTS_PER_IP: String(REQUESTS_PER_IP) });
  eventId = await createEvent(auth.t, (await auth.t.userWithKey()).key);
});
afterAll(() => auth.close());

let peers = 0;
/** A client of its own address, so that per-IP limits of one test do not reach another. */
const client = () => supabaseClient(auth, `198.51.100.${++peers}`);

async function signedIn(supabase = client()) {
  const email = newAddress();
  const sent = auth.mail.mails.length;
  await supabase.auth.signInWithOtp({ email });
  const { data, error } = await supabase.auth.verifyOtp({ email, token: await codeMailedTo(auth.mail, email, sent), type: "email" });
  if (error) throw error;
  return { supabase, email, session: data.session! };
}

describe("codes", () => {
  it("a wrong code is otp_expired (403), and after the tries of a code even the right one is", async () => {
    const supabase = client();
    const email = newAddress();
    const sent = auth.mail.mails.length;
    await supabase.auth.signInWithOtp({ email });
    const code = await codeMailedTo(auth.mail, email, sent);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const { data, error } = await supabase.auth.verifyOtp({ email, token: wrong, type: "email" });
      expect(error).toMatchObject({ name: "AuthApiError", status: 403, code: "otp_expired" });
      expect(data.session).toBeNull();
    }
    expect((await supabase.auth.verifyOtp({ email, token: code, type: "email" })).error).toMatchObject({ code: "otp_expired" });
    expect(await auth.t.owner`select attempts from mcp_oauth.sign_in_codes where email = ${email}`).toEqual([{ attempts: MAX_ATTEMPTS }]);
  });

  it("a code works once", async () => {
    const { supabase, email } = await signedIn();
    const code = await codeMailedTo(auth.mail, email);
    expect((await supabase.auth.verifyOtp({ email, token: code, type: "email" })).error).toMatchObject({ code: "otp_expired" });
  });

  it("tries per IP are limited, whichever address they name (429 over_request_rate_limit with Retry-After)", async () => {
    await startOfRateLimitWindow();
    const peer = "203.0.113.7";
    const supabase = supabaseClient(auth, peer);
    for (let i = 0; i < REQUESTS_PER_IP * 2; i++) {
      expect((await supabase.auth.verifyOtp({ email: newAddress(), token: "000000", type: "email" })).error).toMatchObject({ code: "otp_expired" });
    }
    const { error } = await supabase.auth.verifyOtp({ email: newAddress(), token: "000000", type: "email" });
    expect(error).toMatchObject({ status: 429, code: "over_request_rate_limit" });
    const response = await auth.t.app.fetch(new Request(`${PROJECT_URL}/auth/v1/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: newAddress(), token: "000000", type: "email" }),
    }), { remoteAddr: { hostname: peer, port: 1 } });
    await expectErrorBody(response, 429, "over_request_rate_limit");
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("codes per IP are limited (429 over_email_send_rate_limit)", async () => {
    const supabase = client();
    for (let i = 0; i < REQUESTS_PER_IP; i++) expect((await supabase.auth.signInWithOtp({ email: newAddress() })).error).toBeNull();
    expect((await supabase.auth.signInWithOtp({ email: newAddress() })).error).toMatchObject({ status: 429, code: "over_email_send_rate_limit" });
  });

  it("refuses what it does not serve with validation_failed: another type, a token hash, a malformed address, user metadata", async () => {
    const supabase = client();
    const email = newAddress();
    expect((await supabase.auth.verifyOtp({ email, token: "123456", type: "magiclink" })).error).toMatchObject({ status: 400, code: "validation_failed" });
    expect((await supabase.auth.verifyOtp({ token_hash: "abc", type: "email" })).error).toMatchObject({ status: 400, code: "validation_failed" });
    expect((await supabase.auth.signInWithOtp({ email: "not an address" })).error).toMatchObject({ status: 400, code: "validation_failed" });
    // Addresses no relay takes as one recipient: a host that is no host name (the fuzzer's find, once
    // a 503 from the mailer), a list, a display name.
    for (const address of ["V*`a@O}$D", "a,b@example.test", "x<victim@example.test", "a@b..test"]) {
      expect((await supabase.auth.signInWithOtp({ email: address })).error).toMatchObject({ status: 400, code: "validation_failed" });
    }
    expect((await supabase.auth.signInWithOtp({ email, options: { data: { name: "x" } } })).error).toMatchObject({ status: 400, code: "validation_failed" });
  });
});

describe("refresh tokens", () => {
  it("a used refresh token presented again ends the session: its newest token and its user lookups die with it", async () => {
    const { supabase, session } = await signedIn();
    const refreshed = await supabase.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const replay = await client().auth.refreshSession({ refresh_token: session.refresh_token });
    expect(replay.error).toMatchObject({ status: 400, code: "refresh_token_already_used" });
    const newest = await client().auth.refreshSession({ refresh_token: refreshed.data.session!.refresh_token });
    expect(newest.error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
    expect((await client().auth.getUser(refreshed.data.session!.access_token)).error?.name).toBe("AuthSessionMissingError");
    expect(await auth.t.owner`select ended_reason from app_auth.sessions where id = ${decodeJwt(session.access_token).session_id as string}`)
      .toEqual([{ ended_reason: "refresh_token_reuse" }]);
  });

  it("an unknown refresh token is refresh_token_not_found; another grant type is validation_failed", async () => {
    expect((await client().auth.refreshSession({ refresh_token: "made-up" })).error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
    const response = await auth.t.call("/auth/v1/token?grant_type=password", { method: "POST", json: { email: "a@b.c", password: "x" } });
    await expectErrorBody(response, 400, "validation_failed");
    expect(response.headers.get("x-supabase-api-version")).toBe("2024-01-01");
  });
});

/** A token signed with `key` (a private JWK), the local server's claims unless overridden. */
async function token(key: string | CryptoKey | Uint8Array, header: Record<string, unknown>, claims: JWTPayload = {}) {
  const now = Math.floor(Date.now() / 1000);
  const signingKey = typeof key === "string" ? await importJWK(JSON.parse(key), "ES256") : key;
  return new SignJWT({ role: "authenticated", session_id: randomUUID(), email: "x@example.com", is_anonymous: false, ...claims })
    .setProtectedHeader(header as { alg: string })
    .setIssuer((claims.iss as string | undefined) ?? `${PROJECT_URL}/auth/v1`)
    .setSubject(randomUUID())
    .setAudience("authenticated")
    .setIssuedAt(now)
    .setExpirationTime((claims.exp as number | undefined) ?? now + 600)
    .sign(signingKey);
}

describe("tokens the gateway refuses: 401, the one error body, its request id", () => {
  const reserve = (bearer: string) =>
    auth.t.app.request(`/api/v3/events/${eventId}/reservations`, { method: "POST", headers: { authorization: `Bearer ${bearer}` } });

  async function expectRefused(bearer: string) {
    const response = await reserve(bearer);
    const body = await expectErrorBody(response, 401, "invalid_session");
    expect(body.request_id).toBe(response.headers.get("x-request-id"));
  }

  it("accepts the server's own tokens (the baseline of the cases below)", async () => {
    const { kid } = JSON.parse(auth.signingKey);
    const { session } = await signedIn();
    expect((await reserve(session.access_token)).status).toBe(201);
    expect((await reserve(await token(auth.signingKey, { alg: "ES256", kid }))).status).toBe(201);
  });

  it("refuses an expired token", async () => {
    const { kid } = JSON.parse(auth.signingKey);
    await expectRefused(await token(auth.signingKey, { alg: "ES256", kid }, { exp: Math.floor(Date.now() / 1000) - 60 }));
  });

  it("refuses a token of a foreign issuer, even signed with the server's key", async () => {
    const { kid } = JSON.parse(auth.signingKey);
    await expectRefused(await token(auth.signingKey, { alg: "ES256", kid }, { iss: "https://evil.example/auth/v1" }));
  });

  it("refuses an unsigned token (alg none)", async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const { kid } = JSON.parse(auth.signingKey);
    const payload = { iss: `${PROJECT_URL}/auth/v1`, sub: randomUUID(), aud: "authenticated", role: "authenticated", exp: Math.floor(Date.now() / 1000) + 600 };
    await expectRefused(`${encode({ alg: "none", kid })}.${encode(payload)}.`);
    await expectRefused(`${encode({ alg: "none" })}.${encode(payload)}.`);
  });

  it("refuses a token signed with another key, under the server's kid or another", async () => {
    const { kid } = JSON.parse(auth.signingKey);
    const { privateKey } = await generateKeyPair("ES256");
    await expectRefused(await token(privateKey, { alg: "ES256", kid }));
    await expectRefused(await token(privateKey, { alg: "ES256", kid: "another" }));
    await expectRefused(await token(privateKey, { alg: "ES256" }));
  });

  it("refuses HS256 signed with the server's public key (algorithm confusion) or with a secret not the configured one", async () => {
    const { kid, x, y } = JSON.parse(auth.signingKey);
    const publicText = new TextEncoder().encode(JSON.stringify({ kty: "EC", crv: "P-256", x, y }));
    await expectRefused(await token(publicText, { alg: "HS256", kid }));
    await expectRefused(await token(new TextEncoder().encode(`${TEST_JWT_SECRET}-not`), { alg: "HS256" }));
  });
});

describe("the server off (the default, and production's unless set)", () => {
  let off: TestContext;
  beforeAll(async () => {
    off = await createTestContext();
  });
  afterAll(() => off.close());

  it("serves no /auth/v1 route, documents none, and accepts none of its tokens", async () => {
    await expectErrorBody(await off.call("/auth/v1/otp", { method: "POST", json: { email: "ana@example.com" } }), 404, "not_found");
    await expectErrorBody(await off.call("/auth/v1/.well-known/jwks.json"), 404, "not_found");
    const document = await (await off.call("/api/v3/openapi")).json();
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/auth/"))).toEqual([]);
    const { kid } = JSON.parse(auth.signingKey);
    const refused = await off.app.request("/api/v3/sponsorship/balance?walletAddress=0x0000000000000000000000000000000000000001&chainId=1", {
      headers: { authorization: `Bearer ${await token(auth.signingKey, { alg: "ES256", kid })}` },
    });
    await expectErrorBody(refused, 401, "invalid_session");
  });

  it("the server's own routes take only its own tokens: a Supabase HS256 session is no session of /auth/v1/user", async () => {
    const hs = await token(new TextEncoder().encode(TEST_JWT_SECRET), { alg: "HS256" });
    await expectErrorBody(await auth.t.app.request("/auth/v1/user", { headers: { authorization: `Bearer ${hs}` } }), 401, "bad_jwt");
    await expectErrorBody(await auth.t.app.request("/auth/v1/user"), 401, "no_authorization");
    await expectErrorBody(await auth.t.app.request("/auth/v1/logout", { method: "POST", headers: { authorization: "Bearer x.y.z" } }), 401, "bad_jwt");
  });
});
