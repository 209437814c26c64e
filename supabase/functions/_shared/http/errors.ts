import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "@hono/zod-openapi";
import { Timestamp } from "./openapi.ts";

/** The one error body of every surface (REST, functions, MCP HTTP errors). */
export const ErrorBodySchema = z
  .object({
    error: z.literal(true).describe("Always true: this body is an error"),
    message: z.string().describe("What went wrong and what to do, for a person; may change between versions"),
    code: z.string().openapi({ example: "validation_failed" }).describe("Stable machine-readable error code: branch on this, not on the message"),
    details: z.unknown().optional()
      .describe("More about the error when there is more: for validation_failed, `issues` (at most 20, each with its path and message) and `issueCount`"),
    timestamp: Timestamp.describe("When the error was answered (UTC)"),
    request_id: z.string().describe("The request's id, also in the log line and the x-request-id header: quote it when reporting a problem"),
  })
  .openapi("Error")
  .describe("The one error body of every surface");

export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Thrown anywhere in a request; the error handler turns it into the error body. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function errorBody(requestId: string, code: string, message: string, details?: unknown): ErrorBody {
  return {
    error: true,
    message,
    code,
    ...(details === undefined ? {} : { details }),
    timestamp: new Date().toISOString(),
    request_id: requestId,
  };
}

export function errorResponse(c: Context, error: ApiError): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "unknown";
  return c.json(errorBody(requestId, error.code, error.message, error.details), error.status, error.headers);
}

/** The refusals of the request limits every route enforces before it runs: all a route that reads no database can answer. */
export function requestLimitResponses() {
  const { 400: tooManyParameters, 414: uriTooLong, 431: headersTooLarge } = errorResponses(400);
  return { 400: tooManyParameters!, 414: uriTooLong!, 431: headersTooLarge! };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request (code `validation_failed` with at most 20 `details.issues` and their `issueCount`, `invalid_json`, " +
    "`too_many_parameters` over 100 query parameters, `ambiguous_credentials` for both x-api-key and Authorization: Bearer, or a route-specific code)",
  401: "Missing, unknown or revoked credentials (codes `missing_api_key`, `invalid_api_key`, `wrong_auth_scheme`)",
  403: "The credentials lack a required permission (code `missing_permission`)",
  404: "Not found, or not visible to the caller (code `not_found`)",
  409: "Conflicts with the current state (route-specific code)",
  413: "Body larger than the limit (code `payload_too_large`)",
  415: "Body not JSON (code `unsupported_media_type`), with a content coding other than identity " +
    "(`unsupported_content_encoding`) or in a charset other than UTF-8 (`unsupported_charset`)",
  410: "This API version has been removed (code `api_version_removed`)",
  414: "URL path and query longer than 8 KiB (code `uri_too_long`)",
  431: "Headers over 16 KiB or 100 fields (code `headers_too_large`)",
  429: "Rate limited (code `rate_limited`, with `Retry-After`)",
  503: "The database is not reachable right now (code `database_unavailable`, with `Retry-After`), did not answer in time (`database_timeout`), the request collided with a concurrent one and changed nothing (`transaction_conflict`: send it again), or the service is not ready (`migrations_pending`, `unsafe_database_role`)",
};

/**
 * OpenAPI response entries for the error statuses a route can answer, plus the request limits every
 * route enforces (414, 431) and the database outage every route can meet (503).
 */
export function errorResponses(...statuses: Array<400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 429 | 503>) {
  return Object.fromEntries(
    [...statuses, 414, 431, 503].map((s) => [s, { description: ERROR_DESCRIPTIONS[s]!, content: { "application/json": { schema: ErrorBodySchema } } }]),
  );
}

/**
 * A constraint the database enforced, as its generic answer (409 `conflict`, 400 `validation_failed`).
 * The constraint is for the code that gives it words of its own (renameConflict, the admin CLI),
 * never in the body: an answer does not name the schema.
 */
export class ConstraintViolation extends ApiError {
  constructor(status: 400 | 409, code: string, message: string, readonly constraint: string | undefined) {
    super(status, code, message);
  }
}

/** A unique violation on `constraint` (409 `conflict` from the database layer) under its own code. */
export function renameConflict(error: unknown, constraint: string, code: string, message: string): unknown {
  return error instanceof ConstraintViolation && error.status === 409 && error.constraint === constraint ? new ApiError(409, code, message) : error;
}

type OperationObject = {
  parameters?: Array<{ in?: string }>;
  requestBody?: unknown;
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, unknown>;
};

const METHODS_WITH_BODIES = new Set(["post", "put", "patch", "delete"]);
/** A credential that, wrong or missing, answers like an unknown id (404), never 401: the hosted checkout's client secret. */
const SECRET_OF_A_RESOURCE = "CheckoutClientSecret";

/**
 * The error statuses an operation can answer by what it carries, added to the document where its
 * route did not list them, in the one error body (`#/components/schemas/Error`): every request's
 * limits (400 over 100 query parameters, 414, 431); for a method that may carry a body, the body's
 * refusals (413, 415) that come before the route; 401 for a credential (but the checkout's client
 * secret, which answers 404); 404 for a path that names a resource.
 */
export function withDerivedErrorResponses<D extends { paths?: object }>(document: D): D {
  const content = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
  for (const item of Object.values(document.paths ?? {}) as Array<Record<string, unknown> | undefined>) {
    for (const [method, value] of Object.entries(item ?? {})) {
      if (method !== "get" && !METHODS_WITH_BODIES.has(method)) continue;
      const operation = value as OperationObject;
      const parameters = operation.parameters ?? [];
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      const statuses = new Set([400, 414, 431]);
      if (METHODS_WITH_BODIES.has(method)) [413, 415].forEach((s) => statuses.add(s));
      if (schemes.some((scheme) => scheme !== SECRET_OF_A_RESOURCE)) statuses.add(401);
      if (parameters.some((p) => p.in === "path")) statuses.add(404);
      operation.responses ??= {};
      for (const status of statuses) operation.responses[status] ??= { description: ERROR_DESCRIPTIONS[status]!, content };
    }
  }
  return document;
}
