// Gasless relays' routes; the shapes are _shared/relays/schemas.ts. A server's API key, or the
// check-in app's session token: a sponsored check-in is relayed for the person at the door.
import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKeyOrSession } from "../../_shared/auth/middleware.ts";
import { chainUnavailableResponse, ErrorBodySchema, errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent, pathIds } from "../../_shared/http/openapi.ts";
import { CollectionGaslessSchema, RelayAcceptedSchema, RelaySchema, VenueGaslessSchema } from "../../_shared/relays/schemas.ts";

/** A server's API key, or the check-in app's session: the app relays its own check-ins. */
const keyOrSession = [...apiKeySecurity, { SessionAuth: [] }];

const TAG = "Gasless relays";

export const wouldRevertResponse = {
  422: { description: "The call reverts when the relayer sends it (code `relay_would_revert`): nothing signed nor held", content: { "application/json": { schema: ErrorBodySchema } } },
};

/**
 * How every relay goes, for a route's description: `whoMayPay` is the hold's own refusal (who may
 * spend the sponsor's money), `statusRead` where the relay's progress is read.
 */
export const relayFlow = (whoMayPay: string, statusRead: string) =>
  "Flow: the call is simulated from the relayer (422 `relay_would_revert`); the sponsor's rules are checked and the cost held " +
  "(sponsorship check: 409 with the reason as code: `operation_not_enabled`, `target_not_allowed`, `insufficient_balance`, ...; " +
  `404 \`sponsor_not_found\`; ${whoMayPay}; 429 \`rate_limited\`); the relayer signs it with its next nonce and the signed ` +
  "transaction is recorded before it is broadcast. Answers 202 once broadcast, without waiting for mining: read the status " +
  `with ${statusRead}. When mined, gasUsed × effectiveGasPrice is charged once against the actor (usage mode ` +
  "`relayed`) and the rest of the hold released. A transaction not mined in time is replaced (same nonce, fees +12.5 % or " +
  "more, within the hold). Without a configured relayer: 503 `relayer_not_configured`; a relayer that cannot sign or pay gas: 503 `relayer_unavailable`.";

const FLOW = relayFlow("403 `actor_not_linked`", "the GET beside this route");

export const venueGasless = createRoute({
  operationId: "createVenueGaslessRelay",
  method: "post",
  path: "/api/v3/crypto/evm/venue-gasless",
  tags: [TAG],
  summary: "Relay a venue check-in call, gas paid by a sponsor",
  description: "The sponsor must enable `venue_gasless` and list the target in allowedTargets. " + FLOW,
  security: keyOrSession,
  middleware: [requireApiKeyOrSession] as const,
  request: { body: { required: true, ...jsonContent(VenueGaslessSchema) } },
  responses: {
    202: { description: "Signed and broadcast (or queued for broadcast)", ...jsonContent(RelayAcceptedSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503),
    ...wouldRevertResponse,
    ...chainUnavailableResponse,
  },
});

export const collectionGasless = createRoute({
  operationId: "createCollectionGaslessRelay",
  method: "post",
  path: "/api/v3/nft-collection/{collectionId}/gasless",
  tags: [TAG],
  summary: "Relay a free mint on a registered collection, gas paid by a sponsor",
  description:
    "The relayer calls the collection's `mint(to, checkoutRef)` with a fresh reference and no value, so only collections " +
    "registered with static pricing, in the native currency, at a price of 0 can be minted gasless (409 `mint_not_free` " +
    "otherwise: the sponsor pays gas, never a price). The sponsor must enable `nft_mint`; its allowedTargets, when not empty, " +
    "must list the collection. " + FLOW,
  security: keyOrSession,
  middleware: [requireApiKeyOrSession] as const,
  request: { params: pathIds("collectionId"), body: { required: true, ...jsonContent(CollectionGaslessSchema) } },
  responses: {
    202: { description: "Signed and broadcast (or queued for broadcast)", ...jsonContent(RelayAcceptedSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503),
    ...wouldRevertResponse,
    ...chainUnavailableResponse,
  },
});

const statusDescription =
  "For whoever asked for the relay, the sponsor's owner and, for a check-in's attendance mint (kind `check_in`), the event's " +
  "owner and staff (404 `relay_not_found` for anyone else). A pending relay's " +
  "receipt is looked up and charged by this read too, so it settles without waiting for the relayer's loop.";

export const getVenueGasless = createRoute({
  operationId: "getVenueGaslessRelay",
  method: "get",
  path: "/api/v3/crypto/evm/venue-gasless/{relayId}",
  tags: [TAG],
  summary: "A venue relay's status",
  description: statusDescription,
  security: keyOrSession,
  middleware: [requireApiKeyOrSession] as const,
  request: { params: pathIds("relayId") },
  responses: { 200: { description: "The relay", ...jsonContent(RelaySchema) }, ...errorResponses(400, 401, 404) },
});

export const getCollectionGasless = createRoute({
  operationId: "getCollectionGaslessRelay",
  method: "get",
  path: "/api/v3/nft-collection/{collectionId}/gasless/{relayId}",
  tags: [TAG],
  summary: "A gasless mint's status",
  description: statusDescription,
  security: keyOrSession,
  middleware: [requireApiKeyOrSession] as const,
  request: { params: pathIds("collectionId", "relayId") },
  responses: { 200: { description: "The relay", ...jsonContent(RelaySchema) }, ...errorResponses(400, 401, 404) },
});
