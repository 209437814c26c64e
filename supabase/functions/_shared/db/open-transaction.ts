// A transaction opened by Database.open and left for its caller to finish (an MCP call: the
// operation and the record of the call commit together).
import type postgres from "postgres";
import { isDatabaseUnavailable } from "./availability.ts";
import type { Tx } from "./database.ts";
import { type DbScope, genericPlans, type Scoped } from "./scopes.ts";

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

/**
 * Whether a failed statement took its connection with it: a connection-level failure that
 * postgres.js reported on one of the connection's statements (it names the statement on the error);
 * not, say, a refused connection to some other server that the work called.
 */
export function lostItsConnection(error: unknown): boolean {
  return isDatabaseUnavailable(error) && "query" in (error as object);
}
