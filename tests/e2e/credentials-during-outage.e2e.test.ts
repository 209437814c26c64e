// A credential the database could not be asked about is never refused as unknown: with the database
// just gone, the first request with a never-seen credential of each kind (an API key, an app session
// whose user the gateway has not looked up, an OAuth access token, a client's or checkout's secret)
// answers 503 database_unavailable with Retry-After, exactly like the requests after it, never 401.
// The database is the rig's own throwaway cluster, never the shared one.
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signAccessToken } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { type OutageRig, startOutageRig, timeUntilServed } from "../../scripts/lib/database-outage.ts";

const JWT_SECRET = "outage-test-jwt-secret-that-is-long-enough-0123456789";
const GATEWAY_ENV = {
  JWT_SECRET,
  MCP_TOKEN_SECRET: "outage-test-mcp-token-secret-long-enough-0123456789",
  PUBLIC_API_ROOT: "http://gateway.outage.test",
};

let rig: OutageRig;

beforeAll(async () => {
  rig = await startOutageRig(GATEWAY_ENV);
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

const sessionToken = () =>
  new SignJWT({ role: "authenticated", email: `${randomUUID()}@outage.test` }).setProtectedHeader({ alg: "HS256" })
    .setSubject(randomUUID()).setAudience("authenticated").setIssuedAt().setExpirationTime("5m")
    .sign(new TextEncoder().encode(JWT_SECRET));

const accessToken = async () =>
  (await signAccessToken(loadConfig({ ...GATEWAY_ENV, GATEWAY_DATABASE_URL: rig.ownerUrl }), {
    userId: "65f0000000000000000000a1", clientId: "https://client.outage.test/metadata.json", grantId: "65f0000000000000000000a2",
    scopes: ["events:read"], resource: `${GATEWAY_ENV.PUBLIC_API_ROOT}/mcp`,
  })).token;

/** The first request of each credential kind, each with a credential the gateway has never seen. */
const firstRequests: Array<[string, () => Promise<{ path: string; init: RequestInit }>]> = [
  ["an API key", async () => ({ path: "/api/v3/me", init: { headers: { "x-api-key": rig.unseenKey } } })],
  ["an app session (its user not yet looked up)", async () => ({
    path: "/api/v3/me/reservations", init: { headers: { authorization: `Bearer ${await sessionToken()}` } },
  })],
  ["an OAuth access token", async () => ({
    path: "/mcp",
    init: {
      method: "POST",
      headers: { authorization: `Bearer ${await accessToken()}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    },
  })],
  ["an OAuth client at the token endpoint", async () => ({
    path: "/oauth/token",
    init: {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=refresh_token&refresh_token=mcr_${"a".repeat(43)}&client_id=mcc_${"b".repeat(32)}`,
    },
  })],
  ["a checkout client secret", async () => ({
    path: "/api/v3/checkout/sessions/65f0000000000000000000a3",
    init: { headers: { "x-checkout-client-secret": `cs_${"c".repeat(43)}` } },
  })],
];

describe("a credential that could not be checked is never refused", () => {
  const cases = (["immediate", "fast"] as const).flatMap((mode) => firstRequests.map(([kind, request]) => [kind, mode, request] as const));
  it.each(cases)("the first request with %s after the database stops (%s) is 503 database_unavailable with Retry-After", async (_, mode, request) => {
    // The gateway serves (its outage gate open, its pools connected), then the database goes away.
    expect(await timeUntilServed(rig, rig.acceptedKey, 60_000)).toBeDefined();
    const { path, init } = await request();
    rig.stopDatabase(mode);
    try {
      const response = await fetch(rig.gateway.url + path, init);
      const body = await response.json() as { code?: string; request_id?: string };
      expect({ status: response.status, code: body.code }).toEqual({ status: 503, code: "database_unavailable" });
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(body.request_id).toBeTruthy();
    } finally {
      rig.startDatabase();
    }
  }, 90_000);
});
