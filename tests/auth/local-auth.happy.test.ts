// The local auth server as the check-in app uses it: supabase-js 2.109 signs in by e-mail code (the
// code read from the mailbox the server mailed it to), reads its user, calls the REST API with its
// session, refreshes it and signs out. The app is called in process (supabase-js's own fetch
// option); tests/auth/supabase-js.e2e.test.ts runs the same client against npm start's gateway.
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { type UserWithKey } from "../setup/test-context.ts";
import { codeMailedTo, type LocalAuth, newAddress, PROJECT_URL, startLocalAuth, supabaseClient } from "./local-auth-fixtures.ts";

let auth: LocalAuth;
let host: UserWithKey;
let eventId: string;
beforeAll(async () => {
  auth = await startLocalAuth();
  host = await auth.t.userWithKey();
  eventId = await createEvent(auth.t, host.key);
});
afterAll(() => auth.close());

async function signIn(email: string, supabase = supabaseClient(auth)) {
  const sent = auth.mail.mails.length;
  let requested = await supabase.auth.signInWithOtp({ email });
  if (requested.error?.status === 429) {
    // A code was sent to the address within its resend interval: wait it out, as the app would.
    await new Promise((resolve) => setTimeout(resolve, auth.t.config.MCP_SIGN_IN_RESEND_SECONDS * 1000));
    requested = await supabase.auth.signInWithOtp({ email });
  }
  expect(requested.error).toBeNull();
  const verified = await supabase.auth.verifyOtp({ email, token: await codeMailedTo(auth.mail, email, sent), type: "email" });
  expect(verified.error).toBeNull();
  return { supabase, session: verified.data.session!, user: verified.data.user! };
}

describe("sign-in by e-mail code", () => {
  it("mails a code that signs in, making the user with that address, with Supabase Auth's session and claims", async () => {
    const email = newAddress();
    const { session, user } = await signIn(email);
    const [row] = await auth.t.owner`select id, auth_user_id from core.users where email = ${email}`;
    expect(user).toMatchObject({ id: row!.auth_user_id, email, aud: "authenticated", role: "authenticated", is_anonymous: false });
    expect(session).toMatchObject({ token_type: "bearer", expires_in: 3600, user: { id: row!.auth_user_id } });
    expect(session.expires_at).toBeGreaterThan(Date.now() / 1000 + 3500);

    const { kid } = JSON.parse(auth.signingKey);
    expect(decodeProtectedHeader(session.access_token)).toEqual({ alg: "ES256", kid, typ: "JWT" });
    const claims = decodeJwt(session.access_token);
    expect(claims).toMatchObject({
      iss: `${PROJECT_URL}/auth/v1`, sub: row!.auth_user_id, aud: "authenticated", role: "authenticated", email, is_anonymous: false,
      aal: "aal1", amr: [{ method: "otp" }],
    });
    expect(claims.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await auth.t.owner`select user_id, method from app_auth.sessions where id = ${claims.session_id as string}`)
      .toEqual([{ user_id: row!.id, method: "otp" }]);
    // Only the hash of the refresh token is kept.
    expect(await auth.t.owner`select 1 from app_auth.refresh_tokens where token_hash = sha256(${session.refresh_token}::bytea)`).toHaveLength(1);
  });

  it("signs in a known address, in any case, as its user", async () => {
    const email = newAddress("known");
    const known = await auth.t.userWithKey([], { email });
    const { user } = await signIn(email.toUpperCase());
    expect(user.id).toBe(known.authUserId);
  });

  it("mails the code the OAuth pages mail: same words, one per request", async () => {
    const email = newAddress();
    const sent = auth.mail.mails.length;
    await supabaseClient(auth).auth.signInWithOtp({ email });
    const mails = auth.mail.mails.slice(sent);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.raw).toMatch(/Your sign-in code is \d{6}/);
  });

  it("with shouldCreateUser: false mails only an address that has a user (422 otp_disabled otherwise)", async () => {
    const supabase = supabaseClient(auth);
    const stranger = newAddress("stranger");
    const sent = auth.mail.mails.length;
    const refused = await supabase.auth.signInWithOtp({ email: stranger, options: { shouldCreateUser: false } });
    expect(refused.error).toMatchObject({ status: 422, code: "otp_disabled" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(auth.mail.mails.slice(sent).filter((m) => m.to.includes(stranger))).toEqual([]);

    const member = newAddress("member");
    await auth.t.userWithKey([], { email: member });
    expect((await supabase.auth.signInWithOtp({ email: member, options: { shouldCreateUser: false } })).error).toBeNull();
    expect(await codeMailedTo(auth.mail, member, sent)).toMatch(/^\d{6}$/);
  });
});

describe("the session", () => {
  it("reads its user, verifies its claims against the published key, and calls the API as its user", async () => {
    const email = newAddress();
    const { supabase, session } = await signIn(email);
    const read = await supabase.auth.getUser();
    expect(read.error).toBeNull();
    expect(read.data.user).toMatchObject({ id: session.user.id, email });

    // getClaims verifies the ES256 signature with the key from /auth/v1/.well-known/jwks.json.
    const claims = await supabase.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims).toMatchObject({ sub: session.user.id, session_id: decodeJwt(session.access_token).session_id });

    const reserved = await auth.t.app.request(`/api/v3/events/${eventId}/reservations`, {
      method: "POST",
      headers: { authorization: `Bearer ${session.access_token}` },
    });
    expect(reserved.status).toBe(201);
    const { id } = await reserved.json();
    expect(await auth.t.owner`select u.email from checkin.reservations r join core.users u on u.id = r.user_id where r.id = ${id}`)
      .toEqual([{ email }]);
  });

  it("refreshes into a new access token and refresh token, in the same session", async () => {
    const { supabase, session } = await signIn(newAddress());
    const refreshed = await supabase.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const next = refreshed.data.session!;
    expect(next.refresh_token).not.toBe(session.refresh_token);
    expect(decodeJwt(next.access_token).session_id).toBe(decodeJwt(session.access_token).session_id);
    expect((await supabase.auth.getUser()).data.user?.id).toBe(session.user.id);
    expect((await supabase.auth.refreshSession()).error).toBeNull();
  });

  it("signs out: the refresh token is refused and getUser finds no session", async () => {
    const { supabase, session } = await signIn(newAddress());
    expect((await supabase.auth.signOut()).error).toBeNull();
    const again = await supabaseClient(auth).auth.refreshSession({ refresh_token: session.refresh_token });
    expect(again.error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
    const user = await supabaseClient(auth).auth.getUser(session.access_token);
    expect(user.error?.name).toBe("AuthSessionMissingError");
  });

  it("a local sign-out ends this session and keeps the person's others; a global one ends them all", async () => {
    const email = newAddress();
    const phone = await signIn(email);
    const laptop = await signIn(email);
    const tablet = await signIn(email);
    expect((await laptop.supabase.auth.signOut({ scope: "local" })).error).toBeNull();
    expect((await supabaseClient(auth).auth.getUser(laptop.session.access_token)).error?.name).toBe("AuthSessionMissingError");
    expect((await supabaseClient(auth).auth.getUser(phone.session.access_token)).error).toBeNull();
    expect((await phone.supabase.auth.signOut()).error).toBeNull();
    expect((await supabaseClient(auth).auth.getUser(tablet.session.access_token)).error?.name).toBe("AuthSessionMissingError");
  });
});
