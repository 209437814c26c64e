// The sponsored-gas ledger's shapes (SPEC 4.5): what a caller sends and what every surface answers.
// The spec shows no bodies nor records: these are our choice, documented in the OpenAPI description.
// Amounts are wei as decimal strings (they exceed JSON's safe integers).
import { z } from "@hono/zod-openapi";
import { ChainId, EvmAddress, TokenAmount } from "../chain/schemas.ts";
import { listQuerySchema } from "../http/listing.ts";
import { Instant, ObjectId } from "../http/openapi.ts";

export const OPERATION_TYPES = ["check_in", "nft_mint", "venue_gasless", "promoter_reward_withdrawal", "promoter_payments_distribution"] as const;
const OperationType = z.enum(OPERATION_TYPES)
  .openapi({ description: "What the sponsored transaction does; a sponsor enables each type in its settings" });

const Wei = TokenAmount.openapi({ description: "wei, as a decimal string", example: "21000000000000" });
const TxHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits").openapi({ example: `0x${"ab".repeat(32)}` });
const CallData = z.string().max(131_074).regex(/^0x([0-9a-fA-F]{2})*$/, "0x and an even number of hex digits").openapi({ example: "0x3ccfd60b" });
const Selector = z.string().regex(/^0x[0-9a-fA-F]{8}$/, "a 4-byte function selector: 0x and 8 hex digits");
const ClientId = z.string().min(1).max(200).openapi({ description: "The sponsored-transaction provider's client id the transaction goes through" });

export const SponsorQuery = z.object({
  walletAddress: EvmAddress.openapi({ description: "The sponsor wallet: one of your linked addresses on `chainId`" }),
  chainId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ example: 8453 }),
});
const SponsorFields = { walletAddress: SponsorQuery.shape.walletAddress, chainId: ChainId };

export const BalanceSchema = z.object({
  walletAddress: z.string(),
  chainId: ChainId,
  depositedWei: Wei.openapi({ description: "Verified deposits" }),
  spentWei: Wei.openapi({ description: "Recorded usage" }),
  heldWei: Wei.openapi({ description: "Live reservations (expired ones are never counted)" }),
  availableWei: Wei.openapi({ description: "depositedWei - spentWei - heldWei: what a check can still hold" }),
  activeReservations: z.number().int(),
}).openapi("SponsorshipBalance");

export const DepositSchema = z.object({
  id: z.string(),
  chainId: ChainId,
  txHash: z.string(),
  amountWei: Wei,
  fromAddress: z.string(),
  toAddress: z.string().openapi({ description: "The chain's sponsorship vault" }),
  blockNumber: z.string(),
  createdAt: z.string().openapi({ format: "date-time" }),
}).openapi("SponsorshipDeposit");

export const UsageSchema = z.object({
  id: z.string(),
  chainId: ChainId,
  operationType: OperationType,
  actorAddress: z.string().openapi({ description: "The EOA the usage is recorded against" }),
  mode: z.enum(["eoa", "eip7702", "erc4337", "recorded", "relayed"]).openapi({ description: "How it was verified; `recorded` came through usage/record, `relayed` is a gasless relay the service sent" }),
  txHash: z.string(),
  userOpHash: z.string().nullable(),
  amountWei: Wei,
  reservationId: ObjectId.nullable(),
  createdAt: z.string().openapi({ format: "date-time" }),
}).openapi("SponsorshipUsage");

const settingsFields = {
  enabledOperations: z.array(OperationType).max(OPERATION_TYPES.length)
    .openapi({ description: "Operation types this sponsor pays for; empty: none (the default)" }),
  maxCostPerTxWei: Wei.nullable().openapi({ description: "Per-transaction maximum cost; null: no limit" }),
  actorDailyAmountWei: Wei.nullable().openapi({ description: "Per actor and UTC day: usage plus live holds; null: no limit" }),
  actorDailyCount: z.number().int().min(0).max(1_000_000).nullable().openapi({ description: "Per actor and UTC day: transactions plus live holds; null: no limit" }),
  sponsorDailyAmountWei: Wei.nullable().openapi({ description: "Whole sponsor per UTC day: usage plus live holds; null: no limit" }),
  allowedTargets: z.array(EvmAddress).max(100).openapi({ description: "Contracts that may be called; empty: any" }),
  allowedSelectors: z.array(Selector).max(100).openapi({ description: "Function selectors that may be called; empty: any" }),
  activeFrom: Instant.nullable().openapi({ description: "Sponsoring starts at; null: already" }),
  activeUntil: Instant.nullable().openapi({ description: "Sponsoring ends at; null: never" }),
};

