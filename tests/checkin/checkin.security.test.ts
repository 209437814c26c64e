// What the door and the reservations refuse: forged, tampered, expired and foreign tickets; people
// who are not the event's staff; other people's reservations; services without ticket keys; bodies
// over the offline route's own limit (and every other route's); a copied NTAG 424 URL after the
// bracelet changed hands or events; a nonce reused for another person's ticket.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sunMessageFor } from "../../supabase/functions/_shared/checkin/bracelet.ts";
import { generateTicketSigningKey, parseTicketSigningKeys, signTicket } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { expectErrorBody, type UserWithKey } from "../setup/test-context.ts";
import { type CheckIn, nonce, startCheckIn, SUN_KEYS } from "./checkin-fixtures.ts";

let c: CheckIn;
let alice: UserWithKey;
let mallory: UserWithKey;
beforeAll(async () => {
  c = await startCheckIn();
  alice = await c.t.userWithKey();
  mallory = await c.t.userWithKey();
});
afterAll(() => c.t.close());

const scanAs = (who: UserWithKey, eventId: string, body: Record<string, unknown>) =>
  c.t.call(`/api/v3/events/${eventId}/check-ins`, { method: "POST", key: who.key, json: { deviceId: "door-1", nonce: nonce(), ...body } });

describe("tickets", () => {
  it("a tampered, an expired, an HS256-signed and a foreign-key ticket are refused with their code, and nothing is recorded", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(alice, eventId);
    const token = await c.ticket(alice, eventId, reservation.id);
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const tampered = [header, Buffer.from(JSON.stringify({ ...claims, v: claims.v + 1 })).toString("base64url"), signature].join(".");
    await expectErrorBody(await scanAs(c.host, eventId, { method: "qr", ticket: tampered }), 422, "ticket_signature_invalid");

    const keys = c.t.config.TICKET_SIGNING_KEYS!;
    const expired = await signTicket(keys, { reservationId: reservation.id, eventId, version: 1 }, { expiresAt: new Date(Date.now() - 60_000) });
    await expectErrorBody(await scanAs(c.host, eventId, { method: "qr", ticket: expired }), 422, "ticket_expired");

    const hs256 = await new SignJWT({ t: reservation.id, e: eventId, v: 1 }).setProtectedHeader({ alg: "HS256", kid: keys.signingKid, typ: "ticket+jwt" })
      .sign(new TextEncoder().encode("a shared secret anyone could guess"));
    await expectErrorBody(await scanAs(c.host, eventId, { method: "qr", ticket: hs256 }), 422, "ticket_signature_invalid");

    const foreign = await signTicket(parseTicketSigningKeys(await generateTicketSigningKey("attacker")), { reservationId: reservation.id, eventId, version: 1 });
    await expectErrorBody(await scanAs(c.host, eventId, { method: "qr", ticket: foreign }), 422, "ticket_unknown_key");

    const count = (await c.t.owner<{ count: number }[]>`select count(*)::int from checkin.scans where event_id = ${eventId}`)[0]!.count;
    expect(count).toBe(0);
    expect((await c.scan(c.host, eventId, { method: "qr", ticket: token })).result).toBe("admitted");
  });

  it("a valid ticket of another event is wrong_event", async () => {
    const [here, there] = [await c.event(), await c.event()];
    const reservation = await c.reserve(alice, there);
    const token = await c.ticket(alice, there, reservation.id);
    expect((await c.scan(c.host, here, { method: "qr", ticket: token })).result).toBe("wrong_event");
  });

  it("without ticket keys the ticket routes answer 503 tickets_not_configured", async () => {
    const bare = await startCheckIn({ TICKET_SIGNING_KEYS: "" });
    try {
      const eventId = await bare.event();
      const person = await bare.t.userWithKey();
      const reservation = await bare.reserve(person, eventId);
      await expectErrorBody(await bare.t.call(`/api/v3/events/${eventId}/reservations/${reservation.id}/ticket`, { key: person.key }), 503, "tickets_not_configured");
      await expectErrorBody(await bare.t.call("/api/v3/check-in/keys", { key: person.key }), 503, "tickets_not_configured");
    } finally {
      await bare.t.close();
    }
  });
});

describe("who may do what", () => {
  it("a stranger neither scans, nor reads counts, attendees or the manifest, nor binds bracelets, nor reads another's reservation", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(alice, eventId);
    await expectErrorBody(await scanAs(mallory, eventId, { method: "manual", reservationId: reservation.id }), 403, "not_event_staff");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-in/counts`, { key: mallory.key }), 403, "not_event_staff");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-in/manifest`, { key: mallory.key }), 403, "not_event_staff");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations`, { key: mallory.key }), 403, "not_event_staff");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/bracelets`, {
      method: "POST", key: mallory.key, json: { reservationId: reservation.id, uid: "04A23B4C5D6E7F" },
    }), 403, "not_event_staff");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations/${reservation.id}`, { key: mallory.key }), 404, "reservation_not_found");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations/${reservation.id}/cancel`, { method: "POST", key: mallory.key }), 404, "reservation_not_found");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/staff`, { method: "POST", key: mallory.key, json: { userId: mallory.id } }), 403, "not_event_owner");
    const mine = await c.call(mallory, "GET", "/api/v3/me/reservations");
    expect(mine.body.items).toEqual([]);
  });

  it("a private event's door is not even visible to a stranger (404), and its draft cannot be reserved", async () => {
    const eventId = await c.event(undefined, { visibility: "private" });
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-in/counts`, { key: mallory.key }), 404, "event_not_found");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations`, { method: "POST", key: mallory.key }), 404, "event_not_found");
    const draft = await c.event(undefined, { status: "INCOMPLETE" });
    await expectErrorBody(await c.t.call(`/api/v3/events/${draft}/reservations`, { method: "POST", key: c.host.key }), 409, "registration_closed");
  });

  it("no credential is 401; a reservation body is refused (the route takes none)", async () => {
    const eventId = await c.event();
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations`, { method: "POST" }), 401, "missing_credentials");
  });
});

