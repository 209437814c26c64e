// The sign-in code limits of an address are exact under concurrency (mcp_oauth.lock_sign_in_address,
// 20261128000200_sign_in_code_limits.sql): 20 requests at once, each in a transaction of its own on a
// connection of its own as the gateway's login role, from 20 clients. Codes for one address: exactly
// one is issued within the resend interval. Wrong guesses at one address against a cap of 5: exactly
// 5 are checked and counted, 15 refused with PT429.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

const REQUESTS = 20;
const WRONG_GUESSES_PER_DAY = 5;

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

const hash = (text: string) => new Uint8Array(Buffer.from(text.padEnd(32, "#").slice(0, 32)));

/** Fires one request per client at once; the outcome of each: its `error` column, or the SQLSTATE it raised. */
function fireAtOnce(request: (tx: postgres.TransactionSql, client: number) => Promise<string | null>): Promise<(string | null)[]> {
  return Promise.all(Array.from({ length: REQUESTS }, (_, client) =>
    gateway.begin(async (tx) => {
      const outcome = await request(tx, client);
      await tx`select pg_sleep(0.05)`;
      return outcome;
    }).then((outcome) => outcome, (error: { code?: string }) => error.code ?? String(error))));
}

const count = (outcomes: (string | null)[], outcome: string | null) => outcomes.filter((o) => o === outcome).length;

describe("sign-in code limits under concurrency", () => {
  it("20 clients ask for a code for one address at once: exactly one is issued, 19 refused with PT429", async () => {
    const outcomes = await fireAtOnce(async (tx, client) => {
      await tx`select mcp_oauth.issue_sign_in_code('crowd@example.com', ${`198.51.100.${client + 1}`}, ${hash(`code-${client}`)},
                 600, 5, 30, 900, 60, ${WRONG_GUESSES_PER_DAY})`;
      return null;
    });
    expect({ issued: count(outcomes, null), refused: count(outcomes, "PT429") }).toEqual({ issued: 1, refused: REQUESTS - 1 });
    expect(await t.owner`select count(*)::int as n from mcp_oauth.sign_in_codes where email = 'crowd@example.com'`).toEqual([{ n: 1 }]);
  });

  it("20 wrong guesses at one address at once, at a cap of 5 a day: exactly 5 are checked and counted, 15 refused with PT429", async () => {
    await t.owner`select mcp_oauth.issue_sign_in_code('guessed@example.com', '192.0.2.1', ${hash("right")}, 600, 5, 30, 900, 60, ${WRONG_GUESSES_PER_DAY})`;
    const outcomes = await fireAtOnce(async (tx, client) => {
      const [row] = await tx<{ error: string | null }[]>`
        select error from app_auth.verify_otp('guessed@example.com', ${hash(`wrong-${client}`)}, ${`203.0.113.${client + 1}`},
          ${REQUESTS}, 100, 900, ${WRONG_GUESSES_PER_DAY}, ${hash(`refresh-${client}`)}, 3600)`;
      return row!.error;
    });
    expect({ wrong: count(outcomes, "wrong_code"), refused: count(outcomes, "PT429") })
      .toEqual({ wrong: WRONG_GUESSES_PER_DAY, refused: REQUESTS - WRONG_GUESSES_PER_DAY });
    expect(await t.owner`select attempts from mcp_oauth.sign_in_codes where email = 'guessed@example.com'`).toEqual([{ attempts: WRONG_GUESSES_PER_DAY }]);
  });
});
