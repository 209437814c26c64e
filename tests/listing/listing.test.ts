// The listing rules of SPEC.md 4.2 (take, page, cursor, sort, order, search, filters, refused
// parameters, envelope), run against GET /api/v3/events; hubs use the same module.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { createEvent, listPage, walkPages, type EventPage } from "../events/event-fixtures.ts";

let t: TestContext;
let viewer: UserWithKey;
let other: UserWithKey;

beforeAll(async () => {
  t = await createTestContext();
  viewer = await t.userWithKey();
  other = await t.userWithKey();
});
afterAll(() => t.close());

const list = (query: string, key = viewer.key) => t.call(`/api/v3/events${query ? `?${query}` : ""}`, { key });

function cursorOf(payload: unknown): string {
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

// ---------------------------------------------------------------------------------------------
// Fixture: 33 events inserted in ONE statement by the database owner, with chosen timestamps:
//  - six share one created_at (the id decides their order), five share one updated_at;
//  - seven (created) and six (updated) differ by single microseconds within one millisecond, and
//    every other timestamp has a sub-millisecond part, so a cursor that lost its microseconds
//    would repeat rows (asc) or skip them (desc);
//  - six are invisible in the viewer's list (someone else's private, draft or unlisted event),
//    placed between visible ones, inside the tie groups too.
// ---------------------------------------------------------------------------------------------
const BASE = Date.parse("2026-03-01T10:00:00Z");
const at = (seconds: number, micros: number) =>
  new Date(BASE + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, `.${String(micros).padStart(6, "0")}Z`);

type Kind = { mine: boolean; status: "PUBLISHED" | "INCOMPLETE"; visibility: "public" | "unlisted" | "private" };
const VISIBLE_KINDS: Kind[] = [
  { mine: true, status: "PUBLISHED", visibility: "public" },
  { mine: false, status: "PUBLISHED", visibility: "public" },
  { mine: true, status: "PUBLISHED", visibility: "private" },
  { mine: true, status: "INCOMPLETE", visibility: "public" },
  { mine: true, status: "PUBLISHED", visibility: "unlisted" },
  { mine: false, status: "PUBLISHED", visibility: "public" },
];
const INVISIBLE_KINDS: Kind[] = [
  { mine: false, status: "PUBLISHED", visibility: "private" },
  { mine: false, status: "INCOMPLETE", visibility: "public" },
  { mine: false, status: "PUBLISHED", visibility: "unlisted" },
  { mine: false, status: "INCOMPLETE", visibility: "private" },
  { mine: false, status: "INCOMPLETE", visibility: "unlisted" },
];
const CREATED_TIE = [10, 11, 12, 13, 14, 15];
const CREATED_MICRO = [20, 21, 22, 23, 24, 25, 26];
const UPDATED_TIE = [0, 5, 11, 17, 24];
const UPDATED_MICRO = [2, 9, 27, 29, 31, 32];
const seededName = (i: number) => `Seeded ${String(i).padStart(2, "0")}`;

interface Seeded { id: string; name: string; visible: boolean }
let seeded: Seeded[] = [];

async function seed() {
  const rows = Array.from({ length: 33 }, (_, i) => {
    const visible = i % 5 !== 3;
    const kind = visible ? VISIBLE_KINDS[i % VISIBLE_KINDS.length]! : INVISIBLE_KINDS[Math.floor(i / 5) % INVISIBLE_KINDS.length]!;
    const created = CREATED_TIE.includes(i) ? at(10, 500_000)
      : CREATED_MICRO.includes(i) ? at(20, 123_456 + CREATED_MICRO.indexOf(i))
      : at(i, (i * 7919) % 1_000_000);
    const updated = UPDATED_TIE.includes(i) ? at(1000, 0)
      : UPDATED_MICRO.includes(i) ? at(2000, 777_001 + UPDATED_MICRO.indexOf(i))
      : at(500 + ((i * 7) % 33), (i * 104_729) % 1_000_000);
    return {
      owner_id: kind.mine ? viewer.id : other.id,
      name: seededName(i),
      slug: `seeded-${i}`,
      starts_at: "2026-06-01T18:00:00Z",
      ends_at: "2026-06-01T22:00:00Z",
      time_zone: "Europe/Berlin",
      status: kind.status,
      visibility: kind.visibility,
      created_at: created,
      updated_at: updated,
    };
  });
  // Through jsonb, not as timestamptz parameters: postgres.js serializes those via Date and would
  // drop the microseconds this fixture is about.
  const inserted = await t.owner<{ id: string; name: string }[]>`
    insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone, status, visibility, created_at, updated_at)
    select owner_id, name, slug, starts_at, ends_at, time_zone, status::community.publication_status,
           visibility::community.event_visibility, created_at, updated_at
    from jsonb_to_recordset(${t.owner.json(rows)}::jsonb) as r(
      owner_id text, name text, slug text, starts_at timestamptz, ends_at timestamptz, time_zone text,
      status text, visibility text, created_at timestamptz, updated_at timestamptz)
    returning id, name`;
  seeded = inserted.map((r) => ({ id: r.id, name: r.name, visible: Number(r.name.slice(7)) % 5 !== 3 }));

  // The fixture is what it claims: the ties are ties and the microseconds are stored.
  const [check] = await t.owner`
    select (select count(distinct created_at)::int from community.events where name = any(${CREATED_TIE.map(seededName)})) as created_tie,
           (select count(distinct updated_at)::int from community.events where name = any(${UPDATED_TIE.map(seededName)})) as updated_tie,
           (select array_agg(to_char(created_at, 'US') order by name) from community.events where name = any(${CREATED_MICRO.map(seededName)})) as micros`;
  expect(check).toEqual({
    created_tie: 1,
    updated_tie: 1,
    micros: CREATED_MICRO.map((_, k) => String(123_456 + k)),
  });
}

/** Some page boundary (a multiple of `take`) falls strictly inside the run of `group` in `order`. */
function boundaryInside(group: number[], order: string[], take: number): boolean {
  const positions = group
    .map((i) => seeded.find((s) => s.name === seededName(i))!)
    .filter((s) => s.visible)
    .map((s) => order.indexOf(s.id));
  const [first, last] = [Math.min(...positions), Math.max(...positions)];
  expect(last - first + 1).toBe(positions.length); // contiguous in the order
  return Array.from({ length: last - first }, (_, k) => first + 1 + k).some((p) => p % take === 0);
}

/**
 * The oracle: every event in the database that the viewer's list must show, in the order asked,
 * computed from the stored microsecond timestamps (not from the API's millisecond JSON).
 */
async function expectedIds(sort: "createdAt" | "updatedAt", order: "asc" | "desc"): Promise<string[]> {
  const rows = await t.owner<{ id: string; owner_id: string; status: string; visibility: string; ts: string }[]>`
    select id, owner_id, status::text, visibility::text,
           to_char(${sort === "createdAt" ? t.owner`created_at` : t.owner`updated_at`} at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as ts
    from community.events`;
  const listed = rows.filter((r) => r.owner_id === viewer.id || (r.status === "PUBLISHED" && r.visibility === "public"));
  listed.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = listed.map((r) => r.id);
  return order === "asc" ? ids : ids.reverse();
}

describe("cursor and offset paging", () => {
  beforeAll(seed);

  it("the oracle lists every visible fixture and none of the invisible ones", async () => {
    const expected = await expectedIds("createdAt", "desc");
    expect(seeded.filter((s) => s.visible)).toHaveLength(27);
    expect(expected).toEqual(expect.arrayContaining(seeded.filter((s) => s.visible).map((s) => s.id)));
    for (const s of seeded.filter((s) => !s.visible)) expect(expected).not.toContain(s.id);
  });

  it("take defaults to 20; the first page is page 1 with a cursor to the next", async () => {
    const response = await list("");
    expect(response.status).toBe(200);
    const page = (await response.json()) as EventPage;
    expect(Object.keys(page).sort()).toEqual(["hasMore", "items", "nextCursor", "page", "take"]);
    expect(page.take).toBe(20);
    expect(page.page).toBe(1);
    expect(page.hasMore).toBe(true);
    expect(typeof page.nextCursor).toBe("string");
    expect(page.items.map((e) => e.id)).toEqual((await expectedIds("createdAt", "desc")).slice(0, 20));
  });

  it.each([1, 100])("take=%i is accepted and honoured", async (take) => {
    const page = await listPage(t, viewer.key, { take });
    const expected = await expectedIds("createdAt", "desc");
    expect(page.take).toBe(take);
    expect(page.items.map((e) => e.id)).toEqual(expected.slice(0, take));
    expect(page.hasMore).toBe(expected.length > take);
  });

  describe.each([
    ["createdAt", "asc"],
    ["createdAt", "desc"],
    ["updatedAt", "asc"],
    ["updatedAt", "desc"],
  ] as const)("sort=%s order=%s", (sort, order) => {
    it("walking the cursor returns every visible event exactly once, in order, through the ties", async () => {
      const expected = await expectedIds(sort, order);
      const take = 4;
      const pages = await walkPages(t, viewer.key, { take, sort, order });
      const ids = pages.flatMap((p) => p.items.map((e) => e.id));
      expect(ids).toEqual(expected);
      expect(new Set(ids).size).toBe(ids.length);

      // Page boundaries fall inside the tie group (the id tie-breaker carries the cursor across) and
      // inside the same-millisecond group (only the microseconds do).
      expect(boundaryInside(sort === "createdAt" ? CREATED_TIE : UPDATED_TIE, expected, take)).toBe(true);
      expect(boundaryInside(sort === "createdAt" ? CREATED_MICRO : UPDATED_MICRO, expected, take)).toBe(true);

      // The envelope of each page.
      pages.forEach((page, index) => {
        const isLast = index === pages.length - 1;
        expect(Object.keys(page).sort()).toEqual(["hasMore", "items", "nextCursor", "page", "take"]);
        expect(page.take).toBe(take);
        expect(page.page).toBe(index === 0 ? 1 : null);
        expect(page.hasMore).toBe(!isLast);
        if (isLast) expect(page.nextCursor).toBeNull();
        else expect(page.nextCursor).toEqual(expect.any(String));
        if (!isLast) expect(page.items).toHaveLength(take);
      });
      expect(pages.at(-1)!.items.length).toBe(expected.length - take * (pages.length - 1));
    });

    it("page=2 (offset) is the second cursor page, and its nextCursor continues with the third", async () => {
      const expected = await expectedIds(sort, order);
      const second = await listPage(t, viewer.key, { take: 5, sort, order, page: 2 });
      expect(second.page).toBe(2);
      expect(second.items.map((e) => e.id)).toEqual(expected.slice(5, 10));
      const first = await listPage(t, viewer.key, { take: 5, sort, order });
      const byCursor = await listPage(t, viewer.key, { take: 5, sort, order, cursor: first.nextCursor! });
      expect(byCursor.items.map((e) => e.id)).toEqual(second.items.map((e) => e.id));
      expect(byCursor.page).toBeNull();

      const third = await listPage(t, viewer.key, { take: 5, sort, order, cursor: second.nextCursor! });
      expect(third.items.map((e) => e.id)).toEqual(expected.slice(10, 15));
    });
  });

  it("the item order really follows `sort`: createdAt and updatedAt orders differ on this fixture", async () => {
    expect(await expectedIds("createdAt", "desc")).not.toEqual(await expectedIds("updatedAt", "desc"));
    const byUpdated = (await walkPages(t, viewer.key, { take: 100, sort: "updatedAt" }))[0]!.items;
    const updatedTimes = byUpdated.map((e) => Date.parse(e.updatedAt));
    expect([...updatedTimes].sort((a, b) => b - a)).toEqual(updatedTimes);
  });

  it("a page past the end is empty, with no cursor", async () => {
    const total = (await expectedIds("createdAt", "desc")).length;
    const page = await listPage(t, viewer.key, { take: 10, page: Math.ceil(total / 10) + 1 });
    expect(page).toEqual({ items: [], take: 10, page: Math.ceil(total / 10) + 1, nextCursor: null, hasMore: false });
  });

  it("the exact last offset page has hasMore false and nextCursor null", async () => {
    const expected = await expectedIds("createdAt", "desc");
    const lastPage = Math.ceil(expected.length / 4);
    const page = await listPage(t, viewer.key, { take: 4, page: lastPage });
    expect(page.items.map((e) => e.id)).toEqual(expected.slice((lastPage - 1) * 4));
    expect(page.hasMore).toBe(false);
    expect(page.nextCursor).toBeNull();
  });

  it("status filters the walk", async () => {
    const rows = await t.owner<{ id: string }[]>`
      select id from community.events where status = 'INCOMPLETE' and owner_id = ${viewer.id}`;
    expect(rows.length).toBeGreaterThan(0);
    const ids = (await walkPages(t, viewer.key, { take: 3, status: "INCOMPLETE" })).flatMap((p) => p.items.map((e) => e.id));
    expect(ids.sort()).toEqual(rows.map((r) => r.id).sort());
  });
});

describe("cursors are checked", () => {
  let cursor: string;
  beforeAll(async () => {
    // Enough events of the viewer's own for a second page, whatever ran before.
    for (let i = 0; i < 3; i++) await createEvent(t, viewer.key, { status: "PUBLISHED" });
    const page = await listPage(t, viewer.key, { take: 1 });
    expect(page.nextCursor).toEqual(expect.any(String));
    cursor = page.nextCursor!;
  });

  it("the cursor works with the sort and order it was issued for", async () => {
    expect((await list(`take=1&cursor=${cursor}`)).status).toBe(200);
    expect((await list(`take=1&sort=createdAt&order=desc&cursor=${cursor}`)).status).toBe(200);
  });

  it("a cursor issued for sort=createdAt answers 400 invalid_cursor with sort=updatedAt", async () => {
    const body = await expectErrorBody(await list(`take=1&sort=updatedAt&cursor=${cursor}`), 400, "invalid_cursor");
    expect(body.message).toContain("createdAt");
  });

  it("a cursor issued for order=desc answers 400 invalid_cursor with order=asc", async () => {
    await expectErrorBody(await list(`take=1&order=asc&cursor=${cursor}`), 400, "invalid_cursor");
  });

  it("cursor together with page answers 400 cursor_with_page", async () => {
    await expectErrorBody(await list(`cursor=${cursor}&page=2`), 400, "cursor_with_page");
    await expectErrorBody(await list(`cursor=${cursor}&page=1`), 400, "cursor_with_page");
  });

  const ID = "0123456789abcdef01234567";
  it.each([
    ["garbage", "not-a-cursor"],
    ["base64 of text", Buffer.from("hello world").toString("base64url")],
    ["JSON null", cursorOf(null)],
    ["a JSON number", cursorOf(1)],
    ["an empty object", cursorOf({})],
    ["an id that is not an object id", cursorOf({ s: "createdAt", o: "desc", v: "2026-03-01T10:00:00.000000Z", i: "1 or 1=1" })],
    ["a value that is not a timestamp", cursorOf({ s: "createdAt", o: "desc", v: "yesterday-ish", i: ID })],
    // Date.parse accepts these; PostgreSQL does not. They must not reach the database as a 500.
    ["a bare number as the value", cursorOf({ s: "createdAt", o: "desc", v: "1", i: ID })],
    ["February 30th", cursorOf({ s: "createdAt", o: "desc", v: "2026-02-30T10:00:00.000000Z", i: ID })],
    ["a free-form date", cursorOf({ s: "createdAt", o: "desc", v: "March 7, 2026 10:00 GMT+0200", i: ID })],
    ["an unknown sort", cursorOf({ s: "name", o: "desc", v: "2026-03-01T10:00:00.000000Z", i: ID })],
  ])("a forged cursor (%s) answers 400 invalid_cursor", async (_label, forged) => {
    await expectErrorBody(await list(`cursor=${encodeURIComponent(forged)}`), 400, "invalid_cursor");
  });

  it("a well-formed cursor of the right shape is accepted even for a position that no row has", async () => {
    const page = await listPage(t, viewer.key, { cursor: cursorOf({ s: "createdAt", o: "desc", v: "2000-01-01T00:00:00.000000Z", i: ID }) });
    expect(page.items).toEqual([]);
    expect(page.hasMore).toBe(false);
  });

  it("an overlong cursor answers 400", async () => {
    const response = await list(`cursor=${"a".repeat(513)}`);
    expect(response.status).toBe(400);
  });
});

describe("refused and invalid parameters", () => {
  it.each(["take=0", "take=101", "take=abc", "take=1.5", "take=-1", "take=", "take=5&take=6", "page=0", "page=-2", "page=x"])(
    "%s answers 400 validation_failed",
    async (query) => {
      const body = await expectErrorBody(await list(query), 400, "validation_failed");
      expect(body.message).toContain(query.split("=")[0]);
    },
  );

  it.each(["limit=5", "limit=5&take=5", "limit=0"])("%s answers 400 limit_not_supported naming `take`", async (query) => {
    const body = await expectErrorBody(await list(query), 400, "limit_not_supported");
    expect(body.message).toMatch(/\btake\b/);
  });

  it.each(["private=false", "private=true", "private=0", "private="])(
    "%s answers 400 private_not_supported, telling the caller to omit it",
    async (query) => {
      const body = await expectErrorBody(await list(query), 400, "private_not_supported");
      expect(body.message).toMatch(/omit/i);
    },
  );

  it.each([
    ["private=false&sort=bad", "private_not_supported"],
    ["sort=bad&limit=5", "limit_not_supported"],
    ["take=0&limit=5", "limit_not_supported"],
    ["order=up&foo=1", "unknown_parameter"],
    ["take=abc&cursor=x&page=2", "cursor_with_page"],
  ])("%s: the specific code wins over validation_failed whatever else is wrong", async (query, code) => {
    await expectErrorBody(await list(query), 400, code);
  });

  it.each(["foo=1", "Take=5", "offset=10", "q=x"])("%s answers 400 unknown_parameter naming it", async (query) => {
    const body = await expectErrorBody(await list(query), 400, "unknown_parameter");
    expect(body.message).toContain(query.split("=")[0]);
  });

  it.each([
    "sort=name",
    "sort=created_at",
    "sort=CREATEDAT",
    "sort=",
    "order=up",
    "order=DESC",
    "status=DRAFT",
    "status=published",
    "scope=everyone",
  ])("%s (not a value of the enum) answers 400 validation_failed", async (query) => {
    await expectErrorBody(await list(query), 400, "validation_failed");
  });

  it("the accepted values of the enums answer 200", async () => {
    for (const query of ["sort=createdAt", "sort=updatedAt", "order=asc", "order=desc", "status=PUBLISHED", "status=INCOMPLETE", "scope=all", "scope=mine"]) {
      expect((await list(query)).status, query).toBe(200);
    }
  });

  it("the error body lists the offending parameter in its details", async () => {
    const body = await expectErrorBody(await list("take=500"), 400, "validation_failed");
    expect(body.details.issues.map((i: { path: string }) => i.path)).toEqual(["take"]);
  });
});

describe("search", () => {
  let searcher: UserWithKey;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    searcher = await t.userWithKey();
    const published = { status: "PUBLISHED", visibility: "public" };
    ids.hundred = (await createEvent(t, searcher.key, { ...published, name: "100% fun" })).id;
    ids.roadmap = (await createEvent(t, searcher.key, { ...published, name: "Roadmap 2030" })).id;
    ids.snake = (await createEvent(t, searcher.key, { ...published, name: "Snake_case meetup" })).id;
    ids.concert = (await createEvent(t, searcher.key, { ...published, name: "Free concert" })).id;
    ids.salon = (await createEvent(t, searcher.key, { ...published, name: "Salon", slug: "zk-proof-salon" })).id;
    ids.rooftop = (await createEvent(t, searcher.key, { ...published, name: "Quiet evening", description: "Rooftop with a VIEW over the Spree" })).id;
    ids.night = (await createEvent(t, searcher.key, { ...published, name: "Berlin Web3 Night" })).id;
    ids.backslash = (await createEvent(t, searcher.key, { ...published, name: "Back\\slash party" })).id;
    ids.othersPublic = (await createEvent(t, other.key, { ...published, name: "100% public" })).id;
    ids.othersPrivate = (await createEvent(t, other.key, { status: "PUBLISHED", visibility: "private", name: "100% secret" })).id;
    ids.othersDraft = (await createEvent(t, other.key, { status: "INCOMPLETE", name: "100% draft" })).id;
  });

  const search = async (text: string, key = searcher.key) =>
    (await walkPages(t, key, { take: 100, search: text })).flatMap((p) => p.items.map((e) => e.id)).sort();
  const expectIds = (...names: string[]) => names.map((n) => ids[n]!).sort();

  it.each([
    ["WEB3 night", ["night"]],
    ["berlin web3 NIGHT", ["night"]],
    ["sNaKe_CaSe", ["snake"]],
    ["ZK-PROOF", ["salon"]], // the slug only
    ["rooftop with a view", ["rooftop"]], // the description only
    ["  Quiet Evening  ", ["rooftop"]], // trimmed
  ])("%j matches case-insensitively over name, slug and description", async (text, names) => {
    expect(await search(text)).toEqual(expectIds(...names));
  });

  it("`%` is literal: 100% and 0% find only names with a percent sign, of visible events", async () => {
    const expected = expectIds("hundred", "othersPublic");
    expect(await search("100%")).toEqual(expected);
    expect(await search("0%")).toEqual(expected);
    expect(await search("%")).toEqual(expected);
    // "Roadmap 2030" and the seeded events contain a 0 but no percent sign.
    expect(await search("0%")).not.toContain(ids.roadmap);
  });

  it("`search=100%` sent without percent-encoding is taken literally too", async () => {
    const response = await t.call("/api/v3/events?take=100&search=100%", { key: searcher.key });
    expect(response.status).toBe(200);
    expect(((await response.json()) as EventPage).items.map((e) => e.id).sort()).toEqual(expectIds("hundred", "othersPublic"));
  });

  it("`_` is literal: it does not stand for any one character", async () => {
    expect(await search("e_c")).toEqual(expectIds("snake")); // not "Free concert"
    expect(await search("_")).toEqual(expectIds("snake"));
  });

  it("`\\` is literal", async () => {
    expect(await search("k\\s")).toEqual(expectIds("backslash"));
    expect(await search("\\")).toEqual(expectIds("backslash"));
  });

  it("search never reveals someone else's private or draft event", async () => {
    for (const text of ["secret", "draft", "100%"]) {
      const found = await search(text);
      expect(found).not.toContain(ids.othersPrivate);
      expect(found).not.toContain(ids.othersDraft);
    }
    // Their owner finds them.
    expect(await search("100%", other.key)).toEqual(expectIds("hundred", "othersPublic", "othersPrivate", "othersDraft"));
  });

  it("search combines with status, scope and cursor paging", async () => {
    expect(await search("100%")).toContain(ids.othersPublic);
    const mine = (await walkPages(t, searcher.key, { take: 1, search: "100%", scope: "mine" })).flatMap((p) => p.items.map((e) => e.id));
    expect(mine).toEqual([ids.hundred]);
    const drafts = (await walkPages(t, other.key, { take: 1, search: "100%", status: "INCOMPLETE" })).flatMap((p) => p.items.map((e) => e.id));
    expect(drafts).toEqual([ids.othersDraft]);
    const paged = (await walkPages(t, searcher.key, { take: 1, search: "e", order: "asc" })).flatMap((p) => p.items.map((e) => e.id));
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged).toEqual(expect.arrayContaining(expectIds("snake", "concert", "rooftop", "night")));
  });

  it("a search that matches nothing is an empty last page", async () => {
    expect(await listPage(t, searcher.key, { search: "no event is called this" })).toEqual({
      items: [],
      take: 20,
      page: 1,
      nextCursor: null,
      hasMore: false,
    });
  });
});
