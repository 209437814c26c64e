import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";
import { createEvent, createHub, getHub, type Hub, ids, joinHub, leaveHub, listAll, putHub, readHub } from "./hub-fixtures.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

/** The hub's row and connections as stored, read behind the API's back. */
async function stored(hubId: string) {
  const [row] = await t.owner`
    select name, slug, description, hub_type, status, is_private, updated_at,
      array(select event_id::text from community.hub_events where hub_id = ${hubId} order by event_id) as events,
      array(select user_id::text from community.hub_members where hub_id = ${hubId} order by user_id) as members
    from community.hubs where id = ${hubId}`;
  return row;
}

const addMember = (hubId: string, userId: string) => t.owner`insert into community.hub_members (hub_id, user_id) values (${hubId}, ${userId})`;

describe("who sees a hub", () => {
  it("a private hub is visible to its owner and members only, and never listed for anyone else", async () => {
    const [owner, member, stranger] = [await t.userWithKey(), await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key, { isPrivate: true });
    await addMember(hub.id, member.id);

    expect((await readHub(t, owner.key, hub.id)).membersIDs).toEqual([member.id]);
    expect((await readHub(t, member.key, hub.id)).id).toBe(hub.id);
    await expectErrorBody(await getHub(t, stranger.key, hub.id), 404, "not_found");

    for (const scope of ["all", "mine", "discover"]) {
      expect(ids(await listAll(t, stranger.key, `scope=${scope}`))).not.toContain(hub.id);
    }
    expect(ids(await listAll(t, stranger.key, `search=${encodeURIComponent(hub.name)}`))).toEqual([]);
    expect(ids(await listAll(t, owner.key, "scope=mine"))).toContain(hub.id);
    expect(ids(await listAll(t, member.key, "scope=mine"))).toContain(hub.id);
    // Not even for its owner and members is a private hub "discoverable".
    expect(ids(await listAll(t, member.key, "scope=discover"))).not.toContain(hub.id);
  });

  it("an INCOMPLETE hub is visible to its owner and members only", async () => {
    const [owner, member, stranger] = [await t.userWithKey(), await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);
    expect((await joinHub(t, member.key, hub.id)).status).toBe(201);
    expect((await putHub(t, owner.key, hub.id, { status: "INCOMPLETE" })).status).toBe(200);

    expect((await readHub(t, member.key, hub.id)).status).toBe("INCOMPLETE");
    expect(ids(await listAll(t, member.key))).toContain(hub.id);
    await expectErrorBody(await getHub(t, stranger.key, hub.id), 404, "not_found");
    expect(ids(await listAll(t, stranger.key))).not.toContain(hub.id);
    expect(ids(await listAll(t, stranger.key, "status=INCOMPLETE"))).not.toContain(hub.id);

    // Published again, it is everyone's.
    expect((await putHub(t, owner.key, hub.id, { status: "PUBLISHED" })).status).toBe(200);
    expect((await readHub(t, stranger.key, hub.id)).id).toBe(hub.id);
  });

  it("joining a hub you cannot see is 404 and adds nobody", async () => {
    const [owner, stranger] = [await t.userWithKey(), await t.userWithKey()];
    const secret = await createHub(t, owner.key, { isPrivate: true });
    const draft = await createHub(t, owner.key, { status: "INCOMPLETE" });
    await expectErrorBody(await joinHub(t, stranger.key, secret.id), 404, "not_found");
    await expectErrorBody(await joinHub(t, stranger.key, draft.id), 404, "not_found");
    await expectErrorBody(await joinHub(t, stranger.key, "0123456789abcdef01234567"), 404, "not_found");
    await expectErrorBody(await leaveHub(t, stranger.key, secret.id), 404, "not_found");
    expect((await stored(secret.id))!.members).toEqual([]);
    expect((await stored(draft.id))!.members).toEqual([]);
  });

  it("leaving removes only the caller", async () => {
    const [owner, a, b] = [await t.userWithKey(), await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);
    expect((await joinHub(t, a.key, hub.id)).status).toBe(201);
    await expectErrorBody(await leaveHub(t, b.key, hub.id), 404, "not_a_member");
    expect((await stored(hub.id))!.members).toEqual([a.id]);
  });

  it("needs an API key", async () => {
    await expectErrorBody(await t.call("/api/v3/hubs"), 401, "missing_api_key");
    await expectErrorBody(await t.call("/api/v3/hubs", { method: "POST", json: { name: "x", hubType: "group" } }), 401, "missing_api_key");
  });
});

