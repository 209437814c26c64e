import postgres from "postgres";
import { AcceptedKeyCache } from "../auth/api-keys.ts";
import { RecentEntries } from "../auth/recent-entries.ts";
import { ApiError, ConstraintViolation } from "../http/errors.ts";
import { Availability, databaseRetryLater, databaseUnavailable, isDatabaseUnavailable } from "./availability.ts";
import { surviveDriverFaults } from "./driver-faults.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type Sql = postgres.Sql;
export type Tx = postgres.ReservedSql;

/** Who a transaction runs as: a Postgres role plus the JWT claims that auth.uid() reads. */
export interface ClaimsScope {
  kind: "claims";
  role: "authenticated" | "service_role" | "anon";
  claims: Record<string, unknown>;
}

/**
 * An API key that the database resolves at the start of each transaction (core.enter_api_key_scope):
 * the key check costs no round trip of its own. One per request; `verified` turns true once a
 * transaction has accepted the key.
 */
export class ApiKeyScope {
  readonly kind = "api_key";
  verified = false;
  /**
   * The key's owner, once known: from a key accepted lately (a key never changes owner) or from the
   * transaction that accepted it. For what needs the owner before the first statement (binding a
   * sealed secret to it); whether the key is still valid is decided in the transaction, as always.
   */
  ownerId: string | undefined;
  constructor(readonly keyHash: Uint8Array, readonly requiredPermissions: string[] = []) {}
}

export type DbScope = ClaimsScope | ApiKeyScope;

export const SERVICE_SCOPE: ClaimsScope = { kind: "claims", role: "service_role", claims: { role: "service_role" } };

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

export interface StatementOptions {
  /**
   * Plan the statement once per connection (plan_cache_mode = force_generic_plan), for statements
   * whose best plan does not depend on their parameters, such as keyset pages. Left to itself the
   * planner keeps re-planning them: it cannot cost a cursor parameter as well as a literal, and
   * planning a page took longer than reading it.
   */
  genericPlan?: boolean;
}

/**
 * Every request's database work runs in one transaction as its principal, so RLS is the access
 * rule. BEGIN and the scope's setup (role and claims, or the API-key check) are pipelined with the
 * first statement of `work`, so the scope costs no extra round trip.
 */
export class Database {
  /** Keys this database accepted lately: requireApiKey checks any other key before parsing the request. */
  readonly acceptedKeys = new AcceptedKeyCache();
  /**
   * The service user of each session `sub` this database found or made lately (requireSession): a
   * `sub` names one user for good (core.users.auth_user_id is set once), so a session's next
   * requests skip that round trip.
   */
  readonly sessionUsers = new RecentEntries<string>();
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

/**
 * Whether a failed statement took its connection with it: a connection-level failure that
 * postgres.js reported on one of the connection's statements (it names the statement on the error);
 * not, say, a refused connection to some other server that the work called.
 */
function lostItsConnection(error: unknown): boolean {
  return isDatabaseUnavailable(error) && "query" in (error as object);
}

const genericPlans = (tx: Tx) => tx`select set_config('plan_cache_mode', 'force_generic_plan', true)`.execute();

/**
 * A principal's access to the database, bound to their scope: what an operation runs its SQL
 * through. Each call is its own transaction (REST), or runs inside a transaction its caller opened
 * (an MCP call: OpenTransaction.scoped).
 */
export interface Scoped {
  /** Whether the statements run in a transaction the caller opened (an MCP call), not each in its own. */
  readonly inCallerTransaction: boolean;
  /** One statement as the principal. */
  statement<T extends readonly postgres.MaybeRow[]>(statement: (tx: Tx) => postgres.PendingQuery<T>, options?: StatementOptions): Promise<T>;
  /** Several statements as the principal, committed together. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Counts one hit of the principal on `action` (core.take_rate_limit); over `limit` hits in the
   * window, the 429 rate_limited ApiError. The count is exact because its row stays locked until the
   * counting transaction ends: so it is a statement of its own, never the operation's transaction.
   */
  takeRateLimit(action: string, limit: number, windowSeconds?: number): Promise<void>;
}

/** `db` as `scope`: every statement and transaction its own. */
export function scoped(db: Database, scope: DbScope): Scoped {
  return {
    inCallerTransaction: false,
    statement: (statement, options) => db.statement(scope, statement, options),
    transaction: (work) => db.transaction(scope, work),
    takeRateLimit: (action, limit, windowSeconds = 60) => db.takeRateLimit(scope, action, limit, windowSeconds),
  };
}

/** A transaction opened by Database.open; its owner finishes it with commit or abandon. */
export class OpenTransaction {
  private finished = false;
  /** Its connection was lost: finishing writes nothing more to it and does not release it (see Database.onConnection). */
  private lost = false;
  /** BEGIN, the scope's setup and the savepoint; rejects with the scope's refusal, translated. */
  readonly opened: Promise<unknown>;

  constructor(
    private readonly tx: Tx,
    readonly scope: DbScope,
    opening: Promise<unknown>,
    private readonly translate: (error: unknown) => unknown,
    refuse: (error: unknown) => unknown,
  ) {
    this.opened = opening.catch((error) => {
      this.noticeLoss(error);
      throw refuse(translate(error));
    });
    this.opened.catch(() => {}); // the owner awaits it; this only keeps an early failure from counting as unhandled
  }

