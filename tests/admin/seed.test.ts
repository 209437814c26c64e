// supabase/seed.sql (loaded by `npm start` into the local cluster): the demo key the docs print
// sees a few published events and hubs with venues at once, and seeding again changes nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

const DEMO_KEY = "sk_demo0000_local-demo-key-not-secret"; // docs/quickstart.md

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
  const seed = readFileSync(join(REPO_ROOT, "supabase", "seed.sql"), "utf8");
  await t.owner.unsafe(seed);
  await t.owner.unsafe(seed); // idempotent
});
afterAll(() => t.close());

it("gives the demo user published events with venues and hubs that connect them", async () => {
  const events = await (await t.call("/api/v3/events?status=PUBLISHED", { key: DEMO_KEY })).json();
  expect(events.items.length).toBeGreaterThanOrEqual(2);
  for (const event of events.items) expect(event.venue?.coordinates).toMatchObject({ lat: expect.any(Number), lng: expect.any(Number) });

  const hubs = await (await t.call("/api/v3/hubs?status=PUBLISHED", { key: DEMO_KEY })).json();
  expect(hubs.items.length).toBeGreaterThanOrEqual(2);
  expect(hubs.items.some((hub: { categorySubEventIDs: string[] }) => hub.categorySubEventIDs.length > 0)).toBe(true);
});

it("shows other users the published events but not the demo draft", async () => {
  const other = await t.userWithKey();
  const names = (await (await t.call("/api/v3/events", { key: other.key })).json()).items.map((e: { name: string }) => e.name);
  expect(names).toContain("Berlin Web3 Night");
  expect(names).not.toContain("Demo Draft");
});
