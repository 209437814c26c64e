import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";
import {
  createEvent,
  EVM_COLLECTION,
  getEvent,
  listedIds,
  listPage,
  postEvent,
  SUI_COLLECTION,
  type EventItem,
} from "./event-fixtures.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const OBJECT_ID = /^[0-9a-f]{24}$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const FULL_BODY = {
  name: "Berlin Web3 Night",
  slug: "bw3n-december",
  description: "Talks, demos and drinks.\nBring a wallet.",
  startsAt: "2026-12-05T19:00:00+01:00",
  endsAt: "2026-12-05T23:30:00+01:00",
  timeZone: "Europe/Berlin",
  venue: {
    name: "c-base",
    address: { line1: "Rungestraße 20", line2: "Hinterhof", city: "Berlin", region: "Berlin", postalCode: "10179", country: "DE" },
    coordinates: { lat: 52.512947, lng: 13.420071 },
  },
  visibility: "unlisted",
  status: "PUBLISHED",
  accessRules: [
    { chain: "evm", chainId: 8453, collection: EVM_COLLECTION, minBalance: 2, grants: ["view", "register"] },
    { chain: "sui", chainId: "sui:testnet", collection: SUI_COLLECTION, grants: ["checkIn"] },
  ],
};

describe("creating an event", () => {
  it("answers 201 with every field as sent (times normalised to UTC)", async () => {
    const user = await t.userWithKey();
    const before = Date.now();
    const response = await postEvent(t, user.key, FULL_BODY);
    expect(response.status).toBe(201);
    const event = (await response.json()) as EventItem;

    expect(event.id).toMatch(OBJECT_ID);
    expect(event).toEqual({
      id: event.id,
      ownerId: user.id,
      name: "Berlin Web3 Night",
      slug: "bw3n-december",
      description: "Talks, demos and drinks.\nBring a wallet.",
      startsAt: "2026-12-05T18:00:00.000Z",
      endsAt: "2026-12-05T22:30:00.000Z",
      timeZone: "Europe/Berlin",
      venue: FULL_BODY.venue,
      visibility: "unlisted",
      status: "PUBLISHED",
      accessRules: [
        FULL_BODY.accessRules[0],
        // minBalance defaults to 1
        { ...FULL_BODY.accessRules[1], minBalance: 1 },
      ],
      createdAt: event.createdAt,
      updatedAt: event.updatedAt,
    });
    expect(Date.parse(event.createdAt)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(event.createdAt)).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(event.updatedAt).toBe(event.createdAt);

    // Stored as sent, not only echoed.
    const [row] = await t.owner`
      select owner_id, venue_lat, venue_lng, venue_address, access_rules, time_zone, visibility::text, status::text,
             extract(epoch from starts_at)::float8 as starts, extract(epoch from ends_at)::float8 as ends
      from community.events where id = ${event.id}`;
    expect(row).toMatchObject({
      owner_id: user.id,
      venue_lat: 52.512947,
      venue_lng: 13.420071,
      venue_address: FULL_BODY.venue.address,
      time_zone: "Europe/Berlin",
      visibility: "unlisted",
      status: "PUBLISHED",
      starts: Date.parse("2026-12-05T18:00:00Z") / 1000,
      ends: Date.parse("2026-12-05T22:30:00Z") / 1000,
    });
    expect(row!.access_rules).toEqual(event.accessRules);

    // And read back the same.
    const read = await getEvent(t, user.key, event.id);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(event);
  });

  it("applies the documented defaults to a minimal body and derives the slug from the name", async () => {
    const user = await t.userWithKey();
    const response = await postEvent(t, user.key, {
      name: "Berlin Web3 Night!",
      startsAt: "2026-12-05T19:00:00Z",
      endsAt: "2026-12-05T19:00:00Z", // zero-length events are allowed: ends not before start
      timeZone: "America/New_York",
    });
    expect(response.status).toBe(201);
    const event = (await response.json()) as EventItem;
    expect(event).toMatchObject({
      ownerId: user.id,
      name: "Berlin Web3 Night!",
      slug: "berlin-web3-night",
      description: "",
      venue: null,
      visibility: "public",
      status: "INCOMPLETE",
      accessRules: [],
      timeZone: "America/New_York",
    });
  });

  it.each([
    ["Café Zürich — Meetup", "cafe-zurich-meetup"],
    ["  ETH   Denver  2027  ", "eth-denver-2027"],
    ["Ünïcödé & Friends", "unicode-friends"],
  ])("derives the slug of %j as %j", async (name, slug) => {
    const user = await t.userWithKey();
    const event = await createEvent(t, user.key, { name });
    expect(event.slug).toBe(slug);
  });

  it("trims the name and keeps a venue without coordinates", async () => {
    const user = await t.userWithKey();
    const event = await createEvent(t, user.key, {
      name: "  Rooftop Session  ",
      venue: { name: "Klunkerkranich", address: { city: "Berlin", country: "DE" } },
    });
    expect(event.name).toBe("Rooftop Session");
    expect(event.slug).toBe("rooftop-session");
    expect(event.venue).toEqual({ name: "Klunkerkranich", address: { city: "Berlin", country: "DE" }, coordinates: null });
  });
});

