// The pool and the transactions every request runs in as its principal: who a transaction runs as is
// scopes.ts, a transaction left open for its caller open-transaction.ts, how a database error becomes
// the API's error database-errors.ts.
import postgres from "postgres";
import { AcceptedKeyCache } from "../auth/api-keys.ts";
import { ApiError } from "../http/errors.ts";
import { Availability } from "./availability.ts";
import { translateDatabaseError } from "./database-errors.ts";
import { surviveDriverFaults } from "./driver-faults.ts";
import { lostItsConnection, OpenTransaction } from "./open-transaction.ts";
import { type ApiKeyScope, type DbScope, genericPlans, type StatementOptions } from "./scopes.ts";

export type Sql = postgres.Sql;
export type Tx = postgres.ReservedSql;

export interface ConnectOptions {
  max: number;
  prepare: boolean;
  /** How long opening a connection may take; a database that does not answer in time is down. */
  connectTimeoutSeconds?: number;
  /** The server cancels a statement running longer (statement_timeout); 0 never. */
  statementTimeoutSeconds?: number;
}

export function connect(url: string, options: ConnectOptions): Sql {
  surviveDriverFaults();
  return postgres(url, {
    max: options.max,
    prepare: options.prepare,
    idle_timeout: 60,
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    // postgres.js waits longer after each failed connect (up to 20 s by default), and a queued
    // request waits with it: after an outage the pool would come back late. At most half a second.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    ...(options.statementTimeoutSeconds ? { connection: { statement_timeout: options.statementTimeoutSeconds * 1000 } } : {}),
    onnotice: () => {},
    // bigint columns arrive as strings by default; counts and ids here fit in a JS number.
    types: { bigint: postgres.BigInt },
  });
}

/**
 * Every request's database work runs in one transaction as its principal, so RLS is the access
 * rule. BEGIN and the scope's setup (role and claims, or the API-key check) are pipelined with the
 * first statement of `work`, so the scope costs no extra round trip.
 */
export class Database {
  /** Keys this database accepted lately: requireApiKey checks any other key before parsing the request. */
  readonly acceptedKeys = new AcceptedKeyCache();
  /** Whether the database answers; while it does not, requests get a fast 503 (availability.ts). */
  readonly availability: Availability;
  private readonly acquireTimeoutMs: number;
  private readonly probeSql: Sql;

  /**
   * `keyCheckSql` is a small pool of its own for checking keys not accepted lately (`checkNewKey`): a
   * flood of made-up keys then queues behind itself, never in front of authenticated requests.
   * `probeSql` asks whether the database answers when a connection was lost: a pool of its own, so
   * the question never waits behind queued work (one connection, open only around an outage). A
   * request waits at most `acquireTimeoutMs` for a connection of the pool.
   */
  constructor(
    private readonly pool: Sql,
    private readonly keyCheckSql: Sql = pool,
    options: { probeSql?: Sql; acquireTimeoutMs?: number; probeTimeoutMs?: number } = {},
  ) {
    this.acquireTimeoutMs = options.acquireTimeoutMs ?? 10_000;
    this.probeSql = options.probeSql ?? keyCheckSql;
    const probeSql = this.probeSql;
    this.availability = new Availability(() => probeSql`select 1`.execute(), options.probeTimeoutMs ?? 5_000);
  }

  /** The pool itself, for background work (jobs, LISTEN); requests use `query`. Refused while the database is down. */
  get sql(): Sql {
    this.availability.refuseWhileDown();
    return this.pool;
  }

  /**
   * One statement on the pool outside any principal's scope (the OAuth and session functions that
   * check their own credentials): refused at once while the database is down, its error translated.
   */
  async query<T extends readonly postgres.MaybeRow[]>(statement: (sql: Sql) => postgres.PendingQuery<T>): Promise<T> {
    try {
      return await this.availability.wait(() => statement(this.pool).execute(), this.acquireTimeoutMs);
    } catch (error) {
      throw this.translated(error);
    }
  }

  /** `error` as the API's error; a lost connection also makes the availability probe ask. */
  translated(error: unknown): unknown {
    this.availability.noticed(error);
    return translateDatabaseError(error);
  }

