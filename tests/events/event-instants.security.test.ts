// startsAt / endsAt: the range and precision of instants the API accepts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { createEvent, eventBody, getEvent, postEvent } from "./event-fixtures.ts";

let t: TestContext;
let user: UserWithKey;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey();
});
afterAll(() => t.close());

const patch = (id: string, json: unknown) => t.call(`/api/v3/events/${id}`, { method: "PATCH", key: user.key, json });

async function eventCount(): Promise<number> {
  const [row] = await t.owner`select count(*)::int as n from community.events where owner_id = ${user.id}`;
  return row!.n as number;
}

const issuePaths = (body: { details: { issues: Array<{ path: string }> } }) => body.details.issues.map((i) => i.path);

describe("instants outside 1970-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z (UTC) answer 400", () => {
  it.each([
    // 23:30 at -01:00 on the last day of 9999 is 00:30 on 10000-01-01 in UTC: it used to reach the
    // database as +010000-01-01 and answer 500.
    ["after year 9999 in UTC", "9999-12-31T23:30:00-01:00"],
    ["one millisecond after the last instant", "9999-12-31T23:00:00.000-01:00"],
    ["before 1970 in UTC", "1970-01-01T00:30:00+01:00"],
    ["year 0", "0000-06-01T00:00:00Z"],
  ])("%s: POST and PATCH refuse %s and store nothing", async (_label, instant) => {
    const before = await eventCount();
    const created = await expectErrorBody(await postEvent(t, user.key, eventBody({ startsAt: instant, endsAt: instant, timeZone: "UTC" })), 400, "validation_failed");
    expect(issuePaths(created)).toEqual(expect.arrayContaining(["startsAt", "endsAt"]));
    expect(created.message).toContain("9999-12-31T23:59:59.999Z");
    expect(await eventCount()).toBe(before);

    const event = await createEvent(t, user.key);
    const changed = await expectErrorBody(await patch(event.id, { startsAt: instant, endsAt: instant }), 400, "validation_failed");
    expect(issuePaths(changed)).toEqual(expect.arrayContaining(["startsAt", "endsAt"]));
    expect(await (await getEvent(t, user.key, event.id)).json()).toEqual(event);
  });

  it("accepts both ends of the range and returns them exactly, in UTC", async () => {
    const event = await createEvent(t, user.key, { startsAt: "1970-01-01T01:00:00+01:00", endsAt: "9999-12-31T22:59:59.999-01:00" });
    expect(event.startsAt).toBe("1970-01-01T00:00:00.000Z");
    expect(event.endsAt).toBe("9999-12-31T23:59:59.999Z");
    const changed = await patch(event.id, { endsAt: "9999-12-31T23:59:59.999Z" });
    expect(changed.status).toBe(200);
    expect((await changed.json()).endsAt).toBe("9999-12-31T23:59:59.999Z");
  });
});

describe("precision: at most 3 fractional digits, returned as sent", () => {
  it.each(["2026-12-05T19:00:00.1234+01:00", "2026-12-05T19:00:00.123456Z", "2026-12-05T19:00:00.1230Z"])(
    "%s answers 400 on POST and PATCH (the digits used to be cut silently)",
    async (instant) => {
      const before = await eventCount();
      const created = await expectErrorBody(await postEvent(t, user.key, eventBody({ startsAt: instant })), 400, "validation_failed");
      expect(issuePaths(created)).toEqual(["startsAt"]);
      expect(created.details.issues[0].message).toContain("3 fractional digits");
      expect(await eventCount()).toBe(before);

      const event = await createEvent(t, user.key);
      await expectErrorBody(await patch(event.id, { endsAt: instant.replace("19:00", "23:00") }), 400, "validation_failed");
      expect(await (await getEvent(t, user.key, event.id)).json()).toEqual(event);
    },
  );

  it.each([
    ["2026-12-05T19:00:00.1+01:00", "2026-12-05T18:00:00.100Z"],
    ["2026-12-05T19:00:00.12Z", "2026-12-05T19:00:00.120Z"],
    ["2026-12-05T19:00:00.123Z", "2026-12-05T19:00:00.123Z"],
  ])("%s is stored and returned as %s", async (instant, returned) => {
    const event = await createEvent(t, user.key, { startsAt: instant, endsAt: "2026-12-06T00:00:00Z" });
    expect(event.startsAt).toBe(returned);
    const [row] = await t.owner`select to_char(starts_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as exact from community.events where id = ${event.id}`;
    expect(`${row!.exact}`).toBe(`${returned.slice(0, 23)}000`);
  });
});

describe("the OpenAPI document states the rule", () => {
  it("describes range and precision on startsAt and endsAt of both request bodies", async () => {
    const document = await (await t.call("/api/v3/openapi")).json();
    for (const schema of ["CreateEvent", "UpdateEvent"]) {
      for (const field of ["startsAt", "endsAt"]) {
        const property = document.components.schemas[schema].properties[field];
        expect(property.format, `${schema}.${field}`).toBe("date-time");
        expect(property.description, `${schema}.${field}`).toContain("9999-12-31T23:59:59.999Z");
        expect(property.description, `${schema}.${field}`).toContain("3 fractional digits");
        expect(property.example, `${schema}.${field}`).toBeDefined();
      }
    }
  });
});