describe("reading an event", () => {
  it("returns the event by id to its owner and, when published and public, to anyone", async () => {
    const owner = await t.userWithKey();
    const other = await t.userWithKey();
    const event = await createEvent(t, owner.key, { status: "PUBLISHED", visibility: "public" });
    for (const key of [owner.key, other.key]) {
      const response = await getEvent(t, key, event.id);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(event);
    }
  });

  it("answers 404 not_found for a well-formed id that does not exist", async () => {
    const user = await t.userWithKey();
    await expectErrorBody(await getEvent(t, user.key, "0123456789abcdef01234567"), 404, "not_found");
  });
});

describe("updating an event", () => {
  it("changes only the fields sent and moves updatedAt", async () => {
    const user = await t.userWithKey();
    const created = (await (await postEvent(t, user.key, { ...FULL_BODY, slug: "patch-me" })).json()) as EventItem;
    await sleep(5);

    const response = await t.call(`/api/v3/events/${created.id}`, { method: "PATCH", key: user.key, json: { name: "Renamed Night" } });
    expect(response.status).toBe(200);
    const updated = (await response.json()) as EventItem;
    expect(updated).toEqual({ ...created, name: "Renamed Night", updatedAt: updated.updatedAt });
    // The slug is the one that was stored, not re-derived from the new name.
    expect(updated.slug).toBe("patch-me");
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(updated.createdAt).toBe(created.createdAt);

    expect(await (await getEvent(t, user.key, created.id)).json()).toEqual(updated);
  });

  it("changes several fields at once and leaves the rest", async () => {
    const user = await t.userWithKey();
    const created = (await (await postEvent(t, user.key, { ...FULL_BODY, slug: "patch-many" })).json()) as EventItem;
    const change = {
      slug: "patched-many",
      description: "New description",
      startsAt: "2027-01-10T10:00:00-05:00",
      endsAt: "2027-01-10T12:00:00-05:00",
      timeZone: "America/New_York",
      visibility: "private",
      status: "INCOMPLETE",
      accessRules: [{ chain: "evm", chainId: 1, collection: EVM_COLLECTION.toLowerCase(), minBalance: 1, grants: ["checkIn"] }],
    };
    const response = await t.call(`/api/v3/events/${created.id}`, { method: "PATCH", key: user.key, json: change });
    expect(response.status).toBe(200);
    const updated = (await response.json()) as EventItem;
    expect(updated).toEqual({
      ...created,
      ...change,
      startsAt: "2027-01-10T15:00:00.000Z",
      endsAt: "2027-01-10T17:00:00.000Z",
      updatedAt: updated.updatedAt,
    });
    // Untouched: name and venue.
    expect(updated.name).toBe(FULL_BODY.name);
    expect(updated.venue).toEqual(FULL_BODY.venue);
  });

  it("venue: null clears the venue, a new venue replaces it whole", async () => {
    const user = await t.userWithKey();
    const created = (await (await postEvent(t, user.key, { ...FULL_BODY, slug: "venue-clear" })).json()) as EventItem;
    expect(created.venue).not.toBeNull();

    const cleared = await t.call(`/api/v3/events/${created.id}`, { method: "PATCH", key: user.key, json: { venue: null } });
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toEqual({ ...created, venue: null, updatedAt: expect.any(String) });
    const [row] = await t.owner`select venue_name, venue_address, venue_lat, venue_lng from community.events where id = ${created.id}`;
    expect(row).toEqual({ venue_name: null, venue_address: null, venue_lat: null, venue_lng: null });

    const venue = { name: "Tresor", address: { line1: "Köpenicker Str. 70", city: "Berlin" } };
    const replaced = await t.call(`/api/v3/events/${created.id}`, { method: "PATCH", key: user.key, json: { venue } });
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as EventItem).venue).toEqual({ ...venue, coordinates: null });
  });

  it("accessRules: [] removes every rule", async () => {
    const user = await t.userWithKey();
    const created = (await (await postEvent(t, user.key, { ...FULL_BODY, slug: "rules-clear" })).json()) as EventItem;
    expect(created.accessRules).toHaveLength(2);
    const response = await t.call(`/api/v3/events/${created.id}`, { method: "PATCH", key: user.key, json: { accessRules: [] } });
    expect(response.status).toBe(200);
    const updated = (await response.json()) as EventItem;
    expect(updated.accessRules).toEqual([]);
    expect(updated.venue).toEqual(created.venue);
  });

  it("an ERC-1155 rule keeps its tokenId (any uint256, as a decimal string); the local Sui network is accepted", async () => {
    const user = await t.userWithKey();
    const created = (await (await postEvent(t, user.key, { ...FULL_BODY, slug: "rules-1155" })).json()) as EventItem;
    const accessRules = [
      { chain: "evm", chainId: 31337, collection: EVM_COLLECTION, tokenId: String(2n ** 256n - 1n), minBalance: 2, grants: ["checkIn"] },
      { chain: "evm", chainId: 31337, collection: EVM_COLLECTION, tokenId: "0", minBalance: 1, grants: ["view"] },
      { chain: "sui", chainId: "sui:localnet", collection: SUI_COLLECTION, minBalance: 1, grants: ["register"] },
    ];
    const response = await t.call(`/api/v3/events/${created.id}`, { method: "PATCH", key: user.key, json: { accessRules } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as EventItem).accessRules).toEqual(accessRules);
    expect(((await (await getEvent(t, user.key, created.id)).json()) as EventItem).accessRules).toEqual(accessRules);
  });
});