  /**
   * The principal's access inside this transaction. A failed statement leaves the transaction
   * aborted: the owner then rolls back to the savepoint taken after the scope (commitAfterFailure).
   */
  readonly scoped: Scoped = {
    inCallerTransaction: true,
    statement: async (statement, options = {}) => {
      if (options.genericPlan) void genericPlans(this.tx).catch(() => {});
      return await this.translated(statement(this.tx).execute());
    },
    transaction: (work) => this.translated(work(this.tx)),
    // In the call's transaction, the only one its connection has: the counter row stays locked
    // until the call ends.
    takeRateLimit: async (action, limit, windowSeconds = 60) => {
      await this.translated(this.tx`select core.take_rate_limit(${action}, ${limit}::integer, ${windowSeconds}::integer)`.execute());
    },
  };

  /** Sends `last` (for example the record of the call) and COMMIT in one round trip. */
  async commit(last: (tx: Tx) => postgres.PendingQuery<postgres.Row[]>): Promise<void> {
    await this.finish(async () => {
      const results = await Promise.allSettled([this.opened, last(this.tx).execute(), this.tx`commit`.execute()]);
      for (const result of results) if (result.status === "rejected") throw result.reason;
    });
  }

  /** Undoes the operation (back to the savepoint after the scope), then sends `last` and COMMIT. */
  async commitAfterFailure(last: (tx: Tx) => postgres.PendingQuery<postgres.Row[]>): Promise<void> {
    await this.finish(async () => {
      const results = await Promise.allSettled([
        this.opened, this.tx`rollback to savepoint operation`.execute(), last(this.tx).execute(), this.tx`commit`.execute(),
      ]);
      for (const result of results) if (result.status === "rejected") throw result.reason;
    });
  }

  /** Rolls everything back (the scope or its rate limit refused the call). */
  async abandon(): Promise<void> {
    await this.finish(async () => {
      if (!this.lost) await this.tx`rollback`.catch(() => {});
    });
  }

  private async translated<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      this.noticeLoss(error);
      await this.opened; // a refused scope is the real cause of a failed statement
      throw this.translate(error);
    }
  }

  private noticeLoss(error: unknown): void {
    if (lostItsConnection(error)) this.lost = true;
  }

  private async finish(work: () => Promise<void>): Promise<void> {
    if (this.finished) throw new Error("this transaction is already finished");
    this.finished = true;
    try {
      await work();
    } catch (error) {
      this.noticeLoss(error);
      if (!this.lost) await this.tx`rollback`.catch(() => {});
      throw this.translate(error);
    } finally {
      if (!this.lost) this.tx.release();
    }
  }
}

/** A DETAIL that is a JSON object becomes the error body's `details`. */
function jsonDetail(detail: string | undefined): unknown {
  if (!detail?.startsWith("{")) return undefined;
  try {
    return JSON.parse(detail);
  } catch {
    return undefined;
  }
}

/**
 * SQL functions signal HTTP outcomes PostgREST-style: SQLSTATE `PTnnn` carries the status, the
 * HINT the stable error code and a JSON DETAIL the details. Constraint and privilege errors map to
 * their natural status.
 */
export function translateDatabaseError(error: unknown): unknown {
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  // statement_timeout (DB_STATEMENT_TIMEOUT_SECONDS): the database is there but overloaded or blocked.
  if (error instanceof postgres.PostgresError && error.code === "57014") {
    return databaseRetryLater("database_timeout", "The database did not finish in time; retry shortly.");
  }
  if (error instanceof ApiError || !(error instanceof postgres.PostgresError)) return error;
  const { code, message, hint } = error;
  // A deadlock (two offline batches claiming the same tickets in opposite orders) or a lost
  // serialization: Postgres rolled this transaction back whole, and the same request succeeds when
  // sent again (scans and checkouts are idempotent by nonce and key).
  if (code === "40P01" || code === "40001") {
    return databaseRetryLater("transaction_conflict", "The request collided with a concurrent one and changed nothing; send it again.");
  }
  if (/^PT[45]\d\d$/.test(code)) {
    const status = Number(code.slice(2)) as ContentfulStatusCode;
    const details = jsonDetail(error.detail);
    // A 429 names its wait in the DETAIL: {"retryAfterSeconds": n} becomes the Retry-After header.
    const retryAfter = (details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
    const headers = status === 429 && typeof retryAfter === "number" ? { "Retry-After": String(Math.max(1, Math.ceil(retryAfter))) } : undefined;
    return new ApiError(status, hint ?? "request_failed", message, details, headers);
  }
  // Class 22 is "data exception": a value the database cannot take (out of range, malformed, NUL
  // bytes, bad encoding). Always the caller's input, never a server fault. These answers never name
  // a constraint or an SQLSTATE: the schema is not the API.
  if (code.startsWith("22")) {
    return new ApiError(400, "validation_failed", "The request has a value the service cannot accept.");
  }
  switch (code) {
    case "23505":
      return new ConstraintViolation(409, "conflict", "The request conflicts with an existing record.", error.constraint_name);
    case "23503":
      return new ApiError(400, "invalid_reference", "The request refers to a record that does not exist.");
    case "23514":
      return new ConstraintViolation(400, "validation_failed", "The request has a value the service cannot accept.", error.constraint_name);
    case "42501":
      return new ApiError(403, "forbidden", "The caller may not do this.");
    default:
      return error;
  }
}
