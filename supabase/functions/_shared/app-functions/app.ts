// The common rules of the app-backend functions (SPEC 4.8, 7, 8), as one Hono app per function:
//   * one route (routes.ts), POST `/<name>` (Supabase hands a function its own name as the path;
//     npm start maps /functions/v1/<name> to it), JSON only: another method is 405 with Allow,
//     another content type 415;
//   * CORS with OPTIONS preflight for the headers supabase-js sends: its own published list
//     (@supabase/supabase-js/cors) and the tracing and region headers it adds;
//   * the app session (requireSession: 401 missing_session or invalid_session);
//   * the body validated by the route's schema before anything else happens (400 invalid_json,
//     validation_failed), or, for a body too large to hold parsed, read as it arrives by the
//     function's own reader (readBody);
//   * a per-person rate limit counted in PostgreSQL (core.take_rate_limit, a window of a minute:
//     429 rate_limited with Retry-After), taken before any provider is called;
//   * a provider the function needs and lacks: 503 provider_not_configured;
//   * every failure in the one error body, with request_id (createBaseApp).
// A function's handler then runs its operation as the person (FunctionCall.context) and answers
// its result as JSON, or answers a Response of its own (a stream).
import type { z } from "@hono/zod-openapi";
import { corsHeaders } from "@supabase/supabase-js/cors";
import type { Context } from "hono";
import type { Config } from "../config.ts";
import { createBaseApp, type CorsRules } from "../http/app.ts";
import type { AppEnv, AppServices } from "../http/context.ts";
import { send } from "../http/endpoint.ts";
import { ApiError } from "../http/errors.ts";
import { refuseLoneSurrogates } from "../http/validation.ts";
import { type Answer, contextFor, type OperationContext } from "../operations/operation.ts";
import type { FunctionRoute } from "./routes.ts";

/** What supabase-js sends besides its published list: W3C trace context, and functions-js's region. */
const SUPABASE_JS_EXTRA_HEADERS = ["traceparent", "tracestate", "baggage", "x-region"];

export const FUNCTION_CORS: CorsRules = {
  allowMethods: ["POST", "OPTIONS"],
  allowHeaders: [
    ...corsHeaders["Access-Control-Allow-Headers"]!.split(",").map((name) => name.trim()),
    ...SUPABASE_JS_EXTRA_HEADERS,
    "x-request-id",
  ],
};

type BodyOf<R extends FunctionRoute> = R["request"]["body"]["content"]["application/json"]["schema"] extends infer S extends z.ZodType
  ? z.output<S>
  : never;

/** One call of a function, once the common rules passed. */
export interface FunctionCall<B> {
  /** The validated body. */
  body: B;
  /** The person's operation context: their session principal and database scope. */
  context: OperationContext;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  c: Context<AppEnv>;
}

/** 503 provider_not_configured: `missing` says what to configure. */
export function providerNotConfigured(missing: string): ApiError {
  return new ApiError(503, "provider_not_configured", missing);
}

interface FunctionBasics<R extends FunctionRoute, B> {
  route: R;
  /** The person's requests per minute (the function's <NAME>_RATE_LIMIT_PER_MINUTE). */
  ratePerMinute: (config: Config) => number;
  /** A body limit of its own, when the function takes more than BODY_LIMIT_BYTES (audio). */
  maxBodyBytes?: number;
  /**
   * Reads and validates the body itself, as it arrives, instead of the route's JSON validator: for a
   * body too large to hold parsed (audio). The route still describes it.
   */
  readBody?: (request: Request) => Promise<B>;
}

export type AppFunction<R extends FunctionRoute, B = BodyOf<R>> = FunctionBasics<R, B> & (
  | {
    /** Why a provider the function needs is not configured (503 provider_not_configured), or undefined when it is. */
    missingProvider?: (config: Config) => string | undefined;
    handle: (call: FunctionCall<B>) => Promise<Answer | Response>;
  }
  | {
    /** A function whose provider client is not part of this service yet: every valid call is told so (503). */
    missingProvider: (config: Config) => string;
    handle?: undefined;
  }
);

/** The body as the route's JSON validator left it, refused when it holds text that is not well-formed Unicode. */
function validatedJson<B>(c: Context<AppEnv>): B {
  const body = (c.req as unknown as { valid(target: "json"): B }).valid("json");
  refuseLoneSurrogates(body);
  return body;
}

/** The app of one function: the common rules above, then its handler. */
export function createFunctionApp<R extends FunctionRoute, B = BodyOf<R>>(services: AppServices, fn: AppFunction<R, B>) {
  const name = fn.route.path.slice(1);
  const largerBody = fn.maxBodyBytes === undefined ? [] : [{ method: "POST", path: new RegExp(`^/${name}$`), maxBytes: fn.maxBodyBytes }];
  const app = createBaseApp(services, { corsRules: FUNCTION_CORS, largerBodies: largerBody });
  const { readBody } = fn;
  // A body the function reads itself is served without the route's JSON validator.
  app.openapi(readBody ? { ...fn.route, request: undefined } : fn.route, (async (c: Context<AppEnv>) => {
    const body = readBody ? await readBody(c.req.raw) : validatedJson<B>(c);
    const context = contextFor(services, c.get("principal"), c.get("requestId"));
    await context.db.takeRateLimit(`function:${name}`, fn.ratePerMinute(services.config));
    const missing = fn.missingProvider?.(services.config);
    if (missing !== undefined) throw providerNotConfigured(missing);
    // A function without a handler always misses its provider, so only one with a handler gets here.
    const answer = await fn.handle!({ body, context, signal: c.req.raw.signal, c });
    return answer instanceof Response ? answer : send(c, answer);
  }) as never);
  return app;
}
