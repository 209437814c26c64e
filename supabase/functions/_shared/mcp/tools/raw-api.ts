// MCP tools of the raw API (_shared/mcp/raw-api.ts): list_operations and call_api reach every v3
// operation an API key can call, through the REST registry the caller passes in.
import { z } from "zod";
import type { AnyEndpoint } from "../../http/endpoint.ts";
import { rawApiOperations } from "../raw-api.ts";
import { define } from "../tools.ts";
import { onChain, READ } from "./common.ts";

export const OperationSchema = z.object({
  operationId: z.string().describe("The operation's OpenAPI operationId, e.g. createCheckoutSession"),
  method: z.string().describe("The HTTP method, upper case (GET, POST, ...)"),
  path: z.string().describe("The path template, e.g. /api/v3/events/{eventId}"),
  summary: z.string().describe("What the operation does, in one line"),
  pathParameters: z.array(z.string()).describe("The names of the path's {placeholders}: call_api's pathParameters must fill each"),
  hasBody: z.boolean().describe("Whether the operation takes a JSON body (call_api's `body`)"),
}).describe("An API operation call_api can run");

/** list_operations and call_api over `endpoints` (the REST registry). */
export function rawApiTools(endpoints: readonly AnyEndpoint[]) {
  const rawApi = rawApiOperations(endpoints);
  return {
    list_operations: define({
      name: "list_operations", toolset: "raw_api", operation: rawApi.listOperations,
      whenReadOnly: { operation: rawApi.listReadOnlyOperations },
      title: "List API operations",
      description: "Every v3 operation an API key can call (from the served OpenAPI document, GET /api/v3/openapi), " +
        "with the operationId that call_api takes. Read the OpenAPI document for request and response schemas.",
      input: z.object({}).strict(),
      output: z.object({ items: z.array(OperationSchema).describe("Every operation, in the document's order") }),
      annotations: READ,
    }),
    call_api: define({
      name: "call_api", toolset: "raw_api", operation: rawApi.callApi, dispatchesTo: rawApi.calledOperation,
      // Read-only: GET operations only, which change nothing; some read a chain.
      whenReadOnly: { operation: rawApi.callReadOnlyApi, dispatchesTo: rawApi.calledReadOnlyOperation, annotations: onChain(READ) },
      title: "Call an API operation",
      description: "Calls one v3 operation (see list_operations) as your API key, with the same validation, permissions and " +
        "errors as REST: `pathParameters` fill the path's {placeholders}, `query` becomes the query string, `body` the JSON body. " +
        "The REST answer is the result; a REST error is an isError result with its code.",
      input: z.object({
        operationId: z.string().min(1).max(200).describe("The operation to run: an operationId from list_operations, e.g. listEvents"),
        pathParameters: z.record(z.string(), z.string().min(1).max(200)).optional()
          .describe("A value for each {placeholder} of the operation's path, by name, e.g. { \"eventId\": \"65f1c0a2b3d4e5f601234567\" }"),
        query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()])).max(100)])).optional()
          .describe("The query parameters, by name (an array repeats the parameter, at most 100 values), e.g. { \"take\": 50 }"),
        body: z.unknown().optional().describe("The JSON request body, for an operation that takes one (hasBody); its schema is the OpenAPI document's"),
      }).strict(),
      output: z.object({}).catchall(z.unknown()).describe("The operation's JSON answer"),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    }),
  };
}
