// Rate limits are exact under concurrency (core.take_rate_limit, 20261124000400_exact_rate_limits.sql):
// 40 requests of one caller at once, each in a transaction of its own on a connection of its own
// that stays open a moment after taking the limit (as an operation would), against a limit of 10:
// exactly 10 are admitted and 30 refused with PT429, and the window counts the 10.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { createTestContext, startOfRateLimitWindow, type TestContext } from "../setup/test-context.ts";

const REQUESTS = 40;
const LIMIT = 10;

let t: TestContext;
let gateway: postgres.Sql;

beforeAll(async () => {
  t = await createTestContext();
  gateway = postgres(t.config.GATEWAY_DATABASE_URL, { max: REQUESTS, onnotice: () => {} });
});
afterAll(async () => {
  await gateway.end();
  await t.close();
});

/** Fires every request at once; the SQLSTATE of each (null: admitted). */
async function fireAtOnce(request: (tx: postgres.TransactionSql) => Promise<unknown>): Promise<(string | null)[]> {
  await startOfRateLimitWindow();
  return Promise.all(Array.from({ length: REQUESTS }, () =>
    gateway.begin(async (tx) => {
      await request(tx);
      await tx`select pg_sleep(0.05)`;
    }).then(() => null, (error: { code?: string }) => error.code ?? String(error))));
}

const tally = (codes: (string | null)[]) => ({
  admitted: codes.filter((c) => c === null).length,
  refused: codes.filter((c) => c === "PT429").length,
});

describe("rate limits under concurrency", () => {
  it("40 concurrent requests of one API key at a limit of 10: exactly 10 admitted, 30 refused with PT429", async () => {
    const user = await t.userWithKey([]);
    const keyHash = hashApiKey(user.key);
    const codes = await fireAtOnce((tx) => tx`select core.mcp_take_rate_limit(${keyHash}, '{}'::text[], 'backend', ${LIMIT}::integer)`);
    expect(tally(codes)).toEqual({ admitted: LIMIT, refused: REQUESTS - LIMIT });
    const counted = await t.owner<{ hits: number }[]>`
      select hits from core.rate_limit_windows where bucket = ${`mcp.backend:key:${user.keyId}:${user.id}`}`;
    expect(counted).toEqual([{ hits: LIMIT }]);
  });

  it("40 concurrent sponsorship checks of one user at a limit of 10: exactly 10 answered, 30 refused with PT429", async () => {
    const user = await t.userWithKey([]);
    const actor = `0x${"e".repeat(40)}`;
    await t.owner`insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
                  values (${user.id}, ${actor}, '31337', 'injected', 'operator')`;
    // No such sponsor: an admitted check answers sponsor_not_found (the actor is the caller's own).
    const codes = await fireAtOnce(async (tx) => {
      await tx`select set_config('role', 'authenticated', true),
                      set_config('request.jwt.claims', ${JSON.stringify({ role: "authenticated", app_user_id: user.id })}, true)`;
      await tx`select sponsorship.check(31337, ${`0x${"c".repeat(40)}`}, 'check_in', 'client-1', ${`0x${"d".repeat(40)}`},
                                        '0x01', 0, ${actor}, null, 1000, ${LIMIT})`;
    });
    expect(tally(codes)).toEqual({ admitted: LIMIT, refused: REQUESTS - LIMIT });
  });
});
