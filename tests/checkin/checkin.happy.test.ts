// The check-in domain through REST as its users call it: a person reserves and gets a QR ticket, the
// door scans it (entry, exit, re-entry), bracelets scan like tickets (an NTAG 424 SUN counter only
// rises), an offline scanner verifies tickets with the manifest's keys and uploads its scans, and
// the host reads live counts, approves, declines and undoes.
import { createLocalJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sunMessageFor } from "../../supabase/functions/_shared/checkin/bracelet.ts";
import { expectErrorBody, type UserWithKey } from "../setup/test-context.ts";
import { type CheckIn, nonce, startCheckIn, SUN_KEYS } from "./checkin-fixtures.ts";

let c: CheckIn;
let alice: UserWithKey;
let bob: UserWithKey;
let staff: UserWithKey;
beforeAll(async () => {
  c = await startCheckIn();
  alice = await c.t.userWithKey([], { email: "alice@example.com", username: "alice" });
  bob = await c.t.userWithKey([], { email: "bob@example.com" });
  staff = await c.t.userWithKey([], { email: "checker@example.com" });
});
afterAll(() => c.t.close());

describe("reserving and the ticket", () => {
  it("reserves once, answers the same reservation to a retry, and signs a ticket the door admits once", async () => {
    const eventId = await c.event({ capacity: 10 });
    const first = await c.call(alice, "POST", `/api/v3/events/${eventId}/reservations`);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ eventId, userId: alice.id, status: "approved", ticketVersion: 1, inside: false, attendeeName: "alice" });
    const again = await c.call(alice, "POST", `/api/v3/events/${eventId}/reservations`);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);

    const token = await c.ticket(alice, eventId, first.body.id);
    const admitted = await c.scan(c.host, eventId, { method: "qr", ticket: token });
    expect(admitted).toMatchObject({ result: "admitted", admitted: true, attendeeName: "alice", reservationId: first.body.id, method: "qr", replayed: false });
    expect((await c.scan(c.host, eventId, { method: "qr", ticket: token })).result).toBe("already_inside");
    expect((await c.scan(c.host, eventId, { method: "qr", ticket: token, direction: "exit" })).result).toBe("exited");
    expect((await c.scan(c.host, eventId, { method: "qr", ticket: token })).result).toBe("admitted");

    const mine = await c.call(alice, "GET", "/api/v3/me/reservations");
    expect(mine.body.items.map((r: { id: string }) => r.id)).toContain(first.body.id);
    expect((await c.call(alice, "GET", `/api/v3/events/${eventId}/reservations/${first.body.id}`)).body.inside).toBe(true);
  });

  it("a re-issued ticket revokes the old QR code; another person never gets your ticket", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(bob, eventId);
    const old = await c.ticket(bob, eventId, reservation.id);
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations/${reservation.id}/ticket`, { key: alice.key }), 404, "reservation_not_found");
    const reissued = await c.call(bob, "POST", `/api/v3/events/${eventId}/reservations/${reservation.id}/ticket/reissue`);
    expect(reissued.body.ticketVersion).toBe(2);
    expect((await c.scan(c.host, eventId, { method: "qr", ticket: old })).result).toBe("revoked");
    expect((await c.scan(c.host, eventId, { method: "qr", ticket: reissued.body.token })).result).toBe("admitted");
  });

  it("the same device and nonce is recorded once and answers its first outcome", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(alice, eventId);
    const scan = { method: "manual", reservationId: reservation.id, nonce: nonce() };
    const first = await c.scan(c.host, eventId, scan);
    const replay = await c.scan(c.host, eventId, scan);
    expect(replay).toMatchObject({ id: first.id, result: "admitted", replayed: true });
    const count = (await c.t.owner<{ count: number }[]>`select count(*)::int from checkin.scans where event_id = ${eventId}`)[0]!.count;
    expect(count).toBe(1);
  });

  it("works with the check-in app's session as well as an API key", async () => {
    const eventId = await c.event();
    const reserved = await c.call(bob, "POST", `/api/v3/events/${eventId}/reservations`, undefined, { session: true });
    expect(reserved.status).toBe(201);
    const scanned = await c.call(c.host, "POST", `/api/v3/events/${eventId}/check-ins`,
      { method: "manual", reservationId: reserved.body.id, deviceId: "app-1", nonce: nonce() }, { session: true });
    expect(scanned.body.result).toBe("admitted");
  });
});

describe("approval, waitlist and the host's list", () => {
  it("pending until approved; declining frees the seat for the waitlist; the list filters, searches and pages", async () => {
    const eventId = await c.event({ capacity: 1, approvalRequired: true });
    const a = await c.reserve(alice, eventId);
    expect(a.status).toBe("pending");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations/${a.id}/ticket`, { key: alice.key }), 409, "reservation_not_approved");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations/${a.id}/approve`, { method: "POST", key: bob.key }), 403, "not_event_owner");
    expect((await c.call(c.host, "POST", `/api/v3/events/${eventId}/reservations/${a.id}/approve`)).body.status).toBe("approved");

    const b = await c.reserve(bob, eventId);
    expect(b.status).toBe("pending");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations/${b.id}/approve`, { method: "POST", key: c.host.key }), 409, "event_full");
    // Without approval, a full event waitlists; declining alice approves bob at once.
    await c.call(c.host, "PUT", `/api/v3/events/${eventId}/check-in/settings`, { approvalRequired: false });
    await c.call(bob, "POST", `/api/v3/events/${eventId}/reservations/${b.id}/cancel`);
    expect((await c.reserve(bob, eventId)).status).toBe("waitlisted");
    expect((await c.call(c.host, "POST", `/api/v3/events/${eventId}/reservations/${a.id}/decline`)).body.status).toBe("declined");
    const list = await c.call(c.host, "GET", `/api/v3/events/${eventId}/reservations?status=approved`);
    expect(list.body.items.map((r: { attendeeName: string }) => r.attendeeName)).toEqual(["bob@example.com"]);
    const searched = await c.call(c.host, "GET", `/api/v3/events/${eventId}/reservations?search=ALICE`);
    expect(searched.body.items.map((r: { id: string }) => r.id)).toEqual([a.id]);

    const firstPage = await c.call(c.host, "GET", `/api/v3/events/${eventId}/reservations?take=1&order=asc`);
    expect(firstPage.body).toMatchObject({ hasMore: true, take: 1 });
    const secondPage = await c.call(c.host, "GET", `/api/v3/events/${eventId}/reservations?take=1&order=asc&cursor=${firstPage.body.nextCursor}`);
    expect(secondPage.body.items).toHaveLength(1);
    expect(secondPage.body.items[0].id).not.toBe(firstPage.body.items[0].id);
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations`, { key: alice.key }), 403, "not_event_staff");
  });
});

describe("staff", () => {
  it("the owner adds a checker by e-mail, who then scans and reads counts, and removes them", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(alice, eventId);
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-ins`, {
      method: "POST", key: staff.key, json: { method: "manual", reservationId: reservation.id, deviceId: "d", nonce: nonce() },
    }), 403, "not_event_staff");
    const added = await c.call(c.host, "POST", `/api/v3/events/${eventId}/staff`, { email: "CHECKER@example.com" });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ userId: staff.id, role: "checker" });
    expect((await c.call(c.host, "POST", `/api/v3/events/${eventId}/staff`, { userId: staff.id })).status).toBe(200);
    expect((await c.scan(staff, eventId, { method: "manual", reservationId: reservation.id })).result).toBe("admitted");
    expect((await c.call(staff, "GET", `/api/v3/events/${eventId}/check-in/counts`)).body).toMatchObject({ approved: 1, checkedIn: 1, insideNow: 1 });
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-in/settings`, { method: "PUT", key: staff.key, json: { capacity: 5 } }), 403, "not_event_owner");
    expect((await c.call(c.host, "DELETE", `/api/v3/events/${eventId}/staff/${staff.id}`)).status).toBe(204);
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-in/counts`, { key: staff.key }), 403, "not_event_staff");
  });
});

