import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import {
  createEvent, createHub, getHub, type Hub, ids, joinHub, leaveHub, listAll, listPage, putHub, readHub,
} from "./hub-fixtures.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const HUB_FIELDS = [
  "categorySubEventIDs", "createdAt", "description", "hubType", "id", "isPrivate", "membersIDs", "name", "ownerId", "slug", "status",
  "updatedAt",
];

describe("hub CRUD", () => {
  it("creates a hub with exactly the SPEC field names, defaults and a derived slug", async () => {
    const owner = await t.userWithKey();
    const response = await t.call("/api/v3/hubs", { method: "POST", key: owner.key, json: { name: "Berlin Web3 Night!", hubType: "nftCollection" } });
    expect(response.status).toBe(201);
    const hub = await response.json();
    expect(Object.keys(hub).sort()).toEqual(HUB_FIELDS);
    expect(hub).toMatchObject({
      ownerId: owner.id,
      membersIDs: [],
      categorySubEventIDs: [],
      hubType: "nftCollection",
      status: "INCOMPLETE",
      name: "Berlin Web3 Night!",
      slug: "berlin-web3-night",
      description: "",
      isPrivate: false,
    });
    expect(hub.id).toMatch(/^[0-9a-f]{24}$/);
    expect(hub.createdAt).toBe(hub.updatedAt);
    expect(Math.abs(Date.parse(hub.createdAt) - Date.now())).toBeLessThan(60_000);

    // The session's user id is the id hubs carry in ownerId.
    const session = await (await t.call("/api/auth/get-session", { key: owner.key })).json();
    expect(hub.ownerId).toBe(session.user.id);

    expect(await readHub(t, owner.key, hub.id)).toEqual(hub);
  });

  it("takes every writable field on create", async () => {
    const owner = await t.userWithKey();
    const hub = await createHub(t, owner.key, {
      name: "Collectors", slug: "collectors-club", description: "For collectors", hubType: "nftCollection", status: "PUBLISHED", isPrivate: true,
    });
    expect(hub).toMatchObject({
      name: "Collectors", slug: "collectors-club", description: "For collectors", hubType: "nftCollection", status: "PUBLISHED", isPrivate: true,
    });
  });

  it("refuses a slug the owner already uses (409 slug_taken) but not another owner's", async () => {
    const [a, b] = [await t.userWithKey(), await t.userWithKey()];
    await createHub(t, a.key, { slug: "same-slug" });
    const again = await t.call("/api/v3/hubs", { method: "POST", key: a.key, json: { name: "x", slug: "same-slug", hubType: "group" } });
    await expectErrorBody(again, 409, "slug_taken");
    expect((await createHub(t, b.key, { slug: "same-slug" })).slug).toBe("same-slug");

    const other = await createHub(t, a.key, { slug: "other-slug" });
    await expectErrorBody(await putHub(t, a.key, other.id, { slug: "same-slug" }), 409, "slug_taken");
    expect((await readHub(t, a.key, other.id)).slug).toBe("other-slug");
  });

  it("derives a unique slug from the name when none is sent", async () => {
    const a = await t.userWithKey();
    const first = await createHub(t, a.key, { name: "Berlin DJs" });
    const second = await createHub(t, a.key, { name: "Berlin DJs" });
    expect([first.slug, second.slug]).toEqual(["berlin-djs", "berlin-djs-2"]);
  });

  it("changes the fields sent, keeps the others, and moves updatedAt", async () => {
    const owner = await t.userWithKey();
    const hub = await createHub(t, owner.key, { name: "Before", description: "kept", status: "INCOMPLETE" });
    const response = await putHub(t, owner.key, hub.id, {
      name: "After", slug: "after", status: "PUBLISHED", hubType: "nftCollection", isPrivate: true,
    });
    expect(response.status).toBe(200);
    const updated: Hub = await response.json();
    expect(Object.keys(updated).sort()).toEqual(HUB_FIELDS);
    expect(updated).toMatchObject({
      id: hub.id, ownerId: owner.id, name: "After", slug: "after", description: "kept", status: "PUBLISHED", hubType: "nftCollection", isPrivate: true,
      createdAt: hub.createdAt,
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(hub.updatedAt));
    expect(await readHub(t, owner.key, hub.id)).toEqual(updated);

    // Back to INCOMPLETE: the owner may move either way.
    const back = await (await putHub(t, owner.key, hub.id, { status: "INCOMPLETE", isPrivate: false })).json();
    expect(back).toMatchObject({ status: "INCOMPLETE", isPrivate: false, name: "After" });
  });

  it("deletes a hub with its memberships and connections, not its events", async () => {
    const [owner, member] = [await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);
    const event = await createEvent(t, owner.key);
    expect((await joinHub(t, member.key, hub.id)).status).toBe(201);
    expect((await putHub(t, owner.key, hub.id, { connectEventIds: [event] })).status).toBe(200);

    const response = await t.call(`/api/v3/hubs/${hub.id}`, { method: "DELETE", key: owner.key });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    await expectErrorBody(await getHub(t, owner.key, hub.id), 404, "not_found");
    await expectErrorBody(await t.call(`/api/v3/hubs/${hub.id}`, { method: "DELETE", key: owner.key }), 404, "not_found");
    const [left] = await t.owner`
      select (select count(*) from community.hub_members where hub_id = ${hub.id})::int as members,
             (select count(*) from community.hub_events where hub_id = ${hub.id})::int as connections,
             (select count(*) from community.events where id = ${event})::int as events`;
    expect(left).toEqual({ members: 0, connections: 0, events: 1 });
  });
});

describe("joining and leaving", () => {
  it("joins (201, then 200 idempotently), lists members in join order, and leaves", async () => {
    const [owner, first, second] = [await t.userWithKey(), await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);

    const joined = await joinHub(t, first.key, hub.id);
    expect(joined.status).toBe(201);
    expect((await joined.json()).membersIDs).toEqual([first.id]);

    const again = await joinHub(t, first.key, hub.id);
    expect(again.status).toBe(200);
    expect((await again.json()).membersIDs).toEqual([first.id]);

    expect((await joinHub(t, second.key, hub.id)).status).toBe(201);
    expect((await readHub(t, owner.key, hub.id)).membersIDs).toEqual([first.id, second.id]);
    // Everyone who can see the hub sees its members (the "My hubs" recipe needs them).
    expect((await readHub(t, second.key, hub.id)).membersIDs).toEqual([first.id, second.id]);

    const left = await leaveHub(t, first.key, hub.id);
    expect(left.status).toBe(204);
    expect(await left.text()).toBe("");
    expect((await readHub(t, owner.key, hub.id)).membersIDs).toEqual([second.id]);
    await expectErrorBody(await leaveHub(t, first.key, hub.id), 404, "not_a_member");

    // Rejoining puts the member at the end.
    expect((await joinHub(t, first.key, hub.id)).status).toBe(201);
    expect((await readHub(t, owner.key, hub.id)).membersIDs).toEqual([second.id, first.id]);
  });

  it("the owner is not a member: joining or leaving their own hub is 409", async () => {
    const owner = await t.userWithKey();
    const hub = await createHub(t, owner.key);
    await expectErrorBody(await joinHub(t, owner.key, hub.id), 409, "owner_cannot_join");
    await expectErrorBody(await leaveHub(t, owner.key, hub.id), 409, "owner_cannot_leave");
    expect((await readHub(t, owner.key, hub.id)).membersIDs).toEqual([]);
  });

  it("a member of a private hub joining again gets 200 and can leave", async () => {
    const [owner, member] = [await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);
    expect((await joinHub(t, member.key, hub.id)).status).toBe(201);
    expect((await putHub(t, owner.key, hub.id, { isPrivate: true })).status).toBe(200);
    const again = await joinHub(t, member.key, hub.id);
    expect(again.status).toBe(200);
    expect((await again.json()).membersIDs).toEqual([member.id]);
    expect((await leaveHub(t, member.key, hub.id)).status).toBe(204);
    // Having left, the private hub is out of sight.
    await expectErrorBody(await getHub(t, member.key, hub.id), 404, "not_found");
  });
});

describe("connecting events", () => {
  it("connectEventIds is additive and de-duplicated: [a,a,b] then [b,c] gives a, b and c once each", async () => {
    const owner = await t.userWithKey();
    const stranger = await t.userWithKey();
    const hub = await createHub(t, owner.key);
    const a = await createEvent(t, owner.key);
    const b = await createEvent(t, owner.key);
    // Anyone's published public event can be connected.
    const c = await createEvent(t, stranger.key);

    const first = await putHub(t, owner.key, hub.id, { connectEventIds: [b, a, b, a] });
    expect(first.status).toBe(200);
    const afterFirst: Hub = await first.json();
    // In the order sent, each once (its first occurrence).
    expect(afterFirst.categorySubEventIDs).toEqual([b, a]);
    expect(Date.parse(afterFirst.updatedAt)).toBeGreaterThan(Date.parse(hub.updatedAt));

    const second = await putHub(t, owner.key, hub.id, { connectEventIds: [b, c] });
    expect(second.status).toBe(200);
    const afterSecond: Hub = await second.json();
    // Connection order: the first batch, then c; b stays where it was.
    expect(afterSecond.categorySubEventIDs).toEqual([...afterFirst.categorySubEventIDs, c]);
    expect((await readHub(t, owner.key, hub.id)).categorySubEventIDs).toEqual(afterSecond.categorySubEventIDs);
    const [stored] = await t.owner`select count(*)::int as count from community.hub_events where hub_id = ${hub.id}`;
    expect(stored!.count).toBe(3);

    // Connecting ids that are all connected already changes nothing.
    const third: Hub = await (await putHub(t, owner.key, hub.id, { connectEventIds: [c, a] })).json();
    expect(third.categorySubEventIDs).toEqual(afterSecond.categorySubEventIDs);
  });

  it("categorySubEventIDs replaces the whole set, and fields change in the same PUT", async () => {
    const owner = await t.userWithKey();
    const hub = await createHub(t, owner.key);
    const [a, b, c, d] = [await createEvent(t, owner.key), await createEvent(t, owner.key), await createEvent(t, owner.key), await createEvent(t, owner.key)];
    expect((await putHub(t, owner.key, hub.id, { connectEventIds: [a, b, c] })).status).toBe(200);

    const replaced = await putHub(t, owner.key, hub.id, { categorySubEventIDs: [c, d, d], name: "Renamed" });
    expect(replaced.status).toBe(200);
    const body: Hub = await replaced.json();
    expect(body.categorySubEventIDs).toEqual([c, d]);
    expect(body.name).toBe("Renamed");

    const cleared: Hub = await (await putHub(t, owner.key, hub.id, { categorySubEventIDs: [] })).json();
    expect(cleared.categorySubEventIDs).toEqual([]);
    expect((await readHub(t, owner.key, hub.id)).categorySubEventIDs).toEqual([]);
  });

  it("shows each viewer only the connected events they can see", async () => {
    const [owner, viewer] = [await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);
    const open = await createEvent(t, owner.key);
    const secret = await createEvent(t, owner.key, { visibility: "private" });
    expect((await putHub(t, owner.key, hub.id, { connectEventIds: [open, secret] })).status).toBe(200);
    expect((await readHub(t, owner.key, hub.id)).categorySubEventIDs).toEqual([open, secret]);
    expect((await readHub(t, viewer.key, hub.id)).categorySubEventIDs).toEqual([open]);
    const listed = (await listAll(t, viewer.key)).find((h) => h.id === hub.id);
    expect(listed?.categorySubEventIDs).toEqual([open]);
  });
});

describe("listing", () => {
  it("answers the envelope and filters by hubType, status and search (name, slug, description; case-insensitive)", async () => {
    const owner = await t.userWithKey();
    const viewer = await t.userWithKey();
    const token = `tok${Math.random().toString(36).slice(2, 10)}`;
    const inName = await createHub(t, owner.key, { name: `Name ${token.toUpperCase()}`, hubType: "group" });
    const inSlug = await createHub(t, owner.key, { name: "Slug hub", slug: `s-${token}`, hubType: "nftCollection" });
    const inDescription = await createHub(t, owner.key, { name: "Desc hub", description: `about ${token}`, hubType: "nftCollection" });
    const draft = await createHub(t, owner.key, { name: `Draft ${token}`, status: "INCOMPLETE", hubType: "group" });
    await createHub(t, owner.key, { name: "Unrelated" });

    const page = await listPage(t, owner.key, `search=${token}`);
    expect(Object.keys(page).sort()).toEqual(["hasMore", "items", "nextCursor", "page", "take"]);
    expect(page).toMatchObject({ take: 20, page: 1, nextCursor: null, hasMore: false });
    expect(ids(page.items)).toEqual(ids([draft, inDescription, inSlug, inName]));
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(HUB_FIELDS);

    expect(ids((await listPage(t, owner.key, `search=${token}&hubType=nftCollection`)).items)).toEqual(ids([inDescription, inSlug]));
    expect(ids((await listPage(t, owner.key, `search=${token}&hubType=group`)).items)).toEqual(ids([draft, inName]));
    expect(ids((await listPage(t, owner.key, `search=${token}&status=INCOMPLETE`)).items)).toEqual(ids([draft]));
    expect(ids((await listPage(t, owner.key, `search=${token}&status=PUBLISHED&order=asc`)).items)).toEqual(ids([inName, inSlug, inDescription]));
    // Someone else does not see the draft.
    expect(ids((await listPage(t, viewer.key, `search=${token}`)).items)).toEqual(ids([inDescription, inSlug, inName]));

    // hubType alone: every item matches, and the matching hubs are there.
    const groups = await listAll(t, owner.key, "hubType=group");
    expect(groups.every((h) => h.hubType === "group")).toBe(true);
    expect(ids(groups)).toEqual(expect.arrayContaining(ids([draft, inName])));
    expect(ids(groups)).not.toContain(inSlug.id);
  });

  it("pages by cursor and by page number without gaps or repeats, by createdAt and by updatedAt", async () => {
    const owner = await t.userWithKey();
    const token = `page${Math.random().toString(36).slice(2, 10)}`;
    const made: Hub[] = [];
    for (let i = 0; i < 7; i++) made.push(await createHub(t, owner.key, { description: token }));
    // Touch the oldest so updatedAt order differs from createdAt order.
    expect((await putHub(t, owner.key, made[0]!.id, { description: `${token} touched` })).status).toBe(200);

    const newestFirst = ids(made).reverse();
    const first = await listPage(t, owner.key, `search=${token}&take=3`);
    expect(ids(first.items)).toEqual(newestFirst.slice(0, 3));
    expect(first.hasMore).toBe(true);
    const second = await listPage(t, owner.key, `search=${token}&take=3&cursor=${first.nextCursor}`);
    expect(second.page).toBeNull();
    expect(ids(second.items)).toEqual(newestFirst.slice(3, 6));
    const third = await listPage(t, owner.key, `search=${token}&take=3&cursor=${second.nextCursor}`);
    expect(ids(third.items)).toEqual(newestFirst.slice(6));
    expect(third).toMatchObject({ hasMore: false, nextCursor: null });

    const pageTwo = await listPage(t, owner.key, `search=${token}&take=3&page=2`);
    expect(pageTwo.page).toBe(2);
    expect(ids(pageTwo.items)).toEqual(newestFirst.slice(3, 6));

    const byUpdate = await listAll(t, owner.key, `search=${token}&sort=updatedAt&take=2`);
    expect(ids(byUpdate)).toEqual([made[0]!.id, ...newestFirst.slice(0, 6)]);
  });

  it("pages by cursor in ascending order without repeating the last row of a page", async () => {
    const owner = await t.userWithKey();
    const token = `asc${Math.random().toString(36).slice(2, 10)}`;
    const made: Hub[] = [];
    for (let i = 0; i < 5; i++) made.push(await createHub(t, owner.key, { description: token }));
    const oldestFirst = ids(made);
    expect(ids((await listPage(t, owner.key, `search=${token}&order=asc&take=5`)).items)).toEqual(oldestFirst);
    // Cursor values keep microseconds; a cursor rounded to milliseconds would repeat rows here.
    expect(ids(await listAll(t, owner.key, `search=${token}&order=asc&take=2`))).toEqual(oldestFirst);
    expect(ids(await listAll(t, owner.key, `search=${token}&sort=updatedAt&order=asc&take=2`))).toEqual(oldestFirst);
  });
});

describe('"My hubs" and "Discover" over 60 hubs', () => {
  let me: UserWithKey;
  let alice: UserWithKey;
  let bob: UserWithKey;
  const expectedMine = new Set<string>();
  const expectedDiscoverable = new Set<string>();
  const neverDiscoverable = new Set<string>();

  const addMember = (hubId: string, userId: string) => t.owner`insert into community.hub_members (hub_id, user_id) values (${hubId}, ${userId})`;

  beforeAll(async () => {
    [me, alice, bob] = [await t.userWithKey(), await t.userWithKey(), await t.userWithKey()];
    // alice: 20 published public hubs; I join 8 of them.
    for (let i = 0; i < 20; i++) {
      const hub = await createHub(t, alice.key, { hubType: i % 2 ? "group" : "nftCollection" });
      if (i % 5 < 2) {
        expect((await joinHub(t, me.key, hub.id)).status).toBe(201);
        expectedMine.add(hub.id);
        neverDiscoverable.add(hub.id);
      } else {
        expectedDiscoverable.add(hub.id);
      }
    }
    // bob: 10 published public (I join 2), 5 private (I am a member of 2), 5 INCOMPLETE (a member of 1).
    for (let i = 0; i < 10; i++) {
      const hub = await createHub(t, bob.key);
      if (i < 2) {
        expect((await joinHub(t, me.key, hub.id)).status).toBe(201);
        expectedMine.add(hub.id);
        neverDiscoverable.add(hub.id);
      } else {
        expectedDiscoverable.add(hub.id);
      }
    }
    for (let i = 0; i < 5; i++) {
      const hub = await createHub(t, bob.key, { isPrivate: true });
      neverDiscoverable.add(hub.id);
      if (i < 2) {
        await addMember(hub.id, me.id);
        expectedMine.add(hub.id);
      }
    }
    for (let i = 0; i < 5; i++) {
      const hub = await createHub(t, bob.key, { status: "INCOMPLETE" });
      neverDiscoverable.add(hub.id);
      if (i < 1) {
        await addMember(hub.id, me.id);
        expectedMine.add(hub.id);
      }
    }
    // Mine, created last so that the newest page is all mine: 10 published, 5 drafts, 5 private.
    for (let i = 0; i < 20; i++) {
      const hub = await createHub(t, me.key, i < 10 ? {} : i < 15 ? { status: "INCOMPLETE" } : { isPrivate: true });
      expectedMine.add(hub.id);
      neverDiscoverable.add(hub.id);
    }
  });

  const isMine = (hub: Hub) => hub.ownerId === me.id || hub.membersIDs.includes(me.id);

  it("client-side recipe (ownerId / membersIDs over batches of 50) equals scope=mine", async () => {
    const everything = await listAll(t, me.key, "take=50");
    const recipe = everything.filter(isMine);
    const mine = await listAll(t, me.key, "scope=mine&take=50");
    expect(ids(recipe)).toEqual(ids(mine));
    expect(new Set(ids(mine))).toEqual(expectedMine);
    expect(mine).toHaveLength(33);
    // Filters combine with the scope: my drafts plus the draft I am a member of.
    const drafts = await listAll(t, me.key, "scope=mine&status=INCOMPLETE");
    expect(ids(drafts)).toEqual(ids(mine.filter((h) => h.status === "INCOMPLETE")));
    expect(drafts).toHaveLength(6);
  });

  it("client-side Discover (fetch 50, remove own) matches scope=discover", async () => {
    const discover = await listAll(t, me.key, "scope=discover&take=50");
    for (const id of expectedDiscoverable) expect(ids(discover)).toContain(id);
    for (const hub of discover) {
      expect(neverDiscoverable.has(hub.id), hub.id).toBe(false);
      expect(hub).toMatchObject({ status: "PUBLISHED", isPrivate: false });
      expect(isMine(hub)).toBe(false);
    }

    // The recipe over one batch of 50 gives the head of the same list, in the same order.
    const batch = await listPage(t, me.key, "take=50");
    const recipe = batch.items.filter((h) => !isMine(h));
    expect(recipe.length).toBeGreaterThan(0);
    expect(ids(recipe)).toEqual(ids(discover).slice(0, recipe.length));
    // Over everything visible, the recipe is exactly scope=discover.
    expect(ids((await listAll(t, me.key, "take=50")).filter((h) => !isMine(h)))).toEqual(ids(discover));

    // Why the recipe needs a large batch: the newest 20 hubs are mine, so a page of 10 leaves nothing,
    // while the server-side scope still fills its page.
    const small = await listPage(t, me.key, "take=10");
    expect(small.items.filter((h) => !isMine(h))).toEqual([]);
    const serverSmall = await listPage(t, me.key, "scope=discover&take=10");
    expect(ids(serverSmall.items)).toEqual(ids(discover).slice(0, 10));
    expect(serverSmall.hasMore).toBe(true);
  });

  it("another user's scopes are their own", async () => {
    const alicesMine = await listAll(t, alice.key, "scope=mine");
    expect(alicesMine.every((h) => h.ownerId === alice.id || h.membersIDs.includes(alice.id))).toBe(true);
    expect(alicesMine).toHaveLength(20);
    const alicesDiscover = await listAll(t, alice.key, "scope=discover&hubType=group");
    expect(alicesDiscover.some((h) => h.ownerId === me.id)).toBe(true);
    expect(alicesDiscover.every((h) => h.ownerId !== alice.id && h.hubType === "group")).toBe(true);
  });
});
