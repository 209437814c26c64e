// Gasless relays (issue 9 item 10, SPEC 4.5): the service's relayer wallet sends an allowed call for
// the caller, paid from a sponsor's balance. API keys only (SPEC 5.8 gives the app session to the
// /sponsorship/ routes alone). Bodies are our choice (the spec shows none): documented
// here and in the OpenAPI description.
import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { ErrorBodySchema, errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent, ObjectId } from "../../_shared/http/openapi.ts";
import { ChainId, EvmAddress, TokenAmount } from "../../_shared/chain/schemas.ts";
import { chainUnavailableResponse } from "../collections/routes.ts";

const TAG = "Gasless relays";

const Wei = TokenAmount.openapi({ description: "wei, as a decimal string", example: "300000000000000" });
const CallData = z.string().min(10).max(131_074).regex(/^0x([0-9a-fA-F]{2})*$/, "0x and an even number of hex digits")
  .openapi({ description: "The ABI-encoded call: a 4-byte selector and its arguments", example: "0x40c10f19" });
const MaxCost = Wei.refine((v) => v !== "0", "must be more than 0").optional().openapi({
  description: "The most the relay may cost the sponsor (held until mined). Default: twice gas limit × max fee per gas of the " +
    "first attempt, room for replacements; less than that first worst case is 409 `max_cost_too_low`.",
});

export const VenueGaslessSchema = z.object({
  walletAddress: EvmAddress.openapi({ description: "The sponsor wallet that pays the gas" }),
  chainId: ChainId,
  targetAddress: EvmAddress.openapi({ description: "The venue contract; it must be in the sponsor's allowedTargets (an empty allowlist allows no relay)" }),
  callData: CallData.openapi({ description: "The check-in call. The relayer is msg.sender: the contract must take the actor from the call (or ERC-2771)." }),
  actorAddress: EvmAddress.openapi({ description: "Who checks in: your own linked address on `chainId` (unless you own the sponsor wallet); usage is recorded against it" }),
  maxCostWei: MaxCost,
}).strict().openapi("VenueGaslessRelay");

export const CollectionGaslessSchema = z.object({
  sponsorWalletAddress: EvmAddress.openapi({ description: "The sponsor wallet that pays the gas, on the collection's chain" }),
  to: EvmAddress.openapi({ description: "The recipient: your own linked address on the collection's chain (unless you own the sponsor wallet); usage is recorded against it" }),
  maxCostWei: MaxCost,
}).strict().openapi("CollectionGaslessMint");

export const RelayStatus = z.enum(["signed", "submitted", "mined", "failed"]).openapi({
  description: "signed: recorded, the broadcast is retried by the relayer; submitted: a node accepted it; mined: the receipt " +
    "is charged (see `reverted`); failed: its nonce went to another transaction, the hold is released and nothing charged",
});

export const RelayAcceptedSchema = z.object({
  relayId: ObjectId,
  status: RelayStatus,
  txHash: z.string().openapi({ description: "The first attempt's hash; a replacement (higher fee) gets another, see the status read" }),
  nonce: z.number().int(),
  reservationId: ObjectId,
  chainId: ChainId,
  relayerAddress: z.string(),
}).openapi("GaslessRelayAccepted");

export const RelaySchema = z.object({
  relayId: ObjectId,
  kind: z.enum(["venue_gasless", "nft_mint"]),
  collectionId: ObjectId.nullable(),
  reservationId: ObjectId,
  chainId: ChainId,
  relayerAddress: z.string(),
  nonce: z.number().int(),
  status: RelayStatus,
  txHash: z.string().openapi({ description: "The mined transaction once mined, else the latest attempt" }),
  attempts: z.number().int().openapi({ description: "1, plus one per replacement" }),
  reverted: z.boolean().nullable().openapi({ description: "Once mined: whether the call reverted (its gas is charged all the same)" }),
  chargedWei: Wei.nullable(),
  usageId: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: z.string().openapi({ format: "date-time" }),
  updatedAt: z.string().openapi({ format: "date-time" }),
}).openapi("GaslessRelay");

