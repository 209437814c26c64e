import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { createEvent, EVM_COLLECTION, eventBody, getEvent, listedIds, postEvent, SUI_COLLECTION, type EventItem } from "./event-fixtures.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const patch = (id: string, key: string, json: unknown) => t.call(`/api/v3/events/${id}`, { method: "PATCH", key, json });
const remove = (id: string, key: string) => t.call(`/api/v3/events/${id}`, { method: "DELETE", key });

/** The stored row as the database owner sees it, behind RLS's back. */
async function storedRow(id: string) {
  const [row] = await t.owner`select * from community.events where id = ${id}`;
  return row;
}

async function eventCount(ownerId: string): Promise<number> {
  const [row] = await t.owner`select count(*)::int as n from community.events where owner_id = ${ownerId}`;
  return row!.n as number;
}

describe("who sees an event (RLS through the API)", () => {
  let owner: UserWithKey;
  let other: UserWithKey;
  const events = {} as Record<"published" | "unlisted" | "private" | "privateDraft" | "draft" | "unlistedDraft", EventItem>;

  beforeAll(async () => {
    owner = await t.userWithKey();
    other = await t.userWithKey();
    events.published = await createEvent(t, owner.key, { status: "PUBLISHED", visibility: "public" });
    events.unlisted = await createEvent(t, owner.key, { status: "PUBLISHED", visibility: "unlisted" });
    events.private = await createEvent(t, owner.key, { status: "PUBLISHED", visibility: "private" });
    events.privateDraft = await createEvent(t, owner.key, { status: "INCOMPLETE", visibility: "private" });
    events.draft = await createEvent(t, owner.key, { status: "INCOMPLETE", visibility: "public" });
    events.unlistedDraft = await createEvent(t, owner.key, { status: "INCOMPLETE", visibility: "unlisted" });
  });

  it("the owner reads and lists every one of their events, unlisted and private included", async () => {
    for (const event of Object.values(events)) {
      const response = await getEvent(t, owner.key, event.id);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(event);
    }
    const all = Object.values(events).map((e) => e.id);
    expect(await listedIds(t, owner.key)).toEqual(expect.arrayContaining(all));
    expect((await listedIds(t, owner.key, { scope: "mine" })).sort()).toEqual([...all].sort());
  });

  it("a PUBLISHED public event is readable by others and listed for them", async () => {
    const response = await getEvent(t, other.key, events.published.id);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(events.published);
    expect(await listedIds(t, other.key)).toContain(events.published.id);
    expect(await listedIds(t, other.key, { status: "PUBLISHED" })).toContain(events.published.id);
  });

  it("a PUBLISHED unlisted event is readable by id by others but never listed for them", async () => {
    const response = await getEvent(t, other.key, events.unlisted.id);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(events.unlisted);
    const queries: Record<string, string>[] = [{}, { status: "PUBLISHED" }, { search: events.unlisted.name }, { sort: "updatedAt", order: "asc" }];
    for (const query of queries) {
      expect(await listedIds(t, other.key, query)).not.toContain(events.unlisted.id);
    }
    // Listed for the owner, including when searched by name.
    expect(await listedIds(t, owner.key, { search: events.unlisted.name })).toEqual([events.unlisted.id]);
  });

  it.each(["private", "privateDraft", "draft", "unlistedDraft"] as const)(
    "a %s event answers 404 to others and is never listed for them",
    async (which) => {
      const event = events[which];
      await expectErrorBody(await getEvent(t, other.key, event.id), 404, "not_found");
      const queries: Record<string, string>[] = [{}, { status: "INCOMPLETE" }, { status: "PUBLISHED" }, { search: event.name }];
      for (const query of queries) {
        expect(await listedIds(t, other.key, query)).not.toContain(event.id);
      }
    },
  );

  it("the 404 for an invisible event is the same as for an id that does not exist", async () => {
    const invisible = await expectErrorBody(await getEvent(t, other.key, events.private.id), 404, "not_found");
    const missing = await expectErrorBody(await getEvent(t, other.key, "ffffffffffffffffffffffff"), 404, "not_found");
    expect(invisible.message).toBe(missing.message);
  });

  it.each(["published", "unlisted"] as const)(
    "others get 403 not_event_owner on PATCH and DELETE of a visible (%s) event, which stays unchanged",
    async (which) => {
      const event = events[which];
      const before = await storedRow(event.id);
      await expectErrorBody(await patch(event.id, other.key, { name: "Hijacked", visibility: "private" }), 403, "not_event_owner");
      await expectErrorBody(await patch(event.id, other.key, { status: "INCOMPLETE" }), 403, "not_event_owner");
      await expectErrorBody(await remove(event.id, other.key), 403, "not_event_owner");
      expect(await storedRow(event.id)).toEqual(before);
      expect(await (await getEvent(t, owner.key, event.id)).json()).toEqual(event);
    },
  );

  it.each(["private", "privateDraft", "draft", "unlistedDraft"] as const)(
    "others get 404 on PATCH and DELETE of an invisible (%s) event, which stays unchanged",
    async (which) => {
      const event = events[which];
      const before = await storedRow(event.id);
      await expectErrorBody(await patch(event.id, other.key, { name: "Hijacked" }), 404, "not_found");
      await expectErrorBody(await remove(event.id, other.key), 404, "not_found");
      expect(await storedRow(event.id)).toEqual(before);
    },
  );

  it("PATCH and DELETE of an id that does not exist answer 404", async () => {
    await expectErrorBody(await patch("ffffffffffffffffffffffff", owner.key, { name: "x" }), 404, "not_found");
    await expectErrorBody(await remove("ffffffffffffffffffffffff", owner.key), 404, "not_found");
  });

  it("ownership cannot be moved: ownerId, id and timestamps are not writable fields", async () => {
    const event = events.published;
    const before = await storedRow(event.id);
    for (const field of [{ ownerId: other.id }, { owner_id: other.id }, { id: "ffffffffffffffffffffffff" }, { createdAt: "2000-01-01T00:00:00Z" }]) {
      await expectErrorBody(await patch(event.id, owner.key, field), 400, "validation_failed");
    }
    expect(await storedRow(event.id)).toEqual(before);
    const response = await postEvent(t, other.key, eventBody({ ownerId: owner.id }));
    await expectErrorBody(response, 400, "validation_failed");
  });

  it("without a key every events route answers 401", async () => {
    const id = events.published.id;
    await expectErrorBody(await t.call("/api/v3/events"), 401, "missing_api_key");
    await expectErrorBody(await t.call("/api/v3/events", { method: "POST", json: eventBody() }), 401, "missing_api_key");
    await expectErrorBody(await t.call(`/api/v3/events/${id}`), 401, "missing_api_key");
    await expectErrorBody(await t.call(`/api/v3/events/${id}`, { method: "PATCH", json: { name: "x" } }), 401, "missing_api_key");
    await expectErrorBody(await t.call(`/api/v3/events/${id}`, { method: "DELETE" }), 401, "missing_api_key");
    expect((await storedRow(id))!.name).toBe(events.published.name);
  });
});

