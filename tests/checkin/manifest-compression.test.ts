// The check-in manifest travels gzipped: a door downloads every approved reservation before the doors
// open, often over a venue's mobile network. 10,000 tickets here; a 100,000-ticket manifest must
// travel in under 2 MB, so these must in under a tenth of that (the bench measures the 100,000).
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CheckIn, startCheckIn } from "./checkin-fixtures.ts";

const TICKETS = 10_000;
const BUDGET_BYTES = (2_000_000 * TICKETS) / 100_000;

let c: CheckIn;
let eventId: string;

beforeAll(async () => {
  c = await startCheckIn();
  eventId = await c.event();
  // As the bench builds its door line: people, then an approved reservation each, in SQL.
  await c.t.owner`
    with people as (
      insert into core.users (email) select format('door-%s-%s@manifest.example', ${eventId}::text, n) from generate_series(1, ${TICKETS}::int) n
      returning id)
    insert into checkin.reservations (event_id, user_id, status, attendee_name)
    select ${eventId}, id, 'approved', 'Manifest attendee' from people`;
});
afterAll(async () => {
  await c?.t.close();
});

describe("the check-in manifest", () => {
  it(`of ${TICKETS} tickets travels gzipped in under ${BUDGET_BYTES} bytes, with the same tickets as sent plain`, async () => {
    const path = `/api/v3/events/${eventId}/check-in/manifest`;
    const plain = await c.t.call(path, { key: c.host.key });
    expect(plain.status).toBe(200);
    const text = await plain.text();
    expect(JSON.parse(text).tickets).toHaveLength(TICKETS);

    const gzipped = await c.t.call(path, { key: c.host.key, headers: { "accept-encoding": "gzip" } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    const bytes = Buffer.from(await gzipped.arrayBuffer());
    expect(bytes.byteLength).toBeLessThan(BUDGET_BYTES);
    expect(JSON.parse(gunzipSync(bytes).toString("utf8")).tickets).toEqual(JSON.parse(text).tickets);
  });
});