describe("bracelets", () => {
  it("a plain bracelet scans like a ticket; marked lost it is revoked", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(alice, eventId);
    const bound = await c.call(c.host, "POST", `/api/v3/events/${eventId}/bracelets`, { reservationId: reservation.id, uid: "04:a2:3b:4c:5d:6e:7f" });
    expect(bound.status).toBe(201);
    expect(bound.body).toMatchObject({ uid: "04A23B4C5D6E7F", kind: "plain", status: "bound" });
    expect((await c.scan(c.host, eventId, { method: "bracelet", braceletUid: "04A23B4C5D6E7F" })).result).toBe("admitted");
    await c.call(c.host, "POST", `/api/v3/events/${eventId}/bracelets/${bound.body.id}/lost`);
    expect((await c.scan(c.host, eventId, { method: "bracelet", braceletUid: "04-A2-3B-4C-5D-6E-7F", direction: "exit" })).result).toBe("revoked");
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-ins`, {
      method: "POST", key: c.host.key, json: { method: "bracelet", braceletUid: "04A23B", deviceId: "d", nonce: nonce() },
    }), 400, "validation_failed");
  });

  it("an NTAG 424 bracelet admits with a fresh SUN counter and refuses a replayed one", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(bob, eventId);
    const uid = "04DE5F1EACC040";
    await c.call(c.host, "POST", `/api/v3/events/${eventId}/bracelets`, { reservationId: reservation.id, uid, kind: "sun" });
    const tap61 = sunMessageFor(uid, 61, SUN_KEYS);
    expect((await c.scan(c.host, eventId, { method: "bracelet", sun: tap61 })).result).toBe("admitted");
    expect((await c.scan(c.host, eventId, { method: "bracelet", sun: tap61, direction: "exit" })).result).toBe("replayed_counter");
    expect((await c.scan(c.host, eventId, { method: "bracelet", sun: sunMessageFor(uid, 62, SUN_KEYS), direction: "exit" })).result).toBe("exited");
    const forged = { ...sunMessageFor(uid, 63, SUN_KEYS), cmac: "0000000000000000" };
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/check-ins`, {
      method: "POST", key: c.host.key, json: { method: "bracelet", sun: forged, deviceId: "d", nonce: nonce() },
    }), 422, "sun_mac_invalid");
  });
});

