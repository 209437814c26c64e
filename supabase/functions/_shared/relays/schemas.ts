// Gasless relays' shapes (SPEC 4.5): the service's relayer wallet sends an allowed call for the
// caller (a venue call, a free mint, a check-in's attendance mint), paid from a sponsor's balance.
// The spec shows no bodies: these are our choice, documented in the OpenAPI description.
import { z } from "@hono/zod-openapi";
import { ChainId, EvmAddress, TokenAmount } from "../chain/schemas.ts";
import { CreatedAt, ObjectId, UpdatedAt } from "../http/openapi.ts";

const Wei = TokenAmount.openapi({ example: "300000000000000" }).describe("wei, as a decimal string");
const CallData = z.string().min(10).max(131_074).regex(/^0x([0-9a-fA-F]{2})*$/, "0x and an even number of hex digits")
  .openapi({ example: "0x40c10f19" })
  .describe("The ABI-encoded call: a 4-byte selector and its arguments");
const MaxCost = Wei.refine((v) => v !== "0", "must be more than 0").optional().describe("The most the relay may cost the sponsor (held until mined). Default: twice gas limit × max fee per gas of the " +
    "first attempt, room for replacements; less than that first worst case is 409 `max_cost_too_low`.");

export const VenueGaslessSchema = z.object({
  walletAddress: EvmAddress.describe("The sponsor wallet that pays the gas"),
  chainId: ChainId.describe("The EVM chain the venue contract is on (the sponsor wallet's chain)"),
  targetAddress: EvmAddress.describe("The venue contract; it must be in the sponsor's allowedTargets (an empty allowlist allows no relay)"),
  callData: CallData.describe("The check-in call. The relayer is msg.sender: the contract must take the actor from the call (or ERC-2771)."),
  actorAddress: EvmAddress.describe("Who checks in: your own linked address on `chainId` (unless you own the sponsor wallet); usage is recorded against it"),
  maxCostWei: MaxCost,
}).strict().openapi("VenueGaslessRelay").describe("A venue contract call for the service's relayer to send, paid by a sponsor");

export const CollectionGaslessSchema = z.object({
  sponsorWalletAddress: EvmAddress.describe("The sponsor wallet that pays the gas, on the collection's chain"),
  to: EvmAddress.describe("The recipient: your own linked address on the collection's chain (unless you own the sponsor wallet); usage is recorded against it"),
  maxCostWei: MaxCost,
}).strict().openapi("CollectionGaslessMint").describe("A free mint for the relayer to send, paid by a sponsor");

export const AttendanceMintSchema = z.object({
  collectionId: ObjectId.describe("A collection the event's owner registered, priced static, native, at 0"),
  sponsorWalletAddress: EvmAddress.describe("The sponsor wallet that pays the gas, on the collection's chain: yours or the event owner's"),
  maxCostWei: MaxCost,
}).strict().openapi("AttendanceMint").describe("An attendance NFT mint for a checked-in person, paid by a sponsor");

export const RelayKind = z.enum(["venue_gasless", "nft_mint", "check_in"]).describe("What the relay is: a venue call, a gasless mint, or a check-in's attendance mint (paid as operation `check_in`)");
export type RelayKind = z.infer<typeof RelayKind>;

export const RelayStatus = z.enum(["signed", "submitted", "mined", "failed"]).describe("signed: recorded, the broadcast is retried by the relayer; submitted: a node accepted it; mined: the receipt " +
    "is charged (see `reverted`); failed: its nonce went to another transaction, the hold is released and nothing charged");

const RelayId = ObjectId.describe("The relay's id: read its status with it");
const HoldId = ObjectId.describe("The sponsorship hold covering the relay's cost");
const Nonce = z.number().int().describe("The relayer's transaction nonce on the chain");
const RelayerAddress = z.string().describe("The service's relayer wallet that sends the transaction (msg.sender)");

export const RelayAcceptedSchema = z.object({
  relayId: RelayId,
  status: RelayStatus,
  txHash: z.string().describe("The first attempt's hash; a replacement (higher fee) gets another, see the status read"),
  nonce: Nonce,
  reservationId: HoldId,
  chainId: ChainId.describe("The chain the relay is sent on"),
  relayerAddress: RelayerAddress,
}).openapi("GaslessRelayAccepted").describe("The relay, signed and recorded: it is sent in the background");

export const RelaySchema = z.object({
  relayId: RelayId,
  kind: RelayKind,
  collectionId: ObjectId.nullable().describe("The collection minted from (`nft_mint`, `check_in`); null for a venue relay"),
  reservationId: HoldId,
  chainId: ChainId.describe("The chain the relay is sent on"),
  relayerAddress: RelayerAddress,
  nonce: Nonce,
  status: RelayStatus,
  txHash: z.string().describe("The mined transaction once mined, else the latest attempt"),
  attempts: z.number().int().describe("1, plus one per replacement"),
  reverted: z.boolean().nullable().describe("Once mined: whether the call reverted (its gas is charged all the same)"),
  chargedWei: Wei.nullable().describe("What the mined transaction cost the sponsor (wei, decimal string); null until mined"),
  usageId: z.string().nullable().describe("The sponsorship usage record of the charge; null until mined"),
  failureReason: z.string().nullable().describe("Why the relay failed (status failed); null otherwise"),
  createdAt: CreatedAt,
  updatedAt: UpdatedAt,
}).openapi("GaslessRelay").describe("A gasless relay and where it stands");
