// What each backend tool does (definitions in tools.ts). Nearly every tool is one REST route called
// in-process as the caller's API key: the route's middlewares, validation, SQL functions and RLS
// decide, exactly as for REST. Only encode_contract_call computes on its own (ABI encoding, no rules).
import { encodeFunctionData, parseAbiItem, toFunctionSelector, type AbiFunction } from "viem";
import { ApiError } from "../../../_shared/http/errors.ts";
import { pathWith, type InProcessApp, type RouteCall } from "../../../_shared/mcp/call-route.ts";
import { apiKeyOperations } from "../../../_shared/mcp/operations.ts";
import type { ToolContext, ToolImplementations } from "../../../_shared/mcp/tools.ts";
import { CLIENT_SECRET_HEADER } from "../../checkout/routes.ts";
import type { BackendTools } from "./tools.ts";

const route = (context: ToolContext, call: RouteCall) => context.route(call);
const secretHeader = (clientSecret: string) => ({ [CLIENT_SECRET_HEADER]: clientSecret });
const checkoutPath = (checkoutId: string, rest = "") => pathWith(`/api/v3/checkout/sessions/{checkoutId}${rest}`, { checkoutId });

/** JSON has no bigint: uint and int arguments come as decimal strings (or numbers) and are encoded as such. */
function abiArguments(inputs: AbiFunction["inputs"], args: unknown[]): unknown[] {
  return inputs.map((input, i) => {
    const value = args[i];
    if (/^u?int\d*$/.test(input.type) && (typeof value === "string" || typeof value === "number")) {
      try {
        return BigInt(value);
      } catch {
        throw new ApiError(400, "validation_failed", `args[${i}] must be an integer for ${input.type}.`);
      }
    }
    return value;
  });
}

export function backendImplementations(app: InProcessApp): ToolImplementations<BackendTools> {
  return {
    list_operations: async () => ({ status: 200, body: { items: await apiKeyOperations(app) } }),

    call_api: async ({ operationId, pathParameters = {}, query, body }, context) => {
      const operation = (await apiKeyOperations(app)).find((o) => o.operationId === operationId);
      if (!operation) throw new ApiError(404, "unknown_operation", `No operation ${operationId}; list_operations names them.`);
      const missing = operation.pathParameters.filter((name) => pathParameters[name] === undefined);
      const extra = Object.keys(pathParameters).filter((name) => !operation.pathParameters.includes(name));
      if (missing.length || extra.length) {
        throw new ApiError(400, "validation_failed", `${operationId} takes the path parameters ${JSON.stringify(operation.pathParameters)}.`, { missing, extra });
      }
      if (body !== undefined && !operation.hasBody) throw new ApiError(400, "validation_failed", `${operationId} takes no body.`);
      return route(context, { method: operation.method, path: pathWith(operation.path, pathParameters), query, body });
    },

    get_me: (_, context) => route(context, { method: "GET", path: "/api/v3/me" }),
    list_events: (query, context) => route(context, { method: "GET", path: "/api/v3/events", query }),
    get_event: ({ eventId }, context) => route(context, { method: "GET", path: pathWith("/api/v3/events/{eventId}", { eventId }) }),
    create_event: (body, context) => route(context, { method: "POST", path: "/api/v3/events", body }),
    update_event: ({ eventId, changes }, context) =>
      route(context, { method: "PATCH", path: pathWith("/api/v3/events/{eventId}", { eventId }), body: changes }),
    delete_event: ({ eventId }, context) => route(context, { method: "DELETE", path: pathWith("/api/v3/events/{eventId}", { eventId }) }),
    list_hubs: (query, context) => route(context, { method: "GET", path: "/api/v3/hubs", query }),
    get_hub: ({ hubId }, context) => route(context, { method: "GET", path: pathWith("/api/v3/hubs/{hubId}", { hubId }) }),
    create_hub: (body, context) => route(context, { method: "POST", path: "/api/v3/hubs", body }),
    update_hub: ({ hubId, changes }, context) => route(context, { method: "PUT", path: pathWith("/api/v3/hubs/{hubId}", { hubId }), body: changes }),
    delete_hub: ({ hubId }, context) => route(context, { method: "DELETE", path: pathWith("/api/v3/hubs/{hubId}", { hubId }) }),
    search_venues: (query, context) => route(context, { method: "GET", path: "/api/v3/adresses/autocomplete", query }),

    register_nft_collection: (body, context) => route(context, { method: "POST", path: "/api/v3/nft-collection", body }),
    list_nft_collections: (_, context) => route(context, { method: "GET", path: "/api/v3/nft-collection" }),
    get_nft_collection: ({ collectionId }, context) =>
      route(context, { method: "GET", path: pathWith("/api/v3/nft-collection/{collectionId}", { collectionId }) }),
    create_checkout_session: (body, context) => route(context, { method: "POST", path: "/api/v3/checkout/sessions", body }),
    get_checkout_session: ({ checkoutId, clientSecret }, context) =>
      route(context, { method: "GET", path: checkoutPath(checkoutId), headers: secretHeader(clientSecret) }),
    retry_checkout_webhook: ({ checkoutId }, context) => route(context, { method: "POST", path: checkoutPath(checkoutId, "/webhook/retry") }),
    list_checkout_webhook_deliveries: ({ checkoutId }, context) =>
      route(context, { method: "GET", path: checkoutPath(checkoutId, "/webhook/deliveries") }),

    build_checkout_payment: ({ checkoutId, clientSecret, payment }, context) =>
      route(context, { method: "POST", path: checkoutPath(checkoutId, "/payments"), headers: secretHeader(clientSecret), body: payment }),
    encode_contract_call: async ({ signature, args }) => {
      let item: AbiFunction;
      try {
        const parsed = parseAbiItem(signature);
        if (parsed.type !== "function") throw new Error("not a function");
        item = parsed;
      } catch {
        throw new ApiError(400, "invalid_signature", "signature must be a human-readable ABI function, e.g. `function mint(address to, bytes32 ref)`.");
      }
      if (args.length !== item.inputs.length) {
        throw new ApiError(400, "validation_failed", `${item.name} takes ${item.inputs.length} arguments, not ${args.length}.`);
      }
      try {
        const callData = encodeFunctionData({ abi: [item], functionName: item.name, args: abiArguments(item.inputs, args) as never });
        return { status: 200, body: { callData, selector: toFunctionSelector(item) } };
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new ApiError(400, "validation_failed", `The arguments do not fit ${item.name}: ${(error as Error).message.split("\n")[0]}`);
      }
    },
    confirm_checkout_payment: ({ checkoutId, clientSecret, txHash }, context) =>
      route(context, { method: "POST", path: checkoutPath(checkoutId, "/confirm"), headers: secretHeader(clientSecret), body: { txHash } }),
    get_sponsorship_balance: (query, context) => route(context, { method: "GET", path: "/api/v3/sponsorship/balance", query }),
    sponsorship_check: (body, context) => route(context, { method: "POST", path: "/api/v3/sponsorship/check", body }),
    sponsorship_complete: (body, context) => route(context, { method: "POST", path: "/api/v3/sponsorship/provider/complete", body }),
    sponsorship_cancel: (body, context) => route(context, { method: "POST", path: "/api/v3/sponsorship/provider/cancel", body }),
    record_sponsorship_deposit: (body, context) => route(context, { method: "POST", path: "/api/v3/sponsorship/deposits/record", body }),
    record_sponsorship_usage: (body, context) => route(context, { method: "POST", path: "/api/v3/sponsorship/usage/record", body }),
  };
}
