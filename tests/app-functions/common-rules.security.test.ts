// The rules every app-backend function keeps (SPEC 4.8, 7, 8), checked on each of the four at its
// Supabase path: CORS preflight for supabase-js's headers, POST and JSON only, the app session,
// the body validated before anything else, the per-person rate limit, and the one error body.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, startOfRateLimitWindow, type UserWithKey } from "../setup/test-context.ts";
import { APP_FUNCTIONS, type FunctionsWorld, startFunctionsWorld, VALID_BODIES } from "./function-fixtures.ts";

const LIMIT = 3;
let world: FunctionsWorld;
let user: UserWithKey;
let token: string;

beforeAll(async () => {
  world = await startFunctionsWorld({
    CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    DISCOVER_MCP_CAPABILITIES_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    RENAME_CHAT_FOR_EVENT_RATE_LIMIT_PER_MINUTE: String(LIMIT),
  });
  user = await world.t.userWithKey();
  token = await world.sessionToken(user);
});
afterAll(() => world.close());

/** What supabase-js sends: its published header list and the trace context it propagates. */
const SUPABASE_JS_HEADERS = "authorization, x-client-info, apikey, content-type, x-retry-count, traceparent, tracestate, baggage, x-region";

describe.each(APP_FUNCTIONS)("%s", (name) => {
  const url = `http://localhost/functions/v1/${name}`;

  it("answers the CORS preflight for every header supabase-js sends, without a session", async () => {
    const response = await world.fetch(new Request(url, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": SUPABASE_JS_HEADERS },
    }));
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = response.headers.get("access-control-allow-headers")!.split(",").map((h) => h.trim());
    expect(allowed).toEqual(expect.arrayContaining(SUPABASE_JS_HEADERS.split(", ")));
  });

  it("serves POST only: 405 with Allow", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const response = await world.fetch(new Request(url, { method, headers: { authorization: `Bearer ${token}` } }));
      await expectErrorBody(response, 405, "method_not_allowed");
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  it("refuses a request without a session, or with one that is not valid", async () => {
    await expectErrorBody(await world.post(name, VALID_BODIES[name]), 401, "missing_session");
    await expectErrorBody(await world.post(name, VALID_BODIES[name], undefined, { "x-api-key": user.key }), 401, "missing_session");
    const expired = await world.sessionToken(user, { expiresAt: Math.floor(Date.now() / 1000) - 60 });
    const forged = await world.sessionToken(user, { secret: "another-secret-that-is-long-enough-0123456789" });
    const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({
      sub: user.authUserId, role: "authenticated", aud: "authenticated", exp: Math.floor(Date.now() / 1000) + 300,
    })).toString("base64url")}.`;
    const anon = await new SignJWT({ role: "anon" }).setProtectedHeader({ alg: "HS256" }).setSubject(user.authUserId)
      .setAudience("authenticated").setExpirationTime("5m").sign(new TextEncoder().encode(world.t.config.JWT_SECRET!));
    for (const bad of [expired, forged, unsigned, anon, "not-a-jwt"]) {
      const response = await world.post(name, VALID_BODIES[name], bad);
      const body = await expectErrorBody(response, 401, "invalid_session");
      expect(response.headers.get("x-request-id")).toBe(body.request_id);
    }
  });

  it("refuses a token once it expires, though it was accepted before", async () => {
    const shortLived = await world.sessionToken(user, { expiresAt: Math.floor(Date.now() / 1000) + 2 });
    const first = await world.post(name, { ...(VALID_BODIES[name] as object), unexpected: true }, shortLived);
    await expectErrorBody(first, 400, "validation_failed");
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await expectErrorBody(await world.post(name, VALID_BODIES[name], shortLived), 401, "invalid_session");
  });

  it("checks the body before anything else: invalid JSON, another content type, an invalid field", async () => {
    const send = (body: string, contentType: string) =>
      world.fetch(new Request(url, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": contentType }, body }));
    await expectErrorBody(await send("{\"roomId\": ", "application/json"), 400, "invalid_json");
    await expectErrorBody(await send("{}", "text/plain"), 415, "unsupported_media_type");
    const invalid = await world.post(name, { ...(VALID_BODIES[name] as object), unexpected: true }, token);
    expect((await expectErrorBody(invalid, 400, "validation_failed")).details.issues.length).toBeGreaterThan(0);
  });
});

describe("per-person rate limits", () => {
  it.each(APP_FUNCTIONS)("%s: at most its limit a minute per person, then 429 with Retry-After", async (name) => {
    const person = await world.t.userWithKey();
    const other = await world.t.userWithKey();
    const [mine, theirs] = [await world.sessionToken(person), await world.sessionToken(other)];
    await startOfRateLimitWindow();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await world.post(name, VALID_BODIES[name], mine)).status);
    // Without a provider (none configured here, or none in the service yet) a valid call is 503; discovery answers 200.
    expect(new Set(statuses)).toEqual(new Set([name === "discover-mcp-capabilities" ? 200 : 503]));
    const limited = await world.post(name, VALID_BODIES[name], mine);
    await expectErrorBody(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Invalid requests are refused before the limit is counted; another person has a budget of their own.
    await expectErrorBody(await world.post(name, { nonsense: 1 }, mine), 400, "validation_failed");
    expect((await world.post(name, VALID_BODIES[name], theirs)).status).not.toBe(429);
  });
});

describe("functions without a configured provider", () => {
  it.each(APP_FUNCTIONS.filter((name) => name !== "discover-mcp-capabilities"))("%s answers 503 provider_not_configured", async (name) => {
    const person = await world.t.userWithKey();
    const response = await world.post(name, VALID_BODIES[name], await world.sessionToken(person));
    const body = await expectErrorBody(response, 503, "provider_not_configured");
    expect(body.message).toContain(name);
  });
});