const wouldRevertResponse = {
  422: { description: "The call reverts when the relayer sends it (code `relay_would_revert`): nothing signed nor held", content: { "application/json": { schema: ErrorBodySchema } } },
};

const FLOW =
  "Flow: the call is simulated from the relayer (422 `relay_would_revert`); the sponsor's rules are checked and the cost held " +
  "(sponsorship check: 409 with the reason as code: `operation_not_enabled`, `target_not_allowed`, `insufficient_balance`, ...; " +
  "404 `sponsor_not_found`; 403 `actor_not_linked`; 429 `rate_limited`); the relayer signs it with its next nonce and the signed " +
  "transaction is recorded before it is broadcast. Answers 202 once broadcast, without waiting for mining: read the status " +
  "with the GET beside this route. When mined, gasUsed × effectiveGasPrice is charged once against the actor (usage mode " +
  "`relayed`) and the rest of the hold released. A transaction not mined in time is replaced (same nonce, fees +12.5 % or " +
  "more, within the hold). Without a configured relayer: 503 `relayer_not_configured`; a relayer that cannot sign or pay gas: 503 `relayer_unavailable`.";

export const venueGasless = createRoute({
  method: "post",
  path: "/api/v3/crypto/evm/venue-gasless",
  tags: [TAG],
  summary: "Relay a venue check-in call, gas paid by a sponsor",
  description: "The sponsor must enable `venue_gasless` and list the target in allowedTargets. " + FLOW,
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { body: { required: true, ...jsonContent(VenueGaslessSchema) } },
  responses: {
    202: { description: "Signed and broadcast (or queued for broadcast)", ...jsonContent(RelayAcceptedSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503),
    ...wouldRevertResponse,
    ...chainUnavailableResponse,
  },
});

export const collectionGasless = createRoute({
  method: "post",
  path: "/api/v3/nft-collection/{collectionId}/gasless",
  tags: [TAG],
  summary: "Relay a free mint on a registered collection, gas paid by a sponsor",
  description:
    "The relayer calls the collection's `mint(to, checkoutRef)` with a fresh reference and no value, so only collections " +
    "registered with static pricing, in the native currency, at a price of 0 can be minted gasless (409 `mint_not_free` " +
    "otherwise: the sponsor pays gas, never a price). The sponsor must enable `nft_mint`; its allowedTargets, when not empty, " +
    "must list the collection. " + FLOW,
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: z.object({ collectionId: ObjectId }), body: { required: true, ...jsonContent(CollectionGaslessSchema) } },
  responses: {
    202: { description: "Signed and broadcast (or queued for broadcast)", ...jsonContent(RelayAcceptedSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503),
    ...wouldRevertResponse,
    ...chainUnavailableResponse,
  },
});

const statusDescription =
  "For whoever asked for the relay and the sponsor's owner (404 `relay_not_found` for anyone else). A pending relay's " +
  "receipt is looked up and charged by this read too, so it settles without waiting for the relayer's loop.";

export const getVenueGasless = createRoute({
  method: "get",
  path: "/api/v3/crypto/evm/venue-gasless/{relayId}",
  tags: [TAG],
  summary: "A venue relay's status",
  description: statusDescription,
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: z.object({ relayId: ObjectId }) },
  responses: { 200: { description: "The relay", ...jsonContent(RelaySchema) }, ...errorResponses(400, 401, 404) },
});

export const getCollectionGasless = createRoute({
  method: "get",
  path: "/api/v3/nft-collection/{collectionId}/gasless/{relayId}",
  tags: [TAG],
  summary: "A gasless mint's status",
  description: statusDescription,
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: z.object({ collectionId: ObjectId, relayId: ObjectId }) },
  responses: { 200: { description: "The relay", ...jsonContent(RelaySchema) }, ...errorResponses(400, 401, 404) },
});
