// The settings route's promise: lowering an event's capacity below its approved count is allowed and
// takes no seat away (200 with the new capacity), never a 400 from the database.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CheckIn, startCheckIn } from "./checkin-fixtures.ts";

let c: CheckIn;
beforeAll(async () => {
  c = await startCheckIn();
});
afterAll(() => c?.t.close());

it("PUT settings with a capacity below the approved count answers 200, and everyone approved keeps their seat", async () => {
  const eventId = await c.event({ capacity: 3 });
  const attendees = await Promise.all([1, 2, 3, 4].map(() => c.t.userWithKey()));
  for (const attendee of attendees) await c.reserve(attendee, eventId);

  const lowered = await c.call(c.host, "PUT", `/api/v3/events/${eventId}/check-in/settings`, { capacity: 1 });
  expect(lowered, JSON.stringify(lowered.body)).toMatchObject({ status: 200, body: { capacity: 1 } });

  const statuses = await Promise.all(attendees.map(async (attendee) => (await c.call(attendee, "GET", "/api/v3/me/reservations")).body.items[0].status));
  expect(statuses).toEqual(["approved", "approved", "approved", "waitlisted"]);
});
