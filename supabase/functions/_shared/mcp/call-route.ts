// How an MCP tool reaches the REST code: it calls the REST route in-process, on the same app, as the
// MCP caller. Same middlewares, same validation, same SQL functions and RLS: a tool is an adapter
// over the route, never a second implementation of its rules.
import { inProcessEnv } from "../auth/middleware.ts";
import type { Principal } from "../auth/principal.ts";

/** Whom the route sees: the caller's API key (as its x-api-key header), or an authenticated principal. */
export type RouteCredential = { apiKey: string } | { principal: Principal };

export type QueryValue = string | number | boolean | Array<string | number | boolean>;

export interface RouteCall {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The path with its parameters already substituted (see `pathWith`). */
  path: string;
  query?: Record<string, QueryValue | undefined>;
  /** Sent as JSON when defined. */
  body?: unknown;
  /** Extra request headers of the route's own (X-Checkout-Client-Secret). */
  headers?: Record<string, string>;
}

/** A route's answer: its status, its parsed JSON body (null for an empty one) and that body's text. */
export interface RouteAnswer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

/** What callRoute needs of the app: Hono's in-process `request`. */
export interface InProcessApp {
  request(input: string, init?: RequestInit, env?: object): Response | Promise<Response>;
}

export interface CallOptions {
  /** The MCP request's id, so the route's logs and error bodies carry the same one. */
  requestId?: string;
  /** The MCP request's Origin, passed on: routes that refuse browsers refuse them here too. */
  origin?: string;
}

/** `/api/v3/events/{eventId}` with `{ eventId: "..." }`; each value is URL-encoded as one segment. */
export function pathWith(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path parameter ${name} missing for ${template}`);
    return encodeURIComponent(String(value));
  });
}

function queryString(query: RouteCall["query"]): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Calls a route of `app` in-process as `credential`; the answer's JSON body is parsed. */
export async function callRoute(app: InProcessApp, credential: RouteCredential, call: RouteCall, options: CallOptions = {}): Promise<RouteAnswer> {
  const headers = new Headers(call.headers);
  if (call.body !== undefined) headers.set("content-type", "application/json");
  if (options.requestId) headers.set("x-request-id", options.requestId);
  if (options.origin) headers.set("origin", options.origin);
  if ("apiKey" in credential && credential.apiKey) headers.set("x-api-key", credential.apiKey);
  const init: RequestInit = { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) };
  const env = "principal" in credential ? inProcessEnv(credential.principal) : undefined;
  const response = await app.request(`${call.path}${queryString(call.query)}`, init, env);
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, body, text, headers: response.headers };
}
