// The service's unit of work, shared by every surface. A REST handler, an MCP tool, an app function
// and a confirmation page each validate their own input shape, then call the same operation as
// their principal: `run(context, input)`, where `input` is the already-validated type. The
// operation runs its SQL in the principal's scope (RLS decides) and returns what the REST route
// answers; JSON the database wrote stays JSON text. What an operation needs of its caller (an
// API-key permission, OAuth scopes) is declared as data and checked by `runOperation`, whoever calls.
import type { Principal } from "../auth/principal.ts";
import { scopeOf } from "../auth/principal.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { ApiKeyScope, type DbScope, type Scoped, scoped } from "../db/scopes.ts";
import { ApiError } from "../http/errors.ts";

/** JSON text built by the database (for example community.event_json): sent as is, never parsed to be serialised again. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** What an operation answers: the REST status, its body (none for 204) and headers of its own. */
export interface Answer<B = unknown> {
  status: 200 | 201 | 202 | 204;
  body?: B | JsonText;
  headers?: Record<string, string>;
}

export const ok = <B>(body: B | JsonText, status: Answer["status"] = 200): Answer<B> => ({ status, body });
export const noContent = (): Answer<never> => ({ status: 204 });

export interface OperationContext {
  principal: Principal;
  /** The principal's database access: each statement its own transaction, or inside the caller's (an MCP call). */
  db: Scoped;
  /**
   * The database itself, for operations that manage their own transactions (`ownTransactions`):
   * a chain call between two transactions, another scope (service_jobs), a self-scoped hot-path statement.
   */
  database: Database;
  config: Config;
  requestId: string;
}

/** Who may call: an API-key permission (`resource:action`), and the OAuth scopes a person's grant must hold. */
export interface Operation<I = never, B = unknown> {
  /** For logs and errors: `events.list`. */
  name: string;
  /** The API-key permission the key needs (403 missing_permission); other principals are refused. */
  permission?: string;
  /**
   * The OAuth scopes a public MCP grant needs to run this (all of them, or any one with `anyScope`).
   * An operation without scopes is refused to OAuth principals: deny by default.
   */
  scopes?: readonly string[];
  anyScope?: boolean;
  /**
   * Runs transactions of its own (reaches a chain or a geocoder between statements, or must commit
   * before a side effect): an MCP call then runs it outside the call's transaction.
   */
  ownTransactions?: boolean;
  run(context: OperationContext, input: I): Promise<Answer<B>>;
}

export const operation = <I, B>(definition: Operation<I, B>): Operation<I, B> => definition;

/** A context for `principal` whose statements each run in a transaction of their own. */
export function contextFor(
  services: { db: Database; config: Config },
  principal: Principal,
  requestId: string,
  scope: DbScope = scopeOf(principal),
): OperationContext {
  return { principal, db: scoped(services.db, scope), database: services.db, config: services.config, requestId };
}

/** Whether `granted` covers what `operation` needs of an OAuth grant. */
export function scopesAllow(operation: Pick<Operation, "scopes" | "anyScope">, granted: readonly string[]): boolean {
  const needed = operation.scopes;
  if (needed === undefined) return false;
  return operation.anyScope ? needed.some((scope) => granted.includes(scope)) : needed.every((scope) => granted.includes(scope));
}

/**
 * Refuses a caller the operation does not admit. An API key's permission is checked by the database
 * (core.enter_api_key_scope with it required), unless the database accepted the key with it lately:
 * a key's permissions never change. The caller's scope is left as it is, so one operation's
 * permission never becomes a requirement of the next call made with the same principal.
 */
export async function authorize(operation: Operation<never, unknown>, context: OperationContext): Promise<void> {
  const { principal } = context;
  if (operation.permission !== undefined) {
    if (principal.kind !== "api_key") {
      throw new ApiError(403, "missing_permission", `This operation needs an API key with ${operation.permission}.`);
    }
    const { keyHash } = principal.scope;
    if (!context.database.acceptedKeys.grants(keyHash, operation.permission)) await context.database.verify(new ApiKeyScope(keyHash, [operation.permission]));
  }
  if (principal.kind === "oauth" && !scopesAllow(operation, principal.scopes)) {
    const requiredScopes = operation.scopes ?? [];
    throw new ApiError(403, "insufficient_scope", requiredScopes.length
      ? `This needs the scope${requiredScopes.length > 1 ? "s" : ""} ${requiredScopes.join(", ")}${operation.anyScope ? " (any one)" : ""}.`
      : "This operation is not available to assistants.", { requiredScopes });
  }
}

/** Checks what the operation declares it needs of the caller (authorize), then runs it. */
export async function runOperation<I, B>(operation: Operation<I, B>, context: OperationContext, input: I): Promise<Answer<B>> {
  await authorize(operation as Operation<never, unknown>, context);
  return operation.run(context, input);
}
