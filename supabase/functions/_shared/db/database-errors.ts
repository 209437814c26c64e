// How a database error becomes the API's one error body: SQL functions' PostgREST-style PTnnn
// outcomes, constraint and privilege errors, timeouts, conflicts and an unreachable database.
import postgres from "postgres";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, ConstraintViolation } from "../http/errors.ts";
import { databaseRetryLater, databaseUnavailable, isDatabaseUnavailable } from "./availability.ts";

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
