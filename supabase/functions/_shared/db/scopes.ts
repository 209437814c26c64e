// Who a transaction runs as (a role and claims, or an API key the database checks as the transaction
// starts) and the principal's access bound to that scope, what an operation runs its SQL through.
import type postgres from "postgres";
import type { Database, Tx } from "./database.ts";

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



export interface StatementOptions {
  /**
   * Plan the statement once per connection (plan_cache_mode = force_generic_plan), for statements
   * whose best plan does not depend on their parameters, such as keyset pages. Left to itself the
   * planner keeps re-planning them: it cannot cost a cursor parameter as well as a literal, and
   * planning a page took longer than reading it.
   */
  genericPlan?: boolean;
}

/** Plans the transaction's statements once per connection (StatementOptions.genericPlan). */
export const genericPlans = (tx: Tx) => tx`select set_config('plan_cache_mode', 'force_generic_plan', true)`.execute();



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
