// The service logs in as api_gateway (GATEWAY_DATABASE_URL). Logged in as that role, a connection
// reads nothing on its own and cannot become a role that bypasses RLS; only a request's scope
// (an API key checked by the database, or a verified session's claims) lets it see rows.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
let gateway: postgres.Sql;
beforeAll(async () => {
  t = await createTestContext();
  gateway = postgres(t.config.GATEWAY_DATABASE_URL, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await gateway.end();
  await t.close();
});

const sqlState = (promise: Promise<unknown>) => promise.then(() => "no error", (error: { code?: string }) => error.code);

describe("the service's login role", () => {
  it("is the connection the app uses", async () => {
    const [row] = await t.db.sql<{ current_user: string }[]>`select current_user`;
    expect(row!.current_user).toBe("api_gateway");
  });

  it("reads no table on its own", async () => {
    await t.userWithKey();
    for (const table of ["core.api_keys", "core.users", "core.crypto_addresses", "community.events", "community.hubs"]) {
      expect(await sqlState(gateway.unsafe(`select count(*) from ${table}`)), table).toBe("42501");
    }
  });

  it("cannot switch to a role that bypasses RLS, nor to the owner", async () => {
    for (const role of ["service_role", "postgres"]) {
      expect(await sqlState(gateway.begin((tx) => tx.unsafe(`set local role ${role}`))), role).toBe("42501");
    }
  });

  it("sees rows only inside a key's scope, and only the key owner's", async () => {
    const alice = await t.userWithKey();
    const bob = await t.userWithKey();
    const created = await t.call("/api/v3/events", {
      method: "POST", key: bob.key,
      json: { name: "Bob's draft", startsAt: "2027-01-01T10:00:00Z", endsAt: "2027-01-01T12:00:00Z", timeZone: "UTC" },
    });
    expect(created.status).toBe(201);
    const hash = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(alice.key)));
    const [visible] = await gateway.begin(async (tx) => {
      await tx`select core.enter_api_key_scope(${hash}, '{}'::text[])`;
      return tx<{ n: number }[]>`select count(*)::int as n from community.events`;
    });
    expect(visible!.n).toBe(0); // Bob's draft is his alone
  });
});
