// The check-in app's sign-in against the real gateway, started as npm start starts it, over HTTP:
// supabase-js 2.109 asks for a code, reads it from the SMTP server the gateway mailed it to, signs
// in, reads its user, reserves a seat through the REST API with its session, refreshes, signs out.
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { type MailSink, startMailSink } from "../../scripts/lib/mail-sink.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";
import { codeMailedTo, newAddress, supabaseClient } from "./local-auth-fixtures.ts";

let t: TestContext;
let mail: MailSink;
let gateway: GatewayProcess;
let eventId: string;

beforeAll(async () => {
  t = await createTestContext();
  mail = await startMailSink();
  eventId = await createEvent(t, (await t.userWithKey()).key);
  gateway = await startGatewayProcess({
    DATABASE_URL: t.url,
    SMTP_URL: mail.url,
    LOCAL_AUTH_ENABLED: "true",
    LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey(),
  });
});
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await mail?.close();
  await t?.close();
});

describe("supabase-js against npm start's gateway", () => {
  it("prints where supabase-js finds the auth server, with the local anon key", () => {
    expect(gateway.output()).toContain(`Auth          ${gateway.url}/auth/v1  (e-mail code sign-in for supabase-js: createClient("${gateway.url}", "local-anon-key"))`);
  });

  it("signs in by e-mail code, uses the session, refreshes it and signs out", async () => {
    const supabase = supabaseClient({ url: gateway.url });
    const email = newAddress("e2e");
    expect((await supabase.auth.signInWithOtp({ email })).error).toBeNull();
    const verified = await supabase.auth.verifyOtp({ email, token: await codeMailedTo(mail, email), type: "email" });
    expect(verified.error).toBeNull();
    const session = verified.data.session!;
    expect(decodeJwt(session.access_token)).toMatchObject({ iss: `${gateway.url}/auth/v1`, aud: "authenticated", email });

    expect((await supabase.auth.getUser()).data.user).toMatchObject({ id: session.user.id, email });
    expect((await supabase.auth.getClaims()).data?.claims).toMatchObject({ sub: session.user.id });

    const reserved = await fetch(`${gateway.url}/api/v3/events/${eventId}/reservations`, {
      method: "POST",
      headers: { authorization: `Bearer ${session.access_token}` },
    });
    expect(reserved.status).toBe(201);
    const { id } = await reserved.json();
    expect(await t.owner`select u.email from checkin.reservations r join core.users u on u.id = r.user_id where r.id = ${id}`).toEqual([{ email }]);

    const refreshed = await supabase.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const latest = refreshed.data.session!;
    expect(latest.refresh_token).not.toBe(session.refresh_token);

    expect((await supabase.auth.signOut()).error).toBeNull();
    expect((await supabase.auth.getSession()).data.session).toBeNull();
    const afterSignOut = await supabaseClient({ url: gateway.url }).auth.refreshSession({ refresh_token: latest.refresh_token });
    expect(afterSignOut.error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
  });

  it("answers a browser's preflight for supabase-js's headers and exposes the API version it reads errors by", async () => {
    const preflight = await fetch(`${gateway.url}/auth/v1/otp`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "apikey, authorization, content-type, x-client-info, x-supabase-api-version",
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = preflight.headers.get("access-control-allow-headers")!.toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(["apikey", "authorization", "content-type", "x-client-info", "x-supabase-api-version"]));

    const refused = await fetch(`${gateway.url}/auth/v1/verify`, {
      method: "POST",
      headers: { origin: "https://app.example", "content-type": "application/json" },
      body: JSON.stringify({ email: newAddress(), token: "000000", type: "email" }),
    });
    await expectErrorBody(refused, 403, "otp_expired");
    expect(refused.headers.get("x-supabase-api-version")).toBe("2024-01-01");
    expect(refused.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-supabase-api-version");
  });
});
