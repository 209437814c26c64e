// The route of an app-backend function: POST /<name> with a JSON body and the app session, and the
// error answers every function shares. Apart from the app (app.ts), so that the API's OpenAPI
// description can include a function's route without its app.
import { createRoute, type RouteConfig, type z } from "@hono/zod-openapi";
import { requireSession } from "../auth/middleware.ts";
import { ErrorBodySchema } from "../http/errors.ts";
import { jsonContent } from "../http/openapi.ts";

const errorContent = { content: { "application/json": { schema: ErrorBodySchema } } };

/** The error statuses every function answers, in the one error body. */
const FUNCTION_ERRORS = {
  400: { description: "Invalid body (`invalid_json`, `validation_failed` with `details.issues`)", ...errorContent },
  401: { description: "No app session token, or one that is invalid or expired (`missing_session`, `invalid_session`)", ...errorContent },
  405: { description: "A method other than POST (`method_not_allowed`, with Allow)", ...errorContent },
  413: { description: "Body larger than the limit (`payload_too_large`)", ...errorContent },
  415: { description: "Body not JSON (`unsupported_media_type`), or with a content coding or charset other than identity and UTF-8", ...errorContent },
  429: { description: "Over the function's per-person limit (`rate_limited`, with Retry-After)", ...errorContent },
  503: { description: "A provider the function needs is not configured (`provider_not_configured`), or the database is unavailable (`database_unavailable`)", ...errorContent },
} as const;

/** The route of function `name`: POST /<name> with a JSON body, the app session, and the common error answers. */
export function functionRoute<B extends z.ZodType, R extends RouteConfig["responses"][number]>(definition: {
  name: string;
  operationId: string;
  summary: string;
  description: string;
  body: B;
  /** Whether a request must carry a body (else no body is an empty object). */
  bodyRequired: boolean;
  response: R;
  /** Error answers of this function besides the ones every function gives. */
  errors?: RouteConfig["responses"];
}) {
  return createRoute({
    operationId: definition.operationId,
    method: "post",
    path: `/${definition.name}`,
    tags: ["App functions"],
    summary: definition.summary,
    description: definition.description,
    security: [{ SessionAuth: [] }],
    middleware: [requireSession] as const,
    request: { body: { required: definition.bodyRequired, ...jsonContent(definition.body) } },
    responses: { 200: definition.response, ...FUNCTION_ERRORS, ...definition.errors },
  });
}

export type FunctionRoute = ReturnType<typeof functionRoute>;