describe("text is well-formed Unicode", () => {
  it("a lone UTF-16 surrogate in a name or a venue is refused with 400, never stored as U+FFFD", async () => {
    const user = await t.userWithKey();
    const refused = await expectErrorBody(await postEvent(t, user.key, eventBody({ name: "Gala \ud800 night" })), 400, "validation_failed");
    expect(refused.details.issues[0].path).toBe("name");
    await expectErrorBody(await postEvent(t, user.key, eventBody({ description: "\udc00 alone" })), 400, "validation_failed");
    expect(await eventCount(user.id)).toBe(0);
    const paired = await postEvent(t, user.key, eventBody({ name: "Gala \ud83c\udf89 night" }));
    expect(paired.status).toBe(201);
    expect((await paired.json()).name).toBe("Gala 🎉 night");
  });
});

describe("slugs are unique per owner", () => {
  it("a duplicate slug for the same owner answers 409 slug_taken; another owner may reuse it", async () => {
    const a = await t.userWithKey();
    const b = await t.userWithKey();
    const first = await createEvent(t, a.key, { slug: "genesis-party" });
    await expectErrorBody(await postEvent(t, a.key, eventBody({ slug: "genesis-party" })), 409, "slug_taken");
    expect(await eventCount(a.id)).toBe(1);

    const reused = await createEvent(t, b.key, { slug: "genesis-party" });
    expect(reused.slug).toBe("genesis-party");
    expect(reused.id).not.toBe(first.id);
  });

  it("a derived slug is made unique with a suffix: no 409 for a slug the caller never sent", async () => {
    const a = await t.userWithKey();
    const slugs = [];
    for (const name of ["Berlin Web3 Night!", "berlin web3 night", "Berlin  Web3 Night"]) slugs.push((await createEvent(t, a.key, { name })).slug);
    expect(slugs).toEqual(["berlin-web3-night", "berlin-web3-night-2", "berlin-web3-night-3"]);
    // An explicit slug that a derived one took later is still the caller's choice: 409.
    await expectErrorBody(await postEvent(t, a.key, eventBody({ slug: "berlin-web3-night-2" })), 409, "slug_taken");
  });

  it("names without latin letters or digits fall back to `event`, accents are folded, long names fit", async () => {
    const a = await t.userWithKey();
    expect((await createEvent(t, a.key, { name: "東京の夜" })).slug).toBe("event");
    expect((await createEvent(t, a.key, { name: "東京の夜" })).slug).toBe("event-2");
    expect((await createEvent(t, a.key, { name: "Fête à Montréal" })).slug).toBe("fete-a-montreal");
    const long = "x".repeat(150);
    expect((await createEvent(t, a.key, { name: long })).slug).toBe("x".repeat(120));
    expect((await createEvent(t, a.key, { name: long })).slug).toBe(`${"x".repeat(110)}-2`);
  });

  it("20 concurrent creations with one name get 20 distinct slugs, never a 409", async () => {
    const a = await t.userWithKey();
    const responses = await Promise.all(Array.from({ length: 20 }, () => postEvent(t, a.key, eventBody({ name: "Weekly Meetup" }))));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const slugs = await Promise.all(responses.map(async (r) => (await r.json()).slug as string));
    expect(new Set(slugs).size).toBe(20);
    expect(slugs).toContain("weekly-meetup");
    expect(slugs).toContain("weekly-meetup-20");
  });

  it("renaming the slug to one the owner already uses answers 409 slug_taken and changes nothing", async () => {
    const a = await t.userWithKey();
    await createEvent(t, a.key, { slug: "taken-slug" });
    const second = await createEvent(t, a.key, { slug: "free-slug" });
    const before = await storedRow(second.id);
    await expectErrorBody(await patch(second.id, a.key, { slug: "taken-slug", name: "Also renamed" }), 409, "slug_taken");
    expect(await storedRow(second.id)).toEqual(before);
    // Keeping one's own slug is not a conflict.
    expect((await patch(second.id, a.key, { slug: "free-slug" })).status).toBe(200);
  });
});

