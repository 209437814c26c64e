// Concurrent PUTs on one hub: the hub row lock taken by the SQL functions makes them apply one after
// the other, so additive connects never lose an id and a replacement racing a connect ends as if the
// two had run in some order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { createEvent, createHub, type Hub, putHub, readHub } from "./hub-fixtures.ts";

const CONCURRENT_PUTS = 20;

let t: TestContext;
let owner: UserWithKey;
beforeAll(async () => {
  // Enough connections that every PUT is in flight at once.
  t = await createTestContext({ DB_POOL_MAX: "25" });
  owner = await t.userWithKey();
});
afterAll(() => t.close());

const sorted = (values: string[]) => [...values].sort();

async function connections(hubId: string): Promise<string[]> {
  const rows = await t.owner<{ event_id: string }[]>`select event_id::text from community.hub_events where hub_id = ${hubId} order by event_id`;
  return rows.map((r) => r.event_id);
}

describe("concurrent PUTs on one hub", () => {
  it(`${CONCURRENT_PUTS} concurrent connectEventIds end with exactly the union, each id once`, async () => {
    const hub = await createHub(t, owner.key);
    const shared = await createEvent(t, owner.key);
    const own = await Promise.all(Array.from({ length: CONCURRENT_PUTS * 2 }, () => createEvent(t, owner.key)));
    const batches = Array.from({ length: CONCURRENT_PUTS }, (_, i) => [own[2 * i]!, shared, own[2 * i + 1]!]);

    const responses = await Promise.all(batches.map((batch) => putHub(t, owner.key, hub.id, { connectEventIds: batch })));
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.map((r) => r.status), JSON.stringify(bodies.find((b) => b.error))).toEqual(responses.map(() => 200));

    const union = sorted([shared, ...own]);
    const final = await readHub(t, owner.key, hub.id);
    expect(final.categorySubEventIDs).toHaveLength(union.length);
    expect(sorted(final.categorySubEventIDs)).toEqual(union);
    expect(await connections(hub.id)).toEqual(union);
    // Each response saw its own batch connected (it ran after every earlier one committed).
    for (const [i, body] of bodies.entries()) expect((body as Hub).categorySubEventIDs).toEqual(expect.arrayContaining(batches[i]!));
    // Responses are serial snapshots: their sizes are distinct, and the largest is the final state.
    const sizes = bodies.map((b: Hub) => b.categorySubEventIDs.length);
    expect(new Set(sizes).size).toBe(CONCURRENT_PUTS);
    expect(Math.max(...sizes)).toBe(union.length);
  });

  it("a replacement racing a connect ends in one of the two serial outcomes", async () => {
    const hub = await createHub(t, owner.key);
    const [kept, replacement, added] = [await createEvent(t, owner.key), await createEvent(t, owner.key), await createEvent(t, owner.key)];
    // The connect names `kept`, already connected and not in the replacement. Without the lock the
    // connect could skip it as a duplicate while the replacement deletes it, ending in {replacement, added}.
    const connect = [kept, added];
    const replaceWith = [replacement];
    const serialOutcomes = [
      sorted([...replaceWith, ...connect]), // replacement, then connect
      sorted(replaceWith), // connect, then replacement
    ];

    for (let round = 0; round < 15; round++) {
      expect((await putHub(t, owner.key, hub.id, { categorySubEventIDs: [kept] })).status).toBe(200);
      expect(await connections(hub.id)).toEqual([kept]);

      const [a, b] = await Promise.all([
        putHub(t, owner.key, hub.id, { categorySubEventIDs: replaceWith }),
        putHub(t, owner.key, hub.id, { connectEventIds: connect }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const final = await connections(hub.id);
      expect(serialOutcomes).toContainEqual(final);
      expect(sorted((await readHub(t, owner.key, hub.id)).categorySubEventIDs)).toEqual(final);
    }
  });

  it("concurrent field changes and connects all apply", async () => {
    const hub = await createHub(t, owner.key);
    const events = await Promise.all(Array.from({ length: 10 }, () => createEvent(t, owner.key)));
    const responses = await Promise.all([
      ...events.map((id) => putHub(t, owner.key, hub.id, { connectEventIds: [id] })),
      putHub(t, owner.key, hub.id, { description: "changed concurrently" }),
      putHub(t, owner.key, hub.id, { status: "INCOMPLETE" }),
    ]);
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const final = await readHub(t, owner.key, hub.id);
    expect(sorted(final.categorySubEventIDs)).toEqual(sorted(events));
    expect(final).toMatchObject({ description: "changed concurrently", status: "INCOMPLETE" });
  });
});
