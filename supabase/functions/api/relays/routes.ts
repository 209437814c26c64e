// Gasless relays' routes; the shapes are _shared/relays/schemas.ts. A server's API key, or the
// check-in app's session token: a sponsored check-in is relayed for the person at the door.
import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKeyOrSession } from "../../_shared/auth/middleware.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent, pathIds } from "../../_shared/http/openapi.ts";
import { CollectionGaslessSchema, RelayAcceptedSchema, RelaySchema, VenueGaslessSchema } from "../../_shared/relays/schemas.ts";
import { chainUnavailableResponse } from "../../_shared/chain/responses.ts";
import { relayFlow, wouldRevertResponse } from "../../_shared/relays/responses.ts";

/** A server's API key, or the check-in app's session: the app relays its own check-ins. */
const keyOrSession = [...apiKeySecurity, { SessionAuth: [] }];

const TAG = "Gasless relays";

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
