// What can be done with gasless relays, for every surface. The caller's part runs as the caller
// (the hold: relays.reserve, or the door's checkin.hold_attendance_mint: the sponsorship rules and
// hold, under the sponsor's row lock); the relayer's part as service_jobs (relayer.ts: nonce,
// signature and record committed in one transaction, then broadcast). Nothing is signed before the
// call was simulated and the hold taken. Every operation commits on its own: a signed transaction is
// never left inside a caller's transaction.
import type { z } from "@hono/zod-openapi";
import { type Address, encodeFunctionData, getAddress, type Hex, keccak256, toHex } from "viem";
import { checkoutCollectionAbi } from "../collections/contract.ts";
import { publicClientFor } from "../chain/clients.ts";
import type { Config } from "../config.ts";
import type { Tx } from "../db/database.ts";
import type { Scoped } from "../db/scopes.ts";
import { ApiError } from "../http/errors.ts";
import { ok, type OperationContext, operation } from "../operations/operation.ts";
import { HOLD_FACTOR, planRelay, relayerSignerFor, relayOnce, type RelaySubmission, submitRelay } from "./relayer.ts";
import type { CollectionGaslessSchema, RelayAcceptedSchema, RelayKind, RelaySchema, VenueGaslessSchema } from "./schemas.ts";

const lower = (value: string) => value.toLowerCase();

export function signerOrRefuse(config: Config) {
  const signer = relayerSignerFor(config);
  if (!signer) throw new ApiError(503, "relayer_not_configured", "Gasless relays are not configured on this service.");
  return signer;
}

const toAccepted = (submission: RelaySubmission, reservationId: string, chainId: number, relayer: Address): z.infer<typeof RelayAcceptedSchema> => ({
  relayId: submission.relayId,
  status: submission.status === "sent" ? "submitted" : "signed",
  txHash: submission.txHash,
  nonce: Number(submission.nonce),
  reservationId,
  chainId,
  relayerAddress: relayer,
});

/** A relay's call, and what it is for. */
export interface RelayCall {
  chainId: number;
  to: Address;
  data: Hex;
  kind: RelayKind;
  collectionId: string | null;
  maxCostWei?: string;
}

/**
 * Takes the sponsor's hold of `maxCost` wei for `call` as the caller, or refuses (nothing held):
 * the reservation's id. Who may spend the sponsor's money is the hold's rule.
 */
export type RelayHold = (call: RelayCall, maxCost: bigint) => Promise<string>;

/** The hold of a relay the caller vouches for: the sponsor's owner, or the actor's own linked address (relays.reserve). */
const holdForActor = ({ db, config }: OperationContext, sponsor: string, actor: string): RelayHold => async (call, maxCost) => {
  const [reserved] = await db.statement((tx) => tx<{ reservation_id: string }[]>`
    select reservation_id from relays.reserve(${call.chainId}, ${lower(sponsor)}, ${call.kind}::sponsorship.operation_type,
      ${lower(call.to)}, ${lower(call.data)}, ${lower(actor)}, ${maxCost.toString()}::numeric,
      ${config.SPONSORSHIP_RATE_LIMITS.check}::integer)`);
  return reserved!.reservation_id;
};

/**
 * Simulate, hold, sign, record, broadcast: the path every relay shares. `recordAlso` runs in the
 * transaction that records the signed relay (its id given): if it throws, nothing is recorded nor
 * broadcast.
 */
export async function relay(
  { db, database, config }: OperationContext,
  call: RelayCall,
  hold: RelayHold,
  recordAlso?: (tx: Tx, relayId: string) => Promise<unknown>,
) {
  const signer = signerOrRefuse(config);
  const client = publicClientFor(config, call.chainId); // 400 chain_not_supported
  if (lower(call.to) === lower(signer.address)) throw new ApiError(400, "target_not_allowed", "The relayer does not call itself.");
  const plan = await planRelay(client, signer.address, call.to, call.data);
  const maxCost = call.maxCostWei !== undefined ? BigInt(call.maxCostWei) : plan.worstCase * HOLD_FACTOR;
  if (maxCost < plan.worstCase) {
    throw new ApiError(409, "max_cost_too_low", `The relay may cost up to ${plan.worstCase} wei (gas limit × max fee per gas); maxCostWei is lower.`,
      { requiredWei: plan.worstCase.toString() });
  }
  const reservationId = await hold(call, maxCost);
  let submission: RelaySubmission;
  try {
    submission = await submitRelay({ config, db: database }, signer, {
      chainId: call.chainId, kind: call.kind, collectionId: call.collectionId, reservationId, to: call.to, data: call.data, plan, recordAlso,
    });
  } catch (error) {
    await releaseUnrecorded(db, reservationId, call);
    throw error;
  }
  return ok(toAccepted(submission, reservationId, call.chainId, signer.address), 202);
}

/**
 * Releases the hold of a relay that was not recorded (refused, or failed before its record
 * committed): nothing will ever be charged to it. sponsorship.cancel refuses a recorded one (the
 * relayer approved it), which is kept; should the release fail, the hold expires on its own.
 */
