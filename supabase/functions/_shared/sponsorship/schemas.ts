// The sponsored-gas ledger's shapes (SPEC 4.5): what a caller sends and what every surface answers.
// The spec shows no bodies nor records: these are our choice, documented in the OpenAPI description.
// Amounts are wei as decimal strings (they exceed JSON's safe integers).
import { z } from "@hono/zod-openapi";
import { ChainId, EvmAddress, TokenAmount } from "../chain/schemas.ts";
import { listQuerySchema } from "../http/listing.ts";
import { CreatedAt, Instant, INSTANT_FORMAT, ObjectId, Timestamp, UpdatedAt } from "../http/openapi.ts";

export const OPERATION_TYPES = ["check_in", "nft_mint", "venue_gasless", "promoter_reward_withdrawal", "promoter_payments_distribution"] as const;
const OperationType = z.enum(OPERATION_TYPES)
  .describe("What the sponsored transaction does; a sponsor enables each type in its settings");

const WEI = "wei, as a decimal string";
const Wei = TokenAmount.openapi({ example: "21000000000000" }).describe(WEI);
/** An amount of wei that means `meaning`: the unit is said once, here. */
const wei = (meaning: string) => Wei.describe(`${meaning} (${WEI})`);
const TxHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits").openapi({ example: `0x${"ab".repeat(32)}` })
  .describe("A transaction hash: 0x and 64 hex digits");
const CallData = z.string().max(131_074).regex(/^0x([0-9a-fA-F]{2})*$/, "0x and an even number of hex digits").openapi({ example: "0x3ccfd60b" })
  .describe("The call's ABI-encoded data, 0x-hex (encode_contract_call builds it)");
const Selector = z.string().regex(/^0x[0-9a-fA-F]{8}$/, "a 4-byte function selector: 0x and 8 hex digits")
  .describe("A 4-byte function selector: 0x and 8 hex digits");
const SponsorWallet = z.string().describe("The sponsor wallet");
const UsageId = z.string().describe("The usage record's id (decimal)");
const ClientId = z.string().min(1).max(200).describe("The sponsored-transaction provider's client id the transaction goes through");

export const SponsorQuery = z.object({
  walletAddress: EvmAddress.describe("The sponsor wallet: one of your linked addresses on `chainId`"),
  chainId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ example: 8453 })
    .describe("The sponsor wallet's EVM chain id, e.g. 8453 for Base"),
});
const SponsorFields = { walletAddress: SponsorQuery.shape.walletAddress, chainId: ChainId.describe("The sponsor wallet's EVM chain id") };

export const BalanceSchema = z.object({
  walletAddress: SponsorWallet,
  chainId: SponsorFields.chainId,
  depositedWei: wei("Verified deposits"),
  spentWei: wei("Recorded usage"),
  heldWei: wei("Live reservations (expired ones are never counted)"),
  availableWei: wei("depositedWei - spentWei - heldWei: what a check can still hold"),
  activeReservations: z.number().int().describe("Holds not yet completed, cancelled or expired"),
}).openapi("SponsorshipBalance").describe("A sponsor wallet's balance on one chain");

export const DepositSchema = z.object({
  id: z.string().describe("The deposit record's id (decimal)"),
  chainId: SponsorFields.chainId,
  txHash: z.string().describe("The deposit transaction's hash"),
  amountWei: wei("The amount deposited"),
  fromAddress: z.string().describe("The sponsor wallet that sent it"),
  toAddress: z.string().describe("The chain's sponsorship vault"),
  blockNumber: z.string().describe("The block that holds the transaction (decimal string)"),
  createdAt: Timestamp.describe("When the deposit was recorded (UTC)"),
}).openapi("SponsorshipDeposit").describe("A deposit into a sponsor's balance, verified on-chain");

export const UsageSchema = z.object({
  id: UsageId,
  chainId: SponsorFields.chainId,
  operationType: OperationType,
  actorAddress: z.string().describe("The EOA the usage is recorded against"),
  mode: z.enum(["eoa", "eip7702", "erc4337", "recorded", "relayed"]).describe("How it was verified; `recorded` came through usage/record, `relayed` is a gasless relay the service sent"),
  txHash: z.string().describe("The sponsored transaction's hash (for ERC-4337, the bundle transaction)"),
  userOpHash: z.string().nullable().describe("erc4337: the user operation's hash when known; null otherwise"),
  amountWei: wei("What was charged"),
  reservationId: ObjectId.nullable().describe("The hold it completed; null for usage recorded without one (usage/record, relays)"),
  createdAt: Timestamp.describe("When the usage was recorded (UTC)"),
}).openapi("SponsorshipUsage").describe("A sponsored transaction charged to a sponsor");

