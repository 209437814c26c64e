// The raw API for trusted backends: list_operations names every v3 operation an API key can call,
// and call_api runs one by its OpenAPI operation id through the registry it is given (api/registry.ts),
// validating with the route's own schemas and running its operation as the caller: the same
// validation, permissions, SQL and errors as REST, with no HTTP in between. A read-only connection
// (toolsets.ts) gets their read-only forms: only GET operations are listed, and call_api refuses any
// other, decided by the operation's own route, never by what the arguments claim.
import type { RouteConfig } from "@hono/zod-openapi";
import type { z } from "zod";
import { type AnyEndpoint, operationIdOf, type ValidRequest } from "../http/endpoint.ts";
import { ApiError } from "../http/errors.ts";
import { validationError } from "../http/validation.ts";
import { authorize, ok, operation, type Operation, runOperation } from "../operations/operation.ts";

type QueryValue = string | number | boolean | Array<string | number | boolean>;

export interface CallApiInput {
  operationId: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

const isApiKeyOperation = (route: RouteConfig) => route.security?.some((requirement) => "ApiKeyAuth" in requirement) ?? false;
const pathParametersOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
const isGet = ({ route }: AnyEndpoint) => route.method === "get";

function parsed<T>(schema: z.ZodType<T> | undefined, value: unknown): T | undefined {
  if (schema === undefined) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

/** The query as a query string carries it: strings, and a repeated parameter as an array. */
function asQueryString(query: Record<string, QueryValue>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(query).map(([name, value]) =>
    [name, Array.isArray(value) ? (value.length === 1 ? String(value[0]) : value.map(String)) : String(value)]));
}

/** The request call_api describes, validated by the route's own schemas. */
function validRequestOf(operationId: string, { route }: AnyEndpoint, { pathParameters = {}, query = {}, body }: CallApiInput): ValidRequest {
  const names = pathParametersOf(route.path);
  const missing = names.filter((name) => pathParameters[name] === undefined);
  const extra = Object.keys(pathParameters).filter((name) => !names.includes(name));
  if (missing.length || extra.length) {
    throw new ApiError(400, "validation_failed", `${operationId} takes the path parameters ${JSON.stringify(names)}.`, { missing, extra });
  }
  const request = route.request ?? {};
  if (body !== undefined && request.body === undefined) throw new ApiError(400, "validation_failed", `${operationId} takes no body.`);
  const jsonSchema = (request.body?.content as { "application/json"?: { schema: z.ZodType } } | undefined)?.["application/json"]?.schema;
  return {
    param: parsed(request.params as z.ZodType | undefined, pathParameters),
    query: parsed(request.query as z.ZodType | undefined, asQueryString(query)),
    json: parsed(jsonSchema, body),
    header: undefined,
  } as ValidRequest;
}

/**
 * list_operations and call_api over `endpoints` (the REST registry), in both forms. The registry is
 * passed in, so that a catalog without these tools (the public one) loads none of the REST surface.
 */
export function rawApiOperations(endpoints: readonly AnyEndpoint[]) {
  /** The API-key operations by id, in registration order. */
  const apiKeyEndpoints = new Map<string, AnyEndpoint>(
    endpoints.filter((e) => isApiKeyOperation(e.route)).map((e) => [operationIdOf(e.route), e]),
  );
  const listed = [...apiKeyEndpoints].map(([operationId, { route }]) => ({
    operationId,
    method: route.method.toUpperCase(),
    path: route.path,
    summary: route.summary ?? "",
    pathParameters: pathParametersOf(route.path),
    hasBody: route.request?.body !== undefined,
  }));
  const listedGets = listed.filter((item) => item.method === "GET");

  function endpointOf(operationId: string, readOnly: boolean): AnyEndpoint {
    const endpoint = apiKeyEndpoints.get(operationId);
    if (!endpoint) throw new ApiError(404, "unknown_operation", `No operation ${operationId}; list_operations names them.`);
    if (readOnly && !isGet(endpoint)) {
      throw new ApiError(403, "read_only_connection", `${operationId} is a ${endpoint.route.method.toUpperCase()} operation, and this connection is read-only: call_api runs GET operations only.`);
    }
    return endpoint;
  }

  /** The operation call_api will run, when the id names one it may run (the endpoint decides on its call transaction with it). */
  function calledOperationOf(readOnly: boolean) {
    return (args: unknown): Operation<never> | undefined => {
      const operationId = (args as Partial<CallApiInput> | null)?.operationId;
      const endpoint = typeof operationId === "string" ? apiKeyEndpoints.get(operationId) : undefined;
      return endpoint && (!readOnly || isGet(endpoint)) ? endpoint.operation : undefined;
    };
  }

  function callApiOperation(readOnly: boolean) {
    return operation({
      name: readOnly ? "api.call_read_only" : "api.call",
      async run(context, input: CallApiInput) {
        const endpoint = endpointOf(input.operationId, readOnly);
        await authorize(endpoint.operation, context); // before validation, as REST refuses a missing permission first
        return runOperation(endpoint.operation, context, endpoint.input(validRequestOf(input.operationId, endpoint, input)));
      },
    });
  }

  return {
    listOperations: operation({ name: "api.list_operations", async run() { return ok({ items: listed }); } }),
    listReadOnlyOperations: operation({ name: "api.list_read_only_operations", async run() { return ok({ items: listedGets }); } }),
    callApi: callApiOperation(false),
    calledOperation: calledOperationOf(false),
    /** call_api on a read-only connection: GET operations only. */
    callReadOnlyApi: callApiOperation(true),
    calledReadOnlyOperation: calledOperationOf(true),
  };
}
