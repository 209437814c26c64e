// What the check-in suites share: a test context with ticket and SUN keys, a host with an event,
// attendees, and the calls the door and the app make.
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { expect } from "vitest";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import type { Environment } from "../../supabase/functions/_shared/platform/runtime.ts";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { createTestContext, TEST_JWT_SECRET, type TestContext, type UserWithKey } from "../setup/test-context.ts";

export const SUN_KEYS = { metaReadKey: randomBytes(16), fileReadKey: randomBytes(16) };
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

export interface CheckIn {
  t: TestContext;
  host: UserWithKey;
  /** A published public event of the host's, with `settings` saved. */
  event(settings?: Record<string, unknown>, body?: Record<string, unknown>): Promise<string>;
  /** A call as `who` (its API key, or its app session with `session: true`); the JSON body and status. */
  call(who: UserWithKey, method: string, path: string, json?: unknown, options?: { session?: boolean }): Promise<{ status: number; body: any }>;
  reserve(who: UserWithKey, eventId: string): Promise<any>;
  ticket(who: UserWithKey, eventId: string, reservationId: string): Promise<string>;
  scan(who: UserWithKey, eventId: string, scan: Record<string, unknown>): Promise<any>;
}

let nonces = 0;
export const nonce = () => `n-${process.pid}-${++nonces}-${Math.random().toString(36).slice(2, 10)}`;

export async function startCheckIn(env: Environment = {}): Promise<CheckIn> {
  const t = await createTestContext({
    TICKET_SIGNING_KEYS: await generateTicketSigningKey("test-1"),
    BRACELET_SUN_KEYS: JSON.stringify({ metaReadKey: hex(SUN_KEYS.metaReadKey), fileReadKey: hex(SUN_KEYS.fileReadKey) }),
    ...env,
  });
  const host = await t.userWithKey([], { email: `host-${process.pid}-${Math.random().toString(36).slice(2, 8)}@example.com` });
  const sessionToken = (user: UserWithKey) =>
    new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(user.authUserId)
      .setAudience("authenticated").setIssuedAt().setExpirationTime("5m").sign(new TextEncoder().encode(TEST_JWT_SECRET));

  const call: CheckIn["call"] = async (who, method, path, json, options = {}) => {
    const headers: Record<string, string> = options.session ? { authorization: `Bearer ${await sessionToken(who)}` } : {};
    const response = await t.call(path, { method, key: options.session ? undefined : who.key, json, headers });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const ok = (answer: { status: number; body: any }, status = 200) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    return answer.body;
  };

  return {
    t,
    host,
    call,
    async event(settings, body) {
      const eventId = await createEvent(t, host.key, body);
      if (settings) ok(await call(host, "PUT", `/api/v3/events/${eventId}/check-in/settings`, settings));
      return eventId;
    },
    async reserve(who, eventId) {
      const answer = await call(who, "POST", `/api/v3/events/${eventId}/reservations`);
      expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
      return answer.body;
    },
    async ticket(who, eventId, reservationId) {
      return ok(await call(who, "GET", `/api/v3/events/${eventId}/reservations/${reservationId}/ticket`)).token;
    },
    async scan(who, eventId, scan) {
      return ok(await call(who, "POST", `/api/v3/events/${eventId}/check-ins`, { deviceId: "door-1", nonce: nonce(), ...scan }));
    },
  };
}
