import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { getPath } from "hono/utils/url";
import { databaseUnavailable, isDatabaseUnavailable } from "../db/availability.ts";
import { compression } from "./compression.ts";
import type { AppEnv, AppServices } from "./context.ts";
import { ApiError, errorResponse } from "./errors.ts";
import { OFFLINE_SCANS_BODY } from "../checkin/schemas.ts";
import { bodyLimit, type LargerBody, refuseUndecodableBodies, requestLimits } from "./request-limits.ts";
import { validationError } from "./validation.ts";

/**
 * Validation failures of any zod-openapi route become the one error body. `routingPath`: the path an
 * app routes for a request's path, when it is not the path itself.
 */
export function createRouter(routingPath?: (path: string) => string) {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
    ...(routingPath ? { getPath: (request: Request) => routingPath(getPath(request)) } : {}),
  });
}

const STATUS_CODES: Partial<Record<number, string>> = {
  400: "bad_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  413: "payload_too_large",
  // A required JSON body sent with another Content-Type (zod-openapi's check).
  415: "unsupported_media_type",
  429: "rate_limited",
};

function toApiError(error: unknown): ApiError {
  // Database errors are usually translated where the statement ran; an outage is caught here too,
  // wherever it surfaced.
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 400 && /malformed json/i.test(error.message)) {
      return new ApiError(400, "invalid_json", "The request body is not valid JSON.");
    }
    const status = error.status as ContentfulStatusCode;
    return new ApiError(status, STATUS_CODES[status] ?? "http_error", error.message || "The request failed.");
  }
  return new ApiError(500, "internal_error", "The service failed to process the request.");
}

/** What browsers may send cross-origin; each function serves its own methods (405 for the rest). */
export interface CorsRules {
  allowMethods: string[];
  allowHeaders: string[];
}

/** The REST API, MCP and page routes' rules. */
const API_CORS: CorsRules = {
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  // Besides our own, what supabase-js sends (apikey, x-client-info; x-supabase-api-version to /auth/v1).
  allowHeaders: ["content-type", "x-api-key", "authorization", "x-checkout-client-secret", "x-request-id", "apikey", "x-client-info", "x-supabase-api-version"],
};

export interface BaseAppOptions {
  corsRules?: CorsRules;
  largerBodies?: readonly LargerBody[];
  routingPath?: (path: string) => string;
}

/**
 * The app every function builds on: request ids, services in the context, CORS with preflight,
 * limits on the URL, headers and query (request-limits.ts), bodies only in UTF-8 without a content
 * coding, a body limit (BODY_LIMIT_BYTES, or a larger one for the routes in `largerBodies`), and the one error body for every failure including 404 and 405.
 * JSON of 1 KB and more, pages and scripts are gzipped for clients that accept it (compression.ts), errors included.
 */
export function createBaseApp(
  services: AppServices,
  { corsRules = API_CORS, largerBodies = [OFFLINE_SCANS_BODY], routingPath }: BaseAppOptions = {},
) {
  const app = createRouter(routingPath);
  app.use(compression());
  app.use(methodNotAllowed({
    app,
    onMethodNotAllowed: (c, methods) =>
      errorResponse(c, new ApiError(405 as ContentfulStatusCode, "method_not_allowed", `${c.req.method} is not allowed here. Allowed: ${methods.join(", ")}.`, undefined, { Allow: methods.join(", ") })),
  }));
  app.use(requestId());
  app.use(async (c, next) => {
    c.set("config", services.config);
    c.set("db", services.db);
    await next();
  });
  app.use(cors({
    origin: services.config.CORS_ALLOWED_ORIGINS.includes("*") ? "*" : services.config.CORS_ALLOWED_ORIGINS,
    ...corsRules,
    // x-supabase-api-version tells supabase-js how to read an auth error's code (/auth/v1).
    exposeHeaders: ["x-request-id", "retry-after", "x-supabase-api-version"],
    maxAge: 600,
  }));
  // After CORS, so browsers can read these refusals too.
  app.use(requestLimits());
  app.use(refuseUndecodableBodies());
  app.use(bodyLimit(services.config.BODY_LIMIT_BYTES, largerBodies));
  app.notFound((c) => errorResponse(c, new ApiError(404, "not_found", `No route for ${c.req.method} ${c.req.path}.`)));
  app.onError((error, c) => {
    services.db.availability.noticed(error); // from a statement outside Database's own methods
    const apiError = toApiError(error);
    if (apiError.status >= 500 && !(error instanceof ApiError)) {
      // Never the request's headers or body: they may carry keys and secrets.
      console.error(`[${c.get("requestId")}] ${c.req.method} ${c.req.path} failed:`, error);
    }
    return errorResponse(c, apiError);
  });
  return app;
}
