// The operations an MCP tool may call by id: read from the app's served OpenAPI document, so a route
// added later is callable with no change here. Routes have no operationId of their own; the id is
// derived from method and path: POST /api/v3/checkout/sessions -> post_api_v3_checkout_sessions.
import { callRoute, type InProcessApp } from "./call-route.ts";

export interface Operation {
  operationId: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  summary: string;
  pathParameters: string[];
  hasBody: boolean;
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

export function operationIdOf(method: string, path: string): string {
  const segments = path.split("/").filter(Boolean).map((segment) => segment.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+/g, "_"));
  return [method.toLowerCase(), ...segments].join("_");
}

interface OpenApiOperation {
  summary?: string;
  security?: Array<Record<string, unknown>>;
  requestBody?: unknown;
}

/** The operations of `document` that `scheme` authenticates (ApiKeyAuth), in document order. */
export function operationsOf(document: { paths?: Record<string, Record<string, OpenApiOperation>> }, scheme: string): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || !operation.security?.some((requirement) => scheme in requirement)) continue;
      operations.push({
        operationId: operationIdOf(method, path),
        method: method.toUpperCase() as Operation["method"],
        path,
        summary: operation.summary ?? "",
        pathParameters: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!),
        hasBody: operation.requestBody !== undefined,
      });
    }
  }
  return operations;
}

const cache = new WeakMap<InProcessApp, Promise<Operation[]>>();

/** The API-key operations of the app's OpenAPI document (GET /api/v3/openapi), read once per app. */
export function apiKeyOperations(app: InProcessApp): Promise<Operation[]> {
  let operations = cache.get(app);
  if (!operations) {
    operations = callRoute(app, { apiKey: "" }, { method: "GET", path: "/api/v3/openapi" }).then((answer) => {
      if (answer.status !== 200) throw new Error(`the OpenAPI document answered ${answer.status}`);
      return operationsOf(answer.body as Parameters<typeof operationsOf>[0], "ApiKeyAuth");
    });
    operations.catch(() => cache.delete(app));
    cache.set(app, operations);
  }
  return operations;
}