describe("validation answers 400 with the error body and stores nothing", () => {
  let user: UserWithKey;
  beforeAll(async () => {
    user = await t.userWithKey();
  });

  const evmRule = { chain: "evm", chainId: 8453, collection: EVM_COLLECTION, grants: ["view"] };
  const suiRule = { chain: "sui", chainId: "sui:mainnet", collection: SUI_COLLECTION, grants: ["view"] };

  it.each([
    ["endsAt before startsAt", { startsAt: "2026-12-05T19:00:00Z", endsAt: "2026-12-05T18:59:59Z" }, "endsAt"],
    // 19:30+01:00 is 18:30Z: before the start, though it reads later as text.
    ["endsAt before startsAt across offsets", { startsAt: "2026-12-05T19:00:00Z", endsAt: "2026-12-05T19:30:00+01:00" }, "endsAt"],
    ["an unknown time zone", { timeZone: "Mars/Base" }, "timeZone"],
    ["a time zone that is not a zone name", { timeZone: "'; drop table community.events; --" }, "timeZone"],
    ["a start that is not a timestamp", { startsAt: "next friday" }, "startsAt"],
    ["an EVM rule with a collection that is not an address", { accessRules: [{ ...evmRule, collection: "cryptopunks" }] }, "accessRules.0.collection"],
    ["an EVM rule with a Sui collection", { accessRules: [{ ...evmRule, collection: SUI_COLLECTION }] }, "accessRules.0.collection"],
    ["an EVM rule with a sui chainId", { accessRules: [{ ...evmRule, chainId: "sui:mainnet" }] }, "accessRules.0.chainId"],
    ["a Sui rule with a numeric chainId", { accessRules: [{ ...suiRule, chainId: 101 }] }, "accessRules.0.chainId"],
    ["a Sui rule with an EVM-looking collection that is not hex", { accessRules: [{ ...suiRule, collection: "0xZZ" }] }, "accessRules.0.collection"],
    ["a rule for an unknown chain", { accessRules: [{ ...evmRule, chain: "solana" }] }, "accessRules.0.chain"],
    ["a rule that grants nothing", { accessRules: [{ ...evmRule, grants: [] }] }, "accessRules.0.grants"],
    ["a rule with an unknown grant", { accessRules: [{ ...evmRule, grants: ["admin"] }] }, "accessRules.0.grants.0"],
    ["a rule with an unknown field", { accessRules: [{ ...evmRule, standard: "erc721" }] }, "accessRules.0"],
    ["a tokenId that is a number", { accessRules: [{ ...evmRule, tokenId: 7 }] }, "accessRules.0.tokenId"],
    ["a tokenId with a leading zero", { accessRules: [{ ...evmRule, tokenId: "07" }] }, "accessRules.0.tokenId"],
    ["a tokenId beyond 256 bits", { accessRules: [{ ...evmRule, tokenId: String(2n ** 256n) }] }, "accessRules.0.tokenId"],
    ["a Sui rule with a tokenId", { accessRules: [{ ...suiRule, tokenId: "1" }] }, "accessRules.0.tokenId"],
    ["a Sui rule on a network that does not exist", { accessRules: [{ ...suiRule, chainId: "sui:staging" }] }, "accessRules.0.chainId"],
    ["21 access rules", { accessRules: Array.from({ length: 21 }, () => evmRule) }, "accessRules"],
    ["an unknown body field", { colour: "red" }, null],
    ["an unknown visibility", { visibility: "secret" }, "visibility"],
    ["an unknown status", { status: "DRAFT" }, "status"],
    ["a slug with upper case", { slug: "Berlin-Night" }, "slug"],
    ["a slug with a double dash", { slug: "berlin--night" }, "slug"],
    ["an empty name", { name: "   " }, "name"],
    ["a name over 200 characters", { name: "x".repeat(201) }, "name"],
    ["latitude out of range", { venue: { name: "V", address: {}, coordinates: { lat: 91, lng: 0 } } }, "venue.coordinates.lat"],
    ["a country that is not ISO alpha-2", { venue: { name: "V", address: { country: "Germany" } } }, "venue.address.country"],
    ["an unknown address field", { venue: { name: "V", address: { street: "Main St" } } }, "venue.address"],
  ])("%s", async (_label, overrides, path) => {
    const response = await postEvent(t, user.key, eventBody(overrides));
    const body = await expectErrorBody(response, 400, "validation_failed");
    if (path) expect(body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await eventCount(user.id)).toBe(0);
  });

  it.each([
    ["a missing name", "name"],
    ["a missing startsAt", "startsAt"],
    ["a missing timeZone", "timeZone"],
  ])("%s", async (_label, field) => {
    const body = eventBody();
    delete body[field];
    const error = await expectErrorBody(await postEvent(t, user.key, body), 400, "validation_failed");
    expect(error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
    expect(await eventCount(user.id)).toBe(0);
  });

  it.each([
    ["name", (s: string) => ({ name: s })],
    ["description", (s: string) => ({ description: s })],
    ["venue name", (s: string) => ({ venue: { name: s, address: {} } })],
    ["venue address", (s: string) => ({ venue: { name: "V", address: { line1: s } } })],
  ])("a NUL byte in the %s answers 400, not 500", async (_label, build) => {
    const response = await postEvent(t, user.key, eventBody(build("bad\u0000value")));
    expect(response.status).toBe(400);
    await expectErrorBody(response, 400, "validation_failed");
    expect(await eventCount(user.id)).toBe(0);
  });

  it("malformed JSON answers 400 invalid_json", async () => {
    const response = await t.call("/api/v3/events", {
      method: "POST",
      key: user.key,
      headers: { "content-type": "application/json" },
      body: '{"name": "unterminated',
    });
    await expectErrorBody(response, 400, "invalid_json");
  });

  it.each(["not-an-id", "0123456789ABCDEF01234567", "0123456789abcdef0123456", "0123456789abcdef012345678", "' or '1'='1"])(
    "a bad event id in the path (%j) answers 400 validation_failed on GET, PATCH and DELETE",
    async (id) => {
      const path = `/api/v3/events/${encodeURIComponent(id)}`;
      await expectErrorBody(await t.call(path, { key: user.key }), 400, "validation_failed");
      await expectErrorBody(await t.call(path, { method: "PATCH", key: user.key, json: { name: "x" } }), 400, "validation_failed");
      await expectErrorBody(await t.call(path, { method: "DELETE", key: user.key }), 400, "validation_failed");
    },
  );

  describe("PATCH", () => {
    let owner: UserWithKey;
    let event: EventItem;
    beforeAll(async () => {
      owner = await t.userWithKey();
      event = await createEvent(t, owner.key, { startsAt: "2026-12-05T19:00:00Z", endsAt: "2026-12-05T23:00:00Z" });
    });

    it.each([
      ["an empty body", {}],
      ["only unknown fields", { colour: "red", limit: 3 }],
      ["a known field beside an unknown one", { name: "Fine", colour: "red" }],
      ["null for a required field", { name: null }],
      ["null for the description", { description: null }],
      ["endsAt before startsAt in the body", { startsAt: "2026-12-05T19:00:00Z", endsAt: "2026-12-05T18:00:00Z" }],
      ["endsAt before the stored startsAt", { endsAt: "2026-12-05T18:00:00Z" }],
      ["startsAt after the stored endsAt", { startsAt: "2026-12-06T00:00:00Z" }],
      ["a bad time zone", { timeZone: "Mars/Base" }],
      ["a NUL byte in the name", { name: "a\u0000b" }],
      ["a NUL byte in the venue address", { venue: { name: "V", address: { city: "a\u0000b" } } }],
    ])("%s answers 400 and changes nothing", async (_label, json) => {
      const before = await storedRow(event.id);
      const response = await patch(event.id, owner.key, json);
      expect(response.status).toBe(400);
      await expectErrorBody(response, 400, "validation_failed");
      expect(await storedRow(event.id)).toEqual(before);
    });
  });
});