const settingsFields = {
  enabledOperations: z.array(OperationType).max(OPERATION_TYPES.length)
    .describe("Operation types this sponsor pays for; empty: none"),
  maxCostPerTxWei: Wei.nullable().describe(`Per-transaction maximum cost (${WEI}); null: no limit`),
  actorDailyAmountWei: Wei.nullable().describe(`Per actor and UTC day: usage plus live holds (${WEI}); null: no limit`),
  actorDailyCount: z.number().int().min(0).max(1_000_000).nullable().describe("Per actor and UTC day: transactions plus live holds; null: no limit"),
  sponsorDailyAmountWei: Wei.nullable().describe(`Whole sponsor per UTC day: usage plus live holds (${WEI}); null: no limit`),
  allowedTargets: z.array(EvmAddress).max(100).describe("Contracts that may be called; empty: any"),
  allowedSelectors: z.array(Selector).max(100).describe("Function selectors that may be called; empty: any"),
  activeFrom: Instant.nullable().describe(`Sponsoring starts at; null: already. ${INSTANT_FORMAT}`),
  activeUntil: Instant.nullable().describe(`Sponsoring ends at, after activeFrom; null: never. ${INSTANT_FORMAT}`),
};

export const SettingsSchema = z.object({
  walletAddress: SponsorWallet,
  chainId: SponsorFields.chainId,
  ...settingsFields,
  updatedAt: UpdatedAt.nullable().describe("When the settings last changed (UTC); null: never saved (the defaults apply)"),
})
  .openapi("SponsorshipSettings")
  .describe("What a sponsor wallet pays for, and its limits");

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
}).openapi("SaveSponsorshipSettings").describe("The sponsor's whole settings: they replace the saved ones (fields left out return to their defaults)");

/** What a reservation is about: complete and cancel must name the same. */
const reservedCall = {
  clientId: ClientId,
  targetAddress: EvmAddress.describe("The contract the sponsored call goes to"),
  callData: CallData,
  nativeValueWei: Wei.default("0").describe(`Value sent with the call (${WEI}): not sponsored, part of what must match`),
};

export const CheckSchema = z.object({
  ...SponsorFields,
  operationType: OperationType,
  ...reservedCall,
  actorAddress: EvmAddress.describe("The EOA acting (your own linked address, unless you own the sponsor wallet)"),
  smartAccountAddress: EvmAddress.optional().describe("ERC-4337: the smart account that will send the user operation"),
  maxCostWei: Wei.refine((v) => v !== "0", "must be more than 0")
    .describe(`The most the transaction may cost (${WEI}, more than 0); held until completed, cancelled or expired`),
}).strict().openapi("SponsorshipCheck").describe("A call to be sponsored, to check and hold for");

export const CheckResultSchema = z.object({
  eligible: z.boolean().describe("Whether the sponsor pays; when true, maxCostWei is held under reservationId"),
  reason: z.string().describe("`eligible`, or why not: operation_not_enabled, outside_active_window, target_not_allowed, selector_not_allowed, " +
      "max_cost_exceeds_limit, actor_daily_count_exceeded, actor_daily_amount_exceeded, sponsor_daily_amount_exceeded, " +
      "insufficient_balance, sponsor_not_found"),
  reservationId: ObjectId.nullable().describe("The hold to complete or cancel; null when not eligible"),
  expiresAt: Timestamp.nullable().describe("When the hold expires (UTC): 120 s, extended to 15 min once the provider verified it; null when not eligible"),
  availableWei: wei("What the sponsor can still hold after this check"),
}).openapi("SponsorshipCheckResult").describe("Whether a sponsor pays for the call");

// thirdweb's server verifier request, as thirdweb sends it (portal.thirdweb.com/transactions/policies).
const NumericString = z.union([z.string().regex(/^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/), z.number().int().nonnegative()])
  .describe("A decimal or 0x-hex integer");
export const ProviderVerifySchema = z.object({
  clientId: ClientId,
  chainId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe("The EVM chain id the transaction is for"),
  userOp: z.object({
    sender: EvmAddress.describe("The account sending the transaction (the smart account, for a user operation)"),
    targets: z.array(EvmAddress).max(32).describe("The contracts called"),
    gasLimit: NumericString.describe("The gas limit (a decimal or 0x-hex integer)"),
    gasPrice: NumericString.describe("The gas price in wei (a decimal or 0x-hex integer)"),
    data: z.object({
      targets: z.array(EvmAddress).max(32).describe("The contract of each call"),
      callDatas: z.array(CallData).max(32).describe("The call data of each call, in the order of `targets`"),
      values: z.array(NumericString).max(32).describe("The native value in wei of each call (decimal or 0x-hex)"),
    }).passthrough().optional().describe("The calls in detail, when the provider sends them (needed to match a reservation)"),
  }).passthrough().describe("The transaction the provider is about to sponsor"),
}).passthrough().openapi("ProviderVerifyRequest").describe("The provider's question: may this transaction be sponsored?");