async function releaseUnrecorded(db: Scoped, reservationId: string, call: RelayCall): Promise<void> {
  await db.statement((tx) => tx`select released from sponsorship.cancel(${reservationId}, 'relayer', ${lower(call.to)}, ${lower(call.data)}, 0)`)
    .catch(() => {});
}

/** A registered collection's pricing, refused unless a relay can mint it: static, native, at 0. */
export function refuseUnlessFreeMint(collection: { pricing: string; mint_price: string | null; payment_token: string | null }): void {
  if (collection.pricing !== "static" || collection.payment_token !== null || collection.mint_price !== "0") {
    throw new ApiError(409, "mint_not_free", "Only collections with a static native price of 0 can be minted gasless: the sponsor pays gas, never a price.");
  }
}

export const relayVenueCall = operation({
  name: "relays.venue.relay",
  ownTransactions: true,
  run(context, body: z.output<typeof VenueGaslessSchema>) {
    return relay(context, {
      chainId: body.chainId, to: getAddress(body.targetAddress), data: lower(body.callData) as Hex, maxCostWei: body.maxCostWei,
      kind: "venue_gasless", collectionId: null,
    }, holdForActor(context, body.walletAddress, body.actorAddress));
  },
});

export const relayCollectionMint = operation({
  name: "relays.collection.mint",
  ownTransactions: true,
  async run(context, { collectionId, mint }: { collectionId: string; mint: z.output<typeof CollectionGaslessSchema> }) {
    signerOrRefuse(context.config);
    const [collection] = await context.db.statement((tx) => tx<{
      chain_id: bigint; address: string; pricing: string; mint_price: string | null; payment_token: string | null;
    }[]>`select chain_id, address, pricing, mint_price::text, payment_token from relays.collection_for_mint(${collectionId})`);
    if (!collection) throw new ApiError(404, "collection_not_found", `Collection ${collectionId} not found.`);
    refuseUnlessFreeMint(collection);
    // A fresh reference per mint (the contract accepts each once). Its high bytes are never zero in
    // practice, so it never names a checkout (whose reference is a 12-byte id, right-aligned).
    const checkoutRef = keccak256(toHex(`gasless-mint:${collectionId}:${crypto.randomUUID()}`));
    const data = encodeFunctionData({ abi: checkoutCollectionAbi, functionName: "mint", args: [getAddress(mint.to), checkoutRef] });
    return relay(context, {
      chainId: Number(collection.chain_id), to: getAddress(collection.address), data, maxCostWei: mint.maxCostWei, kind: "nft_mint", collectionId,
    }, holdForActor(context, mint.sponsorWalletAddress, mint.to));
  },
});

interface RelayRow {
  id: string; kind: RelayKind; collection_id: string | null; reservation_id: string; chain_id: bigint;
  relayer: string; nonce: bigint; status: "signed" | "sent" | "mined" | "failed"; tx_hash: string; attempts: number;
  reverted: boolean | null; cost: string | null; usage_id: bigint | null; failure_reason: string | null; created_at: Date; updated_at: Date;
}

/** A relay the caller may read (a venue relay, or a mint of `collectionId`), settled first if its receipt is there. */
export async function readRelay({ db, database, config }: OperationContext, relayId: string, collectionId: string | null) {
  const read = () => db.statement((tx) => tx<RelayRow[]>`
    select id, kind, collection_id, reservation_id, chain_id, relayer, nonce, status, tx_hash, attempts, reverted, cost::text,
           usage_id, failure_reason, created_at, updated_at
    from relays.status(${relayId})`);
  let [row] = await read();
  if (!row || (collectionId !== null && row.collection_id !== collectionId) || (collectionId === null && row.kind !== "venue_gasless")) {
    throw new ApiError(404, "relay_not_found", `Relay ${relayId} not found.`);
  }
  if ((row.status === "signed" || row.status === "sent") && relayerSignerFor(config)) {
    // Settle this relay now if its receipt is there (the same, charge-once code as the loop).
    const outcome = await relayOnce({ config, db: database }, { chainId: Number(row.chain_id), relayId, settleOnly: true });
    if (outcome.completed > 0) [row] = await read();
  }
  const r = row!;
  return ok<z.infer<typeof RelaySchema>>({
    relayId: r.id,
    kind: r.kind,
    collectionId: r.collection_id,
    reservationId: r.reservation_id,
    chainId: Number(r.chain_id),
    relayerAddress: getAddress(r.relayer),
    nonce: Number(r.nonce),
    status: r.status === "sent" ? "submitted" as const : r.status,
    txHash: r.tx_hash,
    attempts: r.attempts,
    reverted: r.reverted,
    chargedWei: r.status === "mined" ? (r.cost ?? null) : null,
    usageId: r.usage_id === null ? null : String(r.usage_id),
    failureReason: r.failure_reason,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  });
}

export const getVenueRelay = operation({
  name: "relays.venue.get",
  ownTransactions: true,
  run: (context, { relayId }: { relayId: string }) => readRelay(context, relayId, null),
});

export const getCollectionRelay = operation({
  name: "relays.collection.get",
  ownTransactions: true,
  run: (context, { collectionId, relayId }: { collectionId: string; relayId: string }) => readRelay(context, relayId, collectionId),
});