describe("offline scanning", () => {
  it("the manifest's keys verify tickets with a standard JWT library, and a batch of 1,000 scans with duplicates is recorded once each", async () => {
    const eventId = await c.event();
    const people = await Promise.all(Array.from({ length: 10 }, (_, i) => c.t.userWithKey([], { email: `offline-${i}-${process.pid}@example.com` })));
    const reservations = await Promise.all(people.map((person) => c.reserve(person, eventId)));
    const tickets = await Promise.all(people.map((person, i) => c.ticket(person, eventId, reservations[i].id)));

    const manifest = (await c.call(c.host, "GET", `/api/v3/events/${eventId}/check-in/manifest`)).body;
    expect(manifest.tickets).toHaveLength(10);
    const { payload } = await jwtVerify(tickets[0]!, createLocalJWKSet(manifest.keys), { algorithms: ["EdDSA"], typ: "ticket+jwt" });
    expect(payload).toMatchObject({ t: reservations[0].id, e: eventId, v: 1 });

    // 1,000 scans over 10 tickets: each ticket scanned 100 times (the first one, by time, wins), and
    // the first 50 scans uploaded twice in the same batch (a device retrying a partial upload).
    const start = Date.now() - 3_600_000;
    const scans = Array.from({ length: 950 }, (_, i) => ({
      method: "qr", ticket: tickets[i % 10], nonce: `offline-${i}`, scannedAt: new Date(start + (949 - i) * 1000).toISOString(),
    }));
    const batch = { deviceId: "door-offline", scans: [...scans, ...scans.slice(0, 50)] };
    const answer = await c.call(c.host, "POST", `/api/v3/events/${eventId}/check-ins/offline`, batch);
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
    expect(answer.body.items).toHaveLength(1000);
    expect(answer.body).toMatchObject({ admitted: 10, refused: 990, replayed: 50 });
    // The admitted scan of each ticket is its earliest: the last of its scans in upload order.
    for (const scan of answer.body.items.filter((s: { result: string }) => s.result === "admitted")) {
      const index = Number(scan.nonce.slice("offline-".length));
      expect(index).toBeGreaterThanOrEqual(940);
    }
    const count = (await c.t.owner<{ count: number }[]>`select count(*)::int from checkin.scans where event_id = ${eventId}`)[0]!.count;
    expect(count).toBe(950);
    const again = await c.call(c.host, "POST", `/api/v3/events/${eventId}/check-ins/offline`, batch);
    expect(again.body.replayed).toBe(1000);
    expect((await c.call(c.host, "GET", `/api/v3/events/${eventId}/check-in/counts`)).body).toMatchObject({ checkedIn: 10, insideNow: 10 });
  });
});

describe("undo", () => {
  it("undoing an admission lets the person in again; undoing twice answers the undone scan", async () => {
    const eventId = await c.event();
    const reservation = await c.reserve(alice, eventId);
    const admitted = await c.scan(c.host, eventId, { method: "manual", reservationId: reservation.id });
    const undone = await c.call(c.host, "POST", `/api/v3/events/${eventId}/check-ins/${admitted.id}/undo`);
    expect(undone.body.undoneAt).not.toBeNull();
    expect((await c.call(c.host, "POST", `/api/v3/events/${eventId}/check-ins/${admitted.id}/undo`)).body.undoneAt).toBe(undone.body.undoneAt);
    expect((await c.call(c.host, "GET", `/api/v3/events/${eventId}/check-in/counts`)).body).toMatchObject({ checkedIn: 0, insideNow: 0 });
    expect((await c.scan(c.host, eventId, { method: "manual", reservationId: reservation.id })).result).toBe("admitted");
  });
});