describe("only the owner changes a hub", () => {
  it("a non-owner's PUT and DELETE are 403 not_hub_owner on a visible hub and change nothing", async () => {
    const [owner, member, stranger] = [await t.userWithKey(), await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);
    expect((await joinHub(t, member.key, hub.id)).status).toBe(201);
    const event = await createEvent(t, stranger.key);
    const before = await stored(hub.id);

    for (const caller of [member, stranger]) {
      await expectErrorBody(await putHub(t, caller.key, hub.id, { name: "Taken over" }), 403, "not_hub_owner");
      await expectErrorBody(await putHub(t, caller.key, hub.id, { connectEventIds: [event] }), 403, "not_hub_owner");
      await expectErrorBody(await putHub(t, caller.key, hub.id, { categorySubEventIDs: [] }), 403, "not_hub_owner");
      await expectErrorBody(await putHub(t, caller.key, hub.id, { isPrivate: true, connectEventIds: [event] }), 403, "not_hub_owner");
      await expectErrorBody(await t.call(`/api/v3/hubs/${hub.id}`, { method: "DELETE", key: caller.key }), 403, "not_hub_owner");
    }
    expect(await stored(hub.id)).toEqual(before);
  });

  it("a non-owner's PUT and DELETE on a hub they cannot see are 404", async () => {
    const [owner, stranger] = [await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key, { isPrivate: true });
    const before = await stored(hub.id);
    await expectErrorBody(await putHub(t, stranger.key, hub.id, { name: "x" }), 404, "not_found");
    await expectErrorBody(await putHub(t, stranger.key, hub.id, { connectEventIds: [] }), 404, "not_found");
    await expectErrorBody(await t.call(`/api/v3/hubs/${hub.id}`, { method: "DELETE", key: stranger.key }), 404, "not_found");
    expect(await stored(hub.id)).toEqual(before);
  });
});

describe("connecting events the caller may not name", () => {
  it("another user's private or draft event, or an unknown id, is 400 unknown_event_ids and connects nothing", async () => {
    const [owner, other] = [await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key, { name: "Original" });
    const good = await createEvent(t, owner.key);
    const otherPrivate = await createEvent(t, other.key, { visibility: "private" });
    const otherDraft = await createEvent(t, other.key, { status: "INCOMPLETE" });
    const missing = "0123456789abcdef01234567";
    const before = await stored(hub.id);

    for (const bad of [otherPrivate, otherDraft, missing]) {
      const body = await expectErrorBody(await putHub(t, owner.key, hub.id, { connectEventIds: [good, bad] }), 400, "unknown_event_ids");
      expect(body.details).toEqual({ eventIds: [bad] });
    }
    // Every bad id is named; a field change in the same PUT is rolled back with the connection.
    const body = await expectErrorBody(
      await putHub(t, owner.key, hub.id, { name: "Changed", connectEventIds: [missing, good, otherPrivate] }),
      400,
      "unknown_event_ids",
    );
    expect(body.details.eventIds.sort()).toEqual([missing, otherPrivate].sort());
    expect(body.message).toMatch(/nothing was changed/);
    expect(await stored(hub.id)).toEqual(before);
    expect((await readHub(t, owner.key, hub.id)).categorySubEventIDs).toEqual([]);
  });

  it("a replacement with a bad id removes nothing", async () => {
    const [owner, other] = [await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);
    const [a, b] = [await createEvent(t, owner.key), await createEvent(t, owner.key)];
    expect((await putHub(t, owner.key, hub.id, { connectEventIds: [a, b] })).status).toBe(200);
    const otherPrivate = await createEvent(t, other.key, { visibility: "private" });
    const before = await stored(hub.id);
    await expectErrorBody(await putHub(t, owner.key, hub.id, { categorySubEventIDs: [a, otherPrivate] }), 400, "unknown_event_ids");
    expect(await stored(hub.id)).toEqual(before);
    expect(before!.events).toEqual([a, b].sort());
  });

  it("a replacement keeps connections to events the owner can no longer see, and hides them", async () => {
    const [owner, other] = [await t.userWithKey(), await t.userWithKey()];
    const hub = await createHub(t, owner.key);
    const theirs = await createEvent(t, other.key);
    const mine = await createEvent(t, owner.key);
    expect((await putHub(t, owner.key, hub.id, { connectEventIds: [theirs] })).status).toBe(200);
    expect((await t.call(`/api/v3/events/${theirs}`, { method: "PATCH", key: other.key, json: { visibility: "private" } })).status).toBe(200);

    const replaced: Hub = await (await putHub(t, owner.key, hub.id, { categorySubEventIDs: [mine] })).json();
    expect(replaced.categorySubEventIDs).toEqual([mine]);
    expect((await stored(hub.id))!.events).toEqual([theirs, mine].sort());
  });
});

