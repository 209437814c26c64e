// The bounds every statement of the service runs within: the server cancels one running past
// DB_STATEMENT_TIMEOUT_SECONDS (503 database_timeout), and a request waits for a connection of the
// pool at most acquireTimeoutMs (503 database_unavailable), never indefinitely.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, Database, type Tx } from "../../supabase/functions/_shared/db/database.ts";
import type { ClaimsScope } from "../../supabase/functions/_shared/db/scopes.ts";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

const ANONYMOUS: ClaimsScope = { kind: "claims", role: "anon", claims: { role: "anon" } };
const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe("statement and pool bounds", () => {
  it("answers 503 database_timeout with Retry-After for a statement the server cancelled", async () => {
    const db = new Database(connect(t.config.GATEWAY_DATABASE_URL, { max: 1, prepare: true, statementTimeoutSeconds: 1 }));
    try {
      const error = await refusal(db.query((sql) => sql`select pg_sleep(3)`));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 503, code: "database_timeout", headers: { "Retry-After": "5" } });
      expect(await db.query((sql) => sql`select 1 as one`)).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it("answers 503 database_unavailable when no connection of the pool frees in time, and serves once one does", async () => {
    const db = new Database(connect(t.config.GATEWAY_DATABASE_URL, { max: 1, prepare: true }), undefined, { acquireTimeoutMs: 300 });
    try {
      let letGo = () => {};
      const held = new Promise<void>((resolve) => (letGo = resolve));
      const holding = db.transaction(ANONYMOUS, async (tx) => {
        await tx`select 1`;
        await held;
      });
      const error = await refusal(db.transaction(ANONYMOUS, (tx) => tx`select 1`));
      expect(error).toMatchObject({ status: 503, code: "database_unavailable" });
      letGo();
      await holding;
      expect(await db.transaction(ANONYMOUS, (tx) => tx`select 1 as one`)).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it("rolls back and frees its connection when the work fails reaching another server (only a lost connection is left alone)", async () => {
    const db = new Database(connect(t.config.GATEWAY_DATABASE_URL, { max: 1, prepare: true }), undefined, { acquireTimeoutMs: 2_000 });
    try {
      const refusedElsewhere = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
      for (const run of [
        (work: (tx: Tx) => Promise<unknown>) => db.transaction(ANONYMOUS, work),
        (work: (tx: Tx) => Promise<unknown>) => db.untranslatedTransaction(work),
      ]) {
        const error = await refusal(run(async (tx) => {
          await tx`create temporary table written_before_the_failure (id int)`;
          throw refusedElsewhere;
        }));
        expect(error).toBeDefined();
        // The pool's one connection is free again, and what the work wrote was rolled back.
        const [row] = await db.transaction(ANONYMOUS, (tx) => tx`select to_regclass('pg_temp.written_before_the_failure') as table`);
        expect(row).toEqual({ table: null });
      }
    } finally {
      await db.close();
    }
  });
});