export const SettingsSchema = z.object({ walletAddress: z.string(), chainId: ChainId, ...settingsFields, updatedAt: z.string().nullable() })
  .openapi("SponsorshipSettings");

export const SaveSettingsSchema = z.object({
  ...SponsorFields,
  enabledOperations: settingsFields.enabledOperations.default([]),
  maxCostPerTxWei: settingsFields.maxCostPerTxWei.default(null),
  actorDailyAmountWei: settingsFields.actorDailyAmountWei.default(null),
  actorDailyCount: settingsFields.actorDailyCount.default(null),
  sponsorDailyAmountWei: settingsFields.sponsorDailyAmountWei.default(null),
  allowedTargets: settingsFields.allowedTargets.default([]),
  allowedSelectors: settingsFields.allowedSelectors.default([]),
  activeFrom: settingsFields.activeFrom.default(null),
  activeUntil: settingsFields.activeUntil.default(null),
}).strict().superRefine((body, ctx) => {
  if (body.activeFrom && body.activeUntil && Date.parse(body.activeFrom) >= Date.parse(body.activeUntil)) {
    ctx.addIssue({ code: "custom", path: ["activeUntil"], message: "activeUntil must be after activeFrom" });
  }
}).openapi("SaveSponsorshipSettings");

/** What a reservation is about: complete and cancel must name the same. */
const reservedCall = {
  clientId: ClientId,
  targetAddress: EvmAddress.openapi({ description: "The contract the sponsored call goes to" }),
  callData: CallData,
  nativeValueWei: Wei.default("0").openapi({ description: "Value sent with the call (not sponsored; part of what must match)" }),
};

export const CheckSchema = z.object({
  ...SponsorFields,
  operationType: OperationType,
  ...reservedCall,
  actorAddress: EvmAddress.openapi({ description: "The EOA acting (your own linked address, unless you own the sponsor wallet)" }),
  smartAccountAddress: EvmAddress.optional().openapi({ description: "ERC-4337: the smart account that will send the user operation" }),
  maxCostWei: Wei.refine((v) => v !== "0", "must be more than 0").openapi({ description: "The most the transaction may cost; held until completed, cancelled or expired" }),
}).strict().openapi("SponsorshipCheck");

export const CheckResultSchema = z.object({
  eligible: z.boolean(),
  reason: z.string().openapi({
    description: "`eligible`, or why not: operation_not_enabled, outside_active_window, target_not_allowed, selector_not_allowed, " +
      "max_cost_exceeds_limit, actor_daily_count_exceeded, actor_daily_amount_exceeded, sponsor_daily_amount_exceeded, " +
      "insufficient_balance, sponsor_not_found",
  }),
  reservationId: ObjectId.nullable(),
  expiresAt: z.string().nullable().openapi({ description: "The hold lasts 120 s, extended to 15 min once the provider verified it" }),
  availableWei: Wei.openapi({ description: "What the sponsor can still hold after this check" }),
}).openapi("SponsorshipCheckResult");

// thirdweb's server verifier request, as thirdweb sends it (portal.thirdweb.com/transactions/policies).
const NumericString = z.union([z.string().regex(/^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/), z.number().int().nonnegative()])
  .openapi({ description: "A decimal or 0x-hex integer" });
export const ProviderVerifySchema = z.object({
  clientId: ClientId,
  chainId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  userOp: z.object({
    sender: EvmAddress,
    targets: z.array(EvmAddress).max(32),
    gasLimit: NumericString,
    gasPrice: NumericString,
    data: z.object({
      targets: z.array(EvmAddress).max(32),
      callDatas: z.array(CallData).max(32),
      values: z.array(NumericString).max(32),
    }).passthrough().optional(),
  }).passthrough(),
}).passthrough().openapi("ProviderVerifyRequest");