  async transaction<T>(scope: DbScope, work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.reservedFor(scope, async (tx) => {
      const opening = this.begin(tx, scope);
      opening.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled
      let result: T;
      try {
        result = await work(tx);
      } catch (error) {
        await opening; // a failed BEGIN or setup is the real cause of a failed statement
        throw error;
      }
      await opening;
      await tx`commit`;
      return result;
    });
  }

  /** One statement as the scope in a single round trip: BEGIN, setup, the statement and COMMIT pipelined. */
  statement<T extends readonly postgres.MaybeRow[]>(
    scope: DbScope,
    statement: (tx: Tx) => postgres.PendingQuery<T>,
    options: StatementOptions = {},
  ): Promise<T> {
    return this.reservedFor(scope, async (tx) => {
      const opening = this.begin(tx, scope, options);
      const rows = statement(tx).execute();
      const commit = tx`commit`.execute();
      // A failed setup (an unknown key) also fails the statement ("transaction is aborted"), often
      // in the same read: settle everything, then report the setup's error as the cause.
      const [opened, result, committed] = await Promise.allSettled([opening, rows, commit]);
      for (const outcome of [opened, result, committed]) if (outcome.status === "rejected") throw outcome.reason;
      return (result as PromiseFulfilledResult<T>).value;
    });
  }

  /**
   * A transaction left open for its caller to finish: an MCP call runs the operation and the record
   * of the call in it, so the record commits with what it records. BEGIN, the scope's setup and a
   * savepoint are sent at once and not awaited, so the operation's first statement goes out in the
   * same round trip. (The call's rate limit is taken before, in a statement of its own: its counter
   * row stays locked until the transaction that counted ends.)
   */
  async open(scope: DbScope): Promise<OpenTransaction> {
    const tx = await this.reserve();
    const begin = tx`begin`.simple().execute();
    const entered = this.enter(tx, scope);
    const savepoint = tx`savepoint operation`.simple().execute();
    const opening = Promise.all([begin, entered, savepoint]);
    return new OpenTransaction(tx, scope, opening, (error) => this.translated(error), (error) => this.refused(scope, error));
  }

  /**
   * One SQL function that enters the API key's scope itself (for example core.me_by_api_key), run
   * as a single statement: no transaction block and no reserved connection, for the hottest reads.
   */
  async apiKeyFunction<T extends readonly postgres.MaybeRow[]>(
    scope: ApiKeyScope,
    call: (sql: Sql, keyHash: Uint8Array, requiredPermissions: string[]) => postgres.PendingQuery<T>,
    ownerOf: (rows: T) => string | undefined,
  ): Promise<T> {
    try {
      const rows = await this.availability.wait(() => call(this.pool, scope.keyHash, scope.requiredPermissions).execute(), this.acquireTimeoutMs);
      this.accepted(scope, ownerOf(rows));
      return rows;
    } catch (error) {
      throw this.refused(scope, this.translated(error));
    }
  }

  /**
   * Counts one hit of the scope's user on `action` in a statement of its own (see Scoped): one
   * statement without a transaction block for an API key, which it checks as it enters its scope.
   */
  async takeRateLimit(scope: DbScope, action: string, limit: number, windowSeconds: number): Promise<void> {
    if (scope.kind === "claims") {
      await this.statement(scope, (tx) => tx`select core.take_rate_limit(${action}, ${limit}::integer, ${windowSeconds}::integer)`);
      return;
    }
    await this.apiKeyFunction(scope, (sql, keyHash, required) => sql<{ owner_id: string }[]>`
      select core.take_api_key_rate_limit(${keyHash}, ${required}::text[], ${action}, ${limit}::integer, ${windowSeconds}::integer) as owner_id`,
      ([row]) => row?.owner_id);
  }

  /** The user an API key belongs to, in one statement; throws the 401 or 403 of enter_api_key_scope. */
  async apiKeyOwner(scope: ApiKeyScope, sql = this.pool): Promise<string> {
    const [row] = await this.apiKeyFunction(scope, (_, keyHash, required) =>
      sql<{ id: string }[]>`select core.enter_api_key_scope(${keyHash}, ${required}::text[]) as id`, ([owner]) => owner!.id);
    return row!.id;
  }

  /** Checks a key the database has not accepted lately, on the key-check pool (see the constructor). */
  async checkNewKey(scope: ApiKeyScope): Promise<void> {
    await this.apiKeyOwner(scope, this.keyCheckSql);
  }

