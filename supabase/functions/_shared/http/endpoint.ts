// REST's adapter over the operations: an endpoint binds a route definition (HTTP: path, schemas,
// authentication middleware) to the operation it runs and says how the validated request becomes
// the operation's input. The same bindings are the registry that MCP's call_api dispatches through
// by OpenAPI operation id, validating with each route's own schemas.
import type { RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { z } from "zod";
import { ANONYMOUS } from "../auth/principal.ts";
import { contextFor, JsonText, type Answer, type Operation, runOperation } from "../operations/operation.ts";
import { createRouter } from "./app.ts";
import { refuseLoneSurrogates } from "./validation.ts";
import type { AppEnv } from "./context.ts";

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type RequestOf<R extends RouteConfig> = NonNullable<R["request"]>;
type JsonSchemaOf<R extends RouteConfig> = RequestOf<R> extends { body?: { content: { "application/json": { schema: infer S } } } } ? S : undefined;

/** A request as the route's validators left it. */
export interface ValidRequest<R extends RouteConfig = RouteConfig> {
  param: Out<RequestOf<R>["params"]>;
  query: Out<RequestOf<R>["query"]>;
  json: Out<JsonSchemaOf<R>>;
  header: Out<RequestOf<R>["headers"]>;
}

export interface Endpoint<R extends RouteConfig = RouteConfig, I = unknown> {
  route: R;
  operation: Operation<I>;
  /** The operation's input from the validated request. */
  input: (request: ValidRequest<R>) => I;
}

/** Any endpoint, for lists of them (each was type-checked where it was bound). */
// deno-lint-ignore no-explicit-any
export type AnyEndpoint = Endpoint<any, any>;

export function endpoint<R extends RouteConfig, I>(route: R, operation: Operation<I>, input: (request: ValidRequest<R>) => I): Endpoint<R, I> {
  return { route, operation, input };
}

/** The route's OpenAPI operationId, set where the route is defined (e.g. createCheckoutSession). */
export function operationIdOf(route: RouteConfig): string {
  if (!route.operationId) throw new Error(`${route.method.toUpperCase()} ${route.path} has no operationId`);
  return route.operationId;
}

/** The answer as an HTTP response. */
export function send(c: Context, answer: Answer): Response {
  const { status, body, headers } = answer;
  if (status === 204 || body === undefined) return c.body(null, status, headers);
  if (body instanceof JsonText) return c.body(body.text, status, { ...headers, "content-type": "application/json" });
  return c.json(body as object, status, headers);
}

function validRequest(c: Context): ValidRequest {
  const req = c.req as unknown as { valid(target: string): unknown };
  return { param: req.valid("param"), query: req.valid("query"), json: req.valid("json"), header: req.valid("header") } as ValidRequest;
}

/** A router serving `endpoints`: each handler validates (the route's hook), runs the operation as the caller, sends. */
export function routerOf(endpoints: readonly AnyEndpoint[]) {
  const router = createRouter();
  for (const { route, operation, input } of endpoints) {
    router.openapi(route, (async (c: Context<AppEnv>) => {
      const context = contextFor({ db: c.get("db"), config: c.get("config") }, c.get("principal") ?? ANONYMOUS, c.get("requestId"));
      const request = validRequest(c);
      refuseLoneSurrogates(request.json);
      return send(c, await runOperation(operation, context, input(request)));
    }) as never);
  }
  return router;
}
