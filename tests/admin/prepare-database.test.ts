// scripts/db.ts's prepareDatabase: the seed, with the demo key the docs publish, goes only into
// the local cluster. A database named by DATABASE_URL (a Supabase project, say) is migrated, never seeded.
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { prepareDatabase } from "../../scripts/db.ts";
import { cloneTemplateDatabase } from "../setup/test-context.ts";

let database: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
beforeAll(async () => {
  database = await cloneTemplateDatabase();
});
afterAll(() => database.drop());

it("migrates a DATABASE_URL database without putting the demo key into it", async () => {
  const previous = process.env.DATABASE_URL;
  process.env.DATABASE_URL = database.url;
  try {
    expect(await prepareDatabase({ seed: true })).toBe(database.url);
  } finally {
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
  }
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ demo_keys: number }[]>`
      select count(*)::int as demo_keys from core.api_keys where prefix = 'sk_demo0000'`;
    expect(row!.demo_keys).toBe(0);
  } finally {
    await sql.end();
  }
});