describe("input limits", () => {
  it("one credential per method; the offline route takes up to 8 MiB and 10,000 scans, every other route the default", async () => {
    const eventId = await c.event();
    await expectErrorBody(await scanAs(c.host, eventId, { method: "qr", reservationId: "0123456789abcdef01234567" }), 400, "validation_failed");
    await expectErrorBody(await scanAs(c.host, eventId, { method: "manual", reservationId: "0123456789abcdef01234567", ticket: "x".repeat(30) }), 400, "validation_failed");
    await expectErrorBody(await scanAs(c.host, eventId, { method: "manual", reservationId: "0123456789abcdef01234567", nonce: "short" }), 400, "validation_failed");

    const scan = { method: "manual", reservationId: "0123456789abcdef01234567", scannedAt: "2026-12-05T19:00:00Z" };
    const tooMany = { deviceId: "d", scans: Array.from({ length: 10_001 }, (_, i) => ({ ...scan, nonce: `nonce-${i}` })) };
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-ins/offline`, { method: "POST", key: c.host.key, json: tooMany }), 400, "validation_failed");
    const padded = { deviceId: "d", scans: [{ ...scan, nonce: "nonce-1" }], pad: "x".repeat(2 * 1024 * 1024) };
    // 2 MiB: over the default limit, under the offline route's. Past the size check, the unknown field is a 400.
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-ins/offline`, { method: "POST", key: c.host.key, json: padded }), 400, "validation_failed");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-ins`, { method: "POST", key: c.host.key, json: padded }), 413, "payload_too_large");
    const huge = { ...padded, pad: "x".repeat(9 * 1024 * 1024) };
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-ins/offline`, { method: "POST", key: c.host.key, json: huge }), 413, "payload_too_large");
  });
});

describe("copies and reuse at the door", () => {
  it("a copied SUN URL admits at most once for the life of the tag: not after rebinding, not at another event", async () => {
    const uid = "04112233445566";
    const [here, there] = [await c.event(), await c.event()];
    const [first, second, third] = [await c.reserve(alice, here), await c.reserve(mallory, here), await c.reserve(mallory, there)];
    const bind = (eventId: string, reservationId: string) =>
      c.call(c.host, "POST", `/api/v3/events/${eventId}/bracelets`, { reservationId, uid, kind: "sun" });
    const binding = (await bind(here, first.id)).body;
    const copied = sunMessageFor(uid, 5, SUN_KEYS);
    expect((await c.scan(c.host, here, { method: "bracelet", sun: copied })).result).toBe("admitted");
    await c.call(c.host, "POST", `/api/v3/events/${here}/bracelets/${binding.id}/unbind`);
    expect((await bind(here, second.id)).status).toBe(201);
    expect((await c.scan(c.host, here, { method: "bracelet", sun: copied })).result).toBe("replayed_counter");
    expect((await bind(there, third.id)).status).toBe(201);
    expect((await c.scan(c.host, there, { method: "bracelet", sun: copied })).result).toBe("replayed_counter");
    expect((await c.scan(c.host, there, { method: "bracelet", sun: sunMessageFor(uid, 6, SUN_KEYS) })).result).toBe("admitted");
  });

  it("a sun bracelet whose UID is not 7 bytes is not bound: 422 sun_uid_not_7_bytes", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(alice, eventId);
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/bracelets`, {
      method: "POST", key: c.host.key, json: { reservationId: reservation.id, uid: "04:A2:3B:4C", kind: "sun" },
    }), 422, "sun_uid_not_7_bytes");
  });

  it("a nonce reused with another person's ticket is 409 nonce_reused, never the first person's admission", async () => {
    const eventId = await c.event();
    const [first, second] = [await c.reserve(alice, eventId), await c.reserve(mallory, eventId)];
    const used = nonce();
    const scan = async (reservationId: string) =>
      scanAs(c.host, eventId, { method: "qr", ticket: await c.ticket(reservationId === first.id ? alice : mallory, eventId, reservationId), nonce: used });
    expect((await (await scan(first.id)).json()).result).toBe("admitted");
    await expectErrorBody(await scan(second.id), 409, "nonce_reused");
    expect((await (await scan(first.id)).json()).replayed).toBe(true);
    const [recorded] = await c.t.owner<{ count: number }[]>`select count(*)::int from checkin.scans where reservation_id = ${second.id}`;
    expect(recorded!.count).toBe(0);
  });
});
