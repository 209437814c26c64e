// TEMPORARY, shrinking to nothing as each domain gets its operations: the tools whose domain is not
// converted yet run their REST route in-process (api/mcp/legacy-route.ts).
import { ApiError } from "../../../_shared/http/errors.ts";
import { callRoute, pathWith } from "../../../_shared/mcp/call-route.ts";
import { apiKeyOperations } from "../../../_shared/mcp/operations.ts";
import { JsonText, ok, type Operation } from "../../../_shared/operations/operation.ts";
import { CLIENT_SECRET_HEADER } from "../../checkout/routes.ts";
import { legacyApp, viaRoute } from "../legacy-route.ts";

const secretHeader = (clientSecret: string) => ({ [CLIENT_SECRET_HEADER]: clientSecret });
const checkoutPath = (checkoutId: string, rest = "") => pathWith(`/api/v3/checkout/sessions/{checkoutId}${rest}`, { checkoutId });
type Q = Any;
type Any = any; // deno-lint-ignore no-explicit-any

interface CallApi {
  operationId: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, never>;
  body?: unknown;
}

export const legacy = {
  list_operations: { name: "list_operations", ownTransactions: true, run: async () => ok({ items: await apiKeyOperations(legacyApp()) }) } as Operation<Record<string, never>>,
  call_api: {
    name: "call_api",
    ownTransactions: true,
    async run(context, { operationId, pathParameters = {}, query, body }) {
      const operation = (await apiKeyOperations(legacyApp())).find((o) => o.operationId === operationId);
      if (!operation) throw new ApiError(404, "unknown_operation", `No operation ${operationId}; list_operations names them.`);
      const missing = operation.pathParameters.filter((name) => pathParameters[name] === undefined);
      const extra = Object.keys(pathParameters).filter((name) => !operation.pathParameters.includes(name));
      if (missing.length || extra.length) {
        throw new ApiError(400, "validation_failed", `${operationId} takes the path parameters ${JSON.stringify(operation.pathParameters)}.`, { missing, extra });
      }
      if (body !== undefined && !operation.hasBody) throw new ApiError(400, "validation_failed", `${operationId} takes no body.`);
      const answer = await callRoute(legacyApp(), { principal: context.principal }, { method: operation.method, path: pathWith(operation.path, pathParameters), query, body }, { requestId: context.requestId });
      if (answer.status >= 400) {
        const b = answer.body as { code?: string; message?: string; details?: unknown };
        throw new ApiError(answer.status as never, b?.code ?? "request_failed", b?.message ?? "failed", b?.details);
      }
      return { status: answer.status as 200, body: answer.text ? new JsonText(answer.text) : undefined };
    },
  } as Operation<CallApi>,

  register_nft_collection: viaRoute<Any>("register_nft_collection", (body) => ({ method: "POST", path: "/api/v3/nft-collection", body })),
  list_nft_collections: viaRoute("list_nft_collections", () => ({ method: "GET", path: "/api/v3/nft-collection" }), { scopes: ["checkout:read"] }),
  get_nft_collection: viaRoute<{ collectionId: string }>("get_nft_collection", ({ collectionId }) =>
    ({ method: "GET", path: pathWith("/api/v3/nft-collection/{collectionId}", { collectionId }) }), { scopes: ["checkout:read"] }),
  create_checkout_session: viaRoute<Any>("create_checkout_session", (body) => ({ method: "POST", path: "/api/v3/checkout/sessions", body })),
  get_checkout_session: viaRoute<{ checkoutId: string; clientSecret: string }>("get_checkout_session", ({ checkoutId, clientSecret }) =>
    ({ method: "GET", path: checkoutPath(checkoutId), headers: secretHeader(clientSecret) }), { scopes: ["checkout:read"] }),
  retry_checkout_webhook: viaRoute<{ checkoutId: string }>("retry_checkout_webhook", ({ checkoutId }) => ({ method: "POST", path: checkoutPath(checkoutId, "/webhook/retry") })),
  list_checkout_webhook_deliveries: viaRoute<{ checkoutId: string }>("list_checkout_webhook_deliveries", ({ checkoutId }) =>
    ({ method: "GET", path: checkoutPath(checkoutId, "/webhook/deliveries") }), { scopes: ["checkout:read"] }),
  build_checkout_payment: viaRoute<{ checkoutId: string; clientSecret: string; payment: unknown }>("build_checkout_payment", ({ checkoutId, clientSecret, payment }) =>
    ({ method: "POST", path: checkoutPath(checkoutId, "/payments"), headers: secretHeader(clientSecret), body: payment })),
  confirm_checkout_payment: viaRoute<{ checkoutId: string; clientSecret: string; txHash: string }>("confirm_checkout_payment", ({ checkoutId, clientSecret, txHash }) =>
    ({ method: "POST", path: checkoutPath(checkoutId, "/confirm"), headers: secretHeader(clientSecret), body: { txHash } })),

  get_sponsorship_balance: viaRoute<Q>("get_sponsorship_balance", (query) => ({ method: "GET", path: "/api/v3/sponsorship/balance", query }), { scopes: ["sponsorship:read"] }),
  list_sponsorship_usage: viaRoute<Q>("list_sponsorship_usage", (query) => ({ method: "GET", path: "/api/v3/sponsorship/usage", query }), { scopes: ["sponsorship:read"] }),
  list_sponsorship_deposits: viaRoute<Q>("list_sponsorship_deposits", (query) => ({ method: "GET", path: "/api/v3/sponsorship/deposits", query }), { scopes: ["sponsorship:read"] }),
  get_sponsorship_settings: viaRoute<Q>("get_sponsorship_settings", (query) => ({ method: "GET", path: "/api/v3/sponsorship/settings", query }), { scopes: ["sponsorship:read"] }),
  sponsorship_check: viaRoute<Any>("sponsorship_check", (body) => ({ method: "POST", path: "/api/v3/sponsorship/check", body })),
  sponsorship_complete: viaRoute<Any>("sponsorship_complete", (body) => ({ method: "POST", path: "/api/v3/sponsorship/provider/complete", body })),
  sponsorship_cancel: viaRoute<Any>("sponsorship_cancel", (body) => ({ method: "POST", path: "/api/v3/sponsorship/provider/cancel", body })),
  record_sponsorship_deposit: viaRoute<Any>("record_sponsorship_deposit", (body) => ({ method: "POST", path: "/api/v3/sponsorship/deposits/record", body })),
  record_sponsorship_usage: viaRoute<Any>("record_sponsorship_usage", (body) => ({ method: "POST", path: "/api/v3/sponsorship/usage/record", body })),

  request_wallet_link: viaRoute<Any>("request_wallet_link", (action) => ({ method: "POST", path: "/mcp/confirmations", body: { kind: "wallet_link", action } }), { scopes: ["wallet:link"] }),
  request_sponsorship_settings_change: viaRoute<Any>("request_sponsorship_settings_change", (action) =>
    ({ method: "POST", path: "/mcp/confirmations", body: { kind: "sponsorship_settings", action } }), { scopes: ["sponsorship:write"] }),
  request_sponsored_deposit: viaRoute<Any>("request_sponsored_deposit", (action) =>
    ({ method: "POST", path: "/mcp/confirmations", body: { kind: "sponsored_deposit", action } }), { scopes: ["sponsorship:write"] }),
  get_confirmation_status: viaRoute<{ confirmationId: string }>("get_confirmation_status", ({ confirmationId }) =>
    ({ method: "GET", path: pathWith("/mcp/confirmations/{id}", { id: confirmationId }) }), { scopes: ["wallet:link", "sponsorship:write"], anyScope: true }),
};
