import type { Context, TypedResponse } from "hono";

/**
 * A response whose JSON the database already wrote (for example community.event_json), sent as is:
 * parsing it only to serialise it again would cost the gateway more than the query. `T` is the
 * shape the SQL promises (the route's response schema); the tests hold the two together.
 */
export function jsonBody<T, S extends 200 | 201>(c: Context, json: string, status: S) {
  return c.body(json, status, { "content-type": "application/json" }) as unknown as Response & TypedResponse<T, S, "json">;
}