describe("deleting an event", () => {
  it("answers 204, then the event is gone: 404 on read, delete and update, absent from the list", async () => {
    const user = await t.userWithKey();
    const keep = await createEvent(t, user.key);
    const event = await createEvent(t, user.key);

    const response = await t.call(`/api/v3/events/${event.id}`, { method: "DELETE", key: user.key });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");

    await expectErrorBody(await getEvent(t, user.key, event.id), 404, "not_found");
    await expectErrorBody(await t.call(`/api/v3/events/${event.id}`, { method: "DELETE", key: user.key }), 404, "not_found");
    await expectErrorBody(
      await t.call(`/api/v3/events/${event.id}`, { method: "PATCH", key: user.key, json: { name: "Zombie" } }),
      404,
      "not_found",
    );
    expect(await listedIds(t, user.key, { scope: "mine" })).toEqual([keep.id]);
    const [{ count }] = (await t.owner`select count(*)::int as count from community.events where id = ${event.id}`) as unknown as [{ count: number }];
    expect(count).toBe(0);
  });
});

describe("listing events", () => {
  it("scope=mine lists exactly the caller's events, newest first, and status filters them", async () => {
    const a = await t.userWithKey();
    const b = await t.userWithKey();
    const first = await createEvent(t, a.key, { status: "PUBLISHED" });
    const draft = await createEvent(t, a.key, { status: "INCOMPLETE" });
    const third = await createEvent(t, a.key, { status: "PUBLISHED", visibility: "private" });
    const othersPublished = await createEvent(t, b.key, { status: "PUBLISHED" });
    const othersDraft = await createEvent(t, b.key, { status: "INCOMPLETE" });

    const mine = await listPage(t, a.key, { scope: "mine" });
    expect(mine.items.map((e) => e.id)).toEqual([third.id, draft.id, first.id]);
    expect(mine.items[0]).toEqual(third);

    expect((await listPage(t, a.key, { scope: "mine", status: "PUBLISHED" })).items.map((e) => e.id)).toEqual([third.id, first.id]);
    expect((await listPage(t, a.key, { scope: "mine", status: "INCOMPLETE" })).items.map((e) => e.id)).toEqual([draft.id]);
    expect((await listPage(t, b.key, { scope: "mine" })).items.map((e) => e.id)).toEqual([othersDraft.id, othersPublished.id]);

    // scope=all (the default) adds other people's published public events, never their drafts.
    const all = await listedIds(t, a.key);
    expect(all).toEqual(expect.arrayContaining([first.id, draft.id, third.id, othersPublished.id]));
    expect(all).not.toContain(othersDraft.id);
    expect(await listedIds(t, a.key, { scope: "all", status: "INCOMPLETE" })).toContain(draft.id);
    expect(await listedIds(t, a.key, { scope: "all", status: "INCOMPLETE" })).not.toContain(othersDraft.id);
    expect(await listedIds(t, a.key, { scope: "all", status: "PUBLISHED" })).not.toContain(draft.id);
  });

  it("a new user's own list is empty", async () => {
    const user = await t.userWithKey();
    expect(await listPage(t, user.key, { scope: "mine" })).toEqual({ items: [], take: 20, page: 1, nextCursor: null, hasMore: false });
  });
});