export const ProviderVerifyResultSchema = z.object({
  isAllowed: z.boolean(),
  reason: z.string().openapi({ description: "approved, no_matching_reservation, gas_cost_exceeds_hold, call_data_missing or batch_not_supported" }),
}).openapi("ProviderVerifyResult");

export const CompleteSchema = z.object({
  reservationId: ObjectId,
  ...reservedCall,
  txHash: TxHash.openapi({ description: "The broadcast transaction (for ERC-4337, the bundle transaction)" }),
  mode: z.enum(["eoa", "eip7702", "erc4337"]).openapi({ description: "eoa: the actor sent it; eip7702: a relayer called the delegated actor EOA; erc4337: a bundler sent the user operation" }),
  actorAddress: EvmAddress.optional().openapi({ description: "The EOA usage is recorded against (eoa, eip7702); `ownerAddress` is accepted as its alias" }),
  ownerAddress: EvmAddress.optional().openapi({ description: "ERC-4337: the EOA that owns the smart account (usage is recorded against it)" }),
  smartAccountAddress: EvmAddress.optional().openapi({ description: "Required for erc4337" }),
  entryPointAddress: EvmAddress.optional().openapi({ description: "Required for erc4337: a known EntryPoint (v0.6, v0.7, v0.8)" }),
  userOpHash: TxHash.optional().openapi({ description: "erc4337: the user operation's hash, when known" }),
}).strict().superRefine((body, ctx) => {
  if (body.mode === "erc4337") {
    if (!body.smartAccountAddress) ctx.addIssue({ code: "custom", path: ["smartAccountAddress"], message: "required for erc4337" });
    if (!body.entryPointAddress) ctx.addIssue({ code: "custom", path: ["entryPointAddress"], message: "required for erc4337" });
  }
  if (!body.actorAddress && !body.ownerAddress) {
    ctx.addIssue({ code: "custom", path: ["actorAddress"], message: "send actorAddress (or ownerAddress): the EOA usage is recorded against" });
  }
}).openapi("SponsorshipComplete");

export const CompleteResultSchema = z.object({
  reservationId: ObjectId,
  usageId: z.string(),
  chargedWei: Wei,
  releasedWei: Wei.openapi({ description: "The part of the hold returned to the balance" }),
  replayed: z.boolean().openapi({ description: "true when this completion had been recorded already (same reservation and transaction)" }),
}).openapi("SponsorshipCompleteResult");

export const PendingSchema = z.object({
  status: z.literal("pending"),
  reason: z.enum(["receipt_not_found", "not_enough_confirmations"]),
  message: z.string(),
}).openapi("SponsorshipPending");

/** Fields cancel refuses by name (SPEC 4.5 rule 2): the sponsor is resolved server-side, and no transaction exists. */
export const CANCEL_REFUSED_FIELDS = ["sponsorAddress", "txHash", "transactionHash", "receipt", "userOpHash", "blockNumber", "gasUsed"] as const;

const cancelShape = { reservationId: ObjectId, ...reservedCall };
export const CancelSchema = z.object(cancelShape).catchall(z.unknown()).superRefine((body, ctx) => {
  for (const key of Object.keys(body)) {
    if (key in cancelShape) continue;
    const refused = (CANCEL_REFUSED_FIELDS as readonly string[]).includes(key);
    ctx.addIssue({
      code: "custom",
      path: [key],
      message: refused ? "cancel takes no sponsor, transaction or receipt: the sponsor is resolved server-side" : "unknown field",
      params: refused ? { code: "cancel_field_not_allowed" } : undefined,
    });
  }
}).openapi("SponsorshipCancel");

export const CancelResultSchema = z.object({ reservationId: ObjectId, releasedWei: Wei }).openapi("SponsorshipCancelResult");

export const RecordDepositSchema = z.object({ ...SponsorFields, txHash: TxHash }).strict().openapi("SponsorshipRecordDeposit");

export const RecordUsageSchema = z.object({
  ...SponsorFields,
  operationType: OperationType,
  actorAddress: EvmAddress,
  txHash: TxHash,
  amountWei: Wei.refine((v) => v !== "0", "must be more than 0"),
}).strict().openapi("SponsorshipRecordUsage");

export const SponsorListQuery = listQuerySchema(SponsorQuery.shape);
