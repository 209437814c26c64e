// Races the door and the reservations are built for, decided by Postgres: 100 people reserving 50
// seats at once end with exactly 50 approved and 50 waitlisted (the event's settings row lock), a
// cancellation promotes exactly one, two scanners on one ticket admit it once (its row lock), two
// doors uploading two people's scans of one token admit one person (the token's claim is the insert
// that exists), and a scan retried at once under one nonce is recorded once (the nonce's claim).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserWithKey } from "../setup/test-context.ts";
import { type CheckIn, nonce, startCheckIn } from "./checkin-fixtures.ts";

let c: CheckIn;
let people: UserWithKey[];
beforeAll(async () => {
  // Enough connections that the reservations are in flight together.
  c = await startCheckIn({ DB_POOL_MAX: "30" });
  people = await Promise.all(Array.from({ length: 100 }, (_, i) => c.t.userWithKey([], { email: `race-${i}-${process.pid}@example.com` })));
});
afterAll(() => c.t.close());

describe("reservations racing for seats", () => {
  it("100 concurrent reservations for 50 seats: exactly 50 approved, 50 waitlisted, in the order they got the lock", async () => {
    const eventId = await c.event({ capacity: 50 });
    const answers = await Promise.all(people.map((person) => c.call(person, "POST", `/api/v3/events/${eventId}/reservations`)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    const statuses = answers.map((a) => a.body.status);
    expect(statuses.filter((s) => s === "approved")).toHaveLength(50);
    expect(statuses.filter((s) => s === "waitlisted")).toHaveLength(50);
    const rows = await c.t.owner<{ status: string }[]>`
      select status::text from checkin.reservations where event_id = ${eventId} order by created_at, id`;
    // Every approved one was made before every waitlisted one: the seats went in lock order.
    expect(rows.map((r) => r.status)).toEqual([...Array(50).fill("approved"), ...Array(50).fill("waitlisted")]);

    const approved = answers.find((a) => a.body.status === "approved")!;
    const approvedPerson = people[answers.indexOf(approved)]!;
    const [firstWaiting] = await c.t.owner<{ id: string }[]>`
      select id from checkin.reservations where event_id = ${eventId} and status = 'waitlisted' order by created_at, id limit 1`;
    await c.call(approvedPerson, "POST", `/api/v3/events/${eventId}/reservations/${approved.body.id}/cancel`);
    const counts = (await c.call(c.host, "GET", `/api/v3/events/${eventId}/check-in/counts`)).body;
    expect(counts).toMatchObject({ approved: 50, waitlisted: 49 });
    const [promoted] = await c.t.owner<{ status: string }[]>`select status::text from checkin.reservations where id = ${firstWaiting!.id}`;
    expect(promoted!.status).toBe("approved");
  });

  it("one person reserving 10 times at once holds one reservation", async () => {
    const eventId = await c.event({ capacity: 5 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => c.call(people[0]!, "POST", `/api/v3/events/${eventId}/reservations`)));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
  });
});

describe("scanners racing on one ticket", () => {
  it("two scanners on one ticket at once: one admitted, the other told already_inside", async () => {
    const eventId = await c.event();
    for (let round = 0; round < 10; round++) {
      const person = people[round]!;
      const reservation = await c.reserve(person, eventId);
      const token = await c.ticket(person, eventId, reservation.id);
      const results = await Promise.all(["door-1", "door-2"].map((deviceId) =>
        c.call(c.host, "POST", `/api/v3/events/${eventId}/check-ins`, { method: "qr", ticket: token, deviceId, nonce: nonce() })));
      expect(results.map((r) => r.body.result).sort()).toEqual(["admitted", "already_inside"]);
    }
    expect((await c.call(c.host, "GET", `/api/v3/events/${eventId}/check-in/counts`)).body).toMatchObject({ checkedIn: 10, insideNow: 10 });
  });
});

describe("two doors deciding one token at the same instant", () => {
  it("30 events, two devices uploading the two holders' offline scans of the same token at once: one admitted per event, every time", async () => {
    const rule = { chain: "evm", chainId: 31337, collection: "0x00000000000000000000000000000000000000cc", minBalance: 1, grants: ["checkIn"] };
    const [first, second] = [people[0]!, people[1]!];
    // The reads on record: both people held token 1 (it changed hands between their reads).
    for (const [person, address] of [[first, "0x00000000000000000000000000000000000000a1"], [second, "0x00000000000000000000000000000000000000b1"]] as const) {
      const evidence = { rule, satisfied: true, balance: 1, perOwner: { [address]: 1 }, tokens: ["1"], block: "7", readAt: new Date().toISOString() };
      await c.t.owner`
        insert into checkin.holdings (user_id, rule_key, satisfied, evidence)
        values (${person.id}, checkin.rule_key(${c.t.owner.json(rule)}::jsonb), true, ${c.t.owner.json(evidence)}::jsonb)
        on conflict (user_id, rule_key) do update set evidence = excluded.evidence, read_at = now()`;
    }
    const scannedAt = Date.now() - 60_000;
    for (let round = 0; round < 30; round++) {
      const eventId = await c.event();
      await c.t.owner`update community.events set access_rules = ${c.t.owner.json([rule])}::jsonb where id = ${eventId}`;
      const reservations = [await c.reserve(first, eventId), await c.reserve(second, eventId)];
      const uploads = await Promise.all(reservations.map((reservation, i) =>
        c.call(c.host, "POST", `/api/v3/events/${eventId}/check-ins/offline`, {
          deviceId: `door-${i + 1}`,
          scans: [{ method: "manual", reservationId: reservation.id, direction: "entry", nonce: nonce(), scannedAt: new Date(scannedAt + i * 1_000).toISOString() }],
        })));
      expect(uploads.map((u) => u.status), JSON.stringify(uploads.map((u) => u.body))).toEqual([200, 200]);
      expect(uploads.map((u) => u.body.items[0].result).sort(), `round ${round}`).toEqual(["admitted", "token_already_used"]);
      const [claims] = await c.t.owner<{ count: number }[]>`select count(*)::int from checkin.token_claims where event_id = ${eventId}`;
      expect(claims!.count).toBe(1);
    }
  });
});

describe("one nonce retried at once", () => {
  it("10 concurrent copies of one scan, 10 times: recorded once, every copy answers it, none a conflict", async () => {
    const eventId = await c.event();
    for (let round = 0; round < 10; round++) {
      const person = people[round]!;
      const reservation = await c.reserve(person, eventId);
      const token = await c.ticket(person, eventId, reservation.id);
      const scan = { method: "qr", ticket: token, deviceId: "door-1", nonce: nonce() };
      const answers = await Promise.all(Array.from({ length: 10 }, () => c.call(c.host, "POST", `/api/v3/events/${eventId}/check-ins`, scan)));
      expect(answers.map((a) => a.status), JSON.stringify(answers.map((a) => a.body))).toEqual(answers.map(() => 200));
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      expect(answers.filter((a) => !a.body.replayed).map((a) => a.body.result)).toEqual(["admitted"]);
    }
  });
});