export const ProviderVerifyResultSchema = z.object({
  isAllowed: z.boolean().describe("Whether the provider may sponsor the transaction"),
  reason: z.string().describe("approved, no_matching_reservation, gas_cost_exceeds_hold, call_data_missing or batch_not_supported"),
}).openapi("ProviderVerifyResult").describe("The answer to the provider");

const ReservationId = ObjectId.describe("The hold's id (reservationId of sponsorship_check)");

export const CompleteSchema = z.object({
  reservationId: ReservationId,
  ...reservedCall,
  txHash: TxHash.describe("The broadcast transaction (for ERC-4337, the bundle transaction)"),
  mode: z.enum(["eoa", "eip7702", "erc4337"]).describe("eoa: the actor sent it; eip7702: a relayer called the delegated actor EOA; erc4337: a bundler sent the user operation"),
  actorAddress: EvmAddress.optional().describe("The EOA usage is recorded against (eoa, eip7702); `ownerAddress` is accepted as its alias"),
  ownerAddress: EvmAddress.optional().describe("ERC-4337: the EOA that owns the smart account (usage is recorded against it)"),
  smartAccountAddress: EvmAddress.optional().describe("erc4337: the smart account that sent the user operation (required then)"),
  entryPointAddress: EvmAddress.optional().describe("Required for erc4337: a known EntryPoint (v0.6, v0.7, v0.8)"),
  userOpHash: TxHash.optional().describe("erc4337: the user operation's hash, when known"),
}).strict().superRefine((body, ctx) => {
  if (body.mode === "erc4337") {
    if (!body.smartAccountAddress) ctx.addIssue({ code: "custom", path: ["smartAccountAddress"], message: "required for erc4337" });
    if (!body.entryPointAddress) ctx.addIssue({ code: "custom", path: ["entryPointAddress"], message: "required for erc4337" });
  }
  if (!body.actorAddress && !body.ownerAddress) {
    ctx.addIssue({ code: "custom", path: ["actorAddress"], message: "send actorAddress (or ownerAddress): the EOA usage is recorded against" });
  }
}).openapi("SponsorshipComplete").describe("The sent transaction that used a hold, to verify on-chain and charge");

export const CompleteResultSchema = z.object({
  reservationId: ReservationId,
  usageId: UsageId,
  chargedWei: wei("What the transaction cost and the sponsor was charged"),
  releasedWei: wei("The part of the hold returned to the balance"),
  replayed: z.boolean().describe("true when this completion had been recorded already (same reservation and transaction)"),
}).openapi("SponsorshipCompleteResult").describe("The sponsored transaction, charged");

export const PendingSchema = z.object({
  status: z.literal("pending").describe("Not decided yet: call again later"),
  reason: z.enum(["receipt_not_found", "not_enough_confirmations"])
    .describe("receipt_not_found: not mined yet (or not on this chain); not_enough_confirmations: mined, waiting for the chain's confirmations"),
  message: z.string().describe("The same, for a person"),
}).openapi("SponsorshipPending").describe("The transaction is not confirmed on-chain yet");

/** Fields cancel refuses by name (SPEC 4.5 rule 2): the sponsor is resolved server-side, and no transaction exists. */
export const CANCEL_REFUSED_FIELDS = ["sponsorAddress", "txHash", "transactionHash", "receipt", "userOpHash", "blockNumber", "gasUsed"] as const;

const cancelShape = { reservationId: ReservationId, ...reservedCall };
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
}).openapi("SponsorshipCancel").describe("The hold to release, with the call it was made for (they must match)");

export const CancelResultSchema = z.object({ reservationId: ReservationId, releasedWei: wei("The hold returned to the balance") })
  .openapi("SponsorshipCancelResult")
  .describe("The hold, released");

export const RecordDepositSchema = z.object({ ...SponsorFields, txHash: TxHash.describe("The deposit transaction: the sponsor wallet paying the chain's sponsorship vault") })
  .strict()
  .openapi("SponsorshipRecordDeposit")
  .describe("A deposit transaction to verify on-chain and record");

export const RecordUsageSchema = z.object({
  ...SponsorFields,
  operationType: OperationType,
  actorAddress: EvmAddress.describe("The EOA the usage is recorded against"),
  txHash: TxHash.describe("The sponsored transaction's hash"),
  amountWei: Wei.refine((v) => v !== "0", "must be more than 0").describe(`What to charge (${WEI}, more than 0)`),
}).strict().openapi("SponsorshipRecordUsage").describe("Usage to charge to a sponsor, as a trusted server saw it");

export const SponsorListQuery = listQuerySchema(SponsorQuery.shape);