describe("refused parameters and bodies", () => {
  it("`private` on a list is 400 private_not_supported, whatever its value", async () => {
    const user = await t.userWithKey();
    for (const value of ["false", "true", ""]) {
      await expectErrorBody(await t.call(`/api/v3/hubs?private=${value}`, { key: user.key }), 400, "private_not_supported");
    }
  });

  it("`limit` is 400 limit_not_supported; take outside 1-100 is 400", async () => {
    const user = await t.userWithKey();
    await expectErrorBody(await t.call("/api/v3/hubs?limit=10", { key: user.key }), 400, "limit_not_supported");
    await expectErrorBody(await t.call("/api/v3/hubs?take=0", { key: user.key }), 400, "validation_failed");
    await expectErrorBody(await t.call("/api/v3/hubs?take=101", { key: user.key }), 400, "validation_failed");
    await expectErrorBody(await t.call("/api/v3/hubs?scope=everyone", { key: user.key }), 400, "validation_failed");
    await expectErrorBody(await t.call("/api/v3/hubs?hubType=club", { key: user.key }), 400, "validation_failed");
  });

  it("refuses connectEventIds together with categorySubEventIDs, an empty PUT, and unknown body fields", async () => {
    const owner = await t.userWithKey();
    const hub = await createHub(t, owner.key);
    const event = await createEvent(t, owner.key);
    const before = await stored(hub.id);
    await expectErrorBody(await putHub(t, owner.key, hub.id, { connectEventIds: [event], categorySubEventIDs: [event] }), 400, "connect_and_replace");
    await expectErrorBody(await putHub(t, owner.key, hub.id, {}), 400, "validation_failed");
    await expectErrorBody(await putHub(t, owner.key, hub.id, { private: true }), 400, "validation_failed");
    await expectErrorBody(await putHub(t, owner.key, hub.id, { ownerId: owner.id }), 400, "validation_failed");
    await expectErrorBody(await putHub(t, owner.key, hub.id, { membersIDs: [owner.id] }), 400, "validation_failed");
    await expectErrorBody(await putHub(t, owner.key, hub.id, { connectEventIds: ["not-an-id"] }), 400, "validation_failed");
    await expectErrorBody(await putHub(t, owner.key, "not-a-hub", { name: "x" }), 400, "validation_failed");
    await expectErrorBody(
      await t.call("/api/v3/hubs", { method: "POST", key: owner.key, json: { name: "x", hubType: "group", private: true } }),
      400,
      "validation_failed",
    );
    await expectErrorBody(await t.call("/api/v3/hubs", { method: "POST", key: owner.key, json: { name: "x" } }), 400, "validation_failed");
    // A NUL byte cannot be stored in text: a 400, not a 500.
    await expectErrorBody(await putHub(t, owner.key, hub.id, { description: "a\u0000b" }), 400, "validation_failed");
    await expectErrorBody(
      await t.call("/api/v3/hubs", { method: "POST", key: owner.key, json: { name: "a\u0000b", slug: "nul", hubType: "group" } }),
      400,
      "validation_failed",
    );
    expect(await stored(hub.id)).toEqual(before);
  });
});