  /** Checks an API key (and the permissions its route requires) without doing anything else. */
  async verify(scope: DbScope): Promise<void> {
    // A claims scope comes from a session token that was verified before it was built.
    if (scope.kind === "api_key") await this.apiKeyOwner(scope);
  }

  async close(): Promise<void> {
    for (const sql of new Set([this.pool, this.keyCheckSql, this.probeSql])) await sql.end({ timeout: 5 });
  }

  /** `ownerId` is unknown only when an API-key function returned no row. */
  private accepted(scope: ApiKeyScope, ownerId: string | undefined): void {
    scope.verified = true;
    if (ownerId === undefined) return;
    scope.ownerId = ownerId;
    this.acceptedKeys.accept(scope.keyHash, ownerId, scope.requiredPermissions);
  }

  /** A key the database refused (unknown or revoked) is checked up front again from now on. */
  private refused(scope: DbScope, error: unknown): unknown {
    if (scope.kind === "api_key" && error instanceof ApiError && error.status === 401) this.acceptedKeys.forget(scope.keyHash);
    return error;
  }

  private async reservedFor<T>(scope: DbScope, work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.reserved(work);
    } catch (error) {
      throw this.refused(scope, error);
    }
  }

  /** Runs `work` on a connection of its own; any failure rolls back and comes out translated. */
  private async reserved<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.onConnection(work);
    } catch (error) {
      throw this.translated(error);
    }
  }

  /**
   * `work` in a transaction of its own, its errors as the driver raised them: for the background
   * jobs (service-jobs.ts), which enter their role themselves and read SQLSTATEs. Refused with the
   * 503 while the database is down.
   */
  async untranslatedTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.onConnection(async (tx) => {
        await tx`begin`.simple();
        const result = await work(tx);
        await tx`commit`;
        return result;
      });
    } catch (error) {
      this.availability.noticed(error);
      throw error;
    }
  }

  /**
   * Runs `work` on a connection of its own; any failure rolls back. A lost connection took its
   * transaction with it: it gets no ROLLBACK and is not released. Once lost, the pool may already
   * have reconnected it for another caller, whose transaction a late ROLLBACK would end, and
   * postgres.js as published may never answer a write to it or throw where no caller catches;
   * release() would put it among the open connections. Left alone, the pool reconnects it when it
   * needs it.
   */
  private async onConnection<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const tx = await this.reserve();
    let lost = false;
    try {
      return await work(tx);
    } catch (error) {
      lost = lostItsConnection(error);
      if (!lost) await tx`rollback`.catch(() => {});
      throw error;
    } finally {
      if (!lost) tx.release();
    }
  }

  /**
   * A connection of the pool, waited for at most acquireTimeoutMs, and not at all while the database
   * is down. The bound also covers postgres.js 3.4.9 leaving a waiting reserve() unanswered forever
   * when the connection it waits for closes and reconnects (porsager/postgres#1195).
   */
  private async reserve(): Promise<Tx> {
    try {
      return await this.availability.wait(() => this.pool.reserve(), this.acquireTimeoutMs, (late) => late.release());
    } catch (error) {
      throw this.translated(error);
    }
  }

  /**
   * Sends BEGIN, then the scope's setup. postgres.js sends a query when it is first awaited or
   * `execute()`d, in that order; executing both here puts them ahead of every statement of the
   * caller. (Awaiting them in a different order would run the setup outside the transaction, and
   * the statements as the connection's own role.)
   */
  private begin(tx: Tx, scope: DbScope, options: StatementOptions = {}): Promise<unknown> {
    const begin = tx`begin`.simple().execute();
    const entered = this.enter(tx, scope);
    const generic = options.genericPlan ? genericPlans(tx) : undefined;
    return Promise.all([begin, entered, generic]);
  }

  /** The scope's setup: the API-key check that enters the key's scope, or the role and claims. */
  private enter(tx: Tx, scope: DbScope): Promise<unknown> {
    return scope.kind === "api_key"
      ? tx<{ owner_id: string }[]>`select core.enter_api_key_scope(${scope.keyHash}, ${scope.requiredPermissions}::text[]) as owner_id`
        .execute()
        .then(([row]) => this.accepted(scope, row!.owner_id))
      : tx`select set_config('role', ${scope.role}, true), set_config('request.jwt.claims', ${JSON.stringify(scope.claims)}, true)`
        .execute();
  }
}
