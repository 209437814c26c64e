// Gasless relays (routes.ts). The caller's part runs as the caller (relays.reserve: the sponsorship
// check and hold, under the sponsor's row lock); the relayer's part as service_jobs
// (_shared/sponsorship/relayer.ts: nonce, signature and record in one transaction, then broadcast).
// Nothing is signed before the call was simulated and the hold taken.
import type { RouteHandler, z } from "@hono/zod-openapi";
import { type Address, encodeFunctionData, getAddress, type Hex, keccak256, toHex } from "viem";
import { scopeOf } from "../../_shared/auth/principal.ts";
import { checkoutCollectionAbi } from "../../_shared/collections/contract.ts";
import { publicClientFor } from "../../_shared/chain/clients.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { HOLD_FACTOR, planRelay, relayerSignerFor, relayOnce, type RelaySubmission, submitRelay } from "../../_shared/sponsorship/relayer.ts";
import * as routes from "./routes.ts";

type Context = Parameters<RouteHandler<typeof routes.venueGasless, AppEnv>>[0];
const lower = (value: string) => value.toLowerCase();

function signerOrRefuse(c: { get(key: "config"): AppEnv["Variables"]["config"] }) {
  const signer = relayerSignerFor(c.get("config"));
  if (!signer) throw new ApiError(503, "relayer_not_configured", "Gasless relays are not configured on this service.");
  return signer;
}

const toAccepted = (submission: RelaySubmission, reservationId: string, chainId: number, relayer: Address): z.infer<typeof routes.RelayAcceptedSchema> => ({
  relayId: submission.relayId,
  status: submission.status === "sent" ? "submitted" : "signed",
  txHash: submission.txHash,
  nonce: Number(submission.nonce),
  reservationId,
  chainId,
  relayerAddress: relayer,
});

/** Simulate, hold, sign, record, broadcast: the path both POST routes share. */
async function relay(
  c: Context,
  input: { chainId: number; sponsor: string; actor: string; to: Address; data: Hex; maxCostWei?: string; kind: "venue_gasless" | "nft_mint"; collectionId: string | null },
) {
  const config = c.get("config");
  const signer = signerOrRefuse(c);
  const client = publicClientFor(config, input.chainId); // 400 chain_not_supported
  if (lower(input.to) === lower(signer.address)) throw new ApiError(400, "target_not_allowed", "The relayer does not call itself.");
  const plan = await planRelay(client, signer.address, input.to, input.data);
  const hold = input.maxCostWei !== undefined ? BigInt(input.maxCostWei) : plan.worstCase * HOLD_FACTOR;
  if (hold < plan.worstCase) {
    throw new ApiError(409, "max_cost_too_low", `The relay may cost up to ${plan.worstCase} wei (gas limit × max fee per gas); maxCostWei is lower.`,
      { requiredWei: plan.worstCase.toString() });
  }
  const [reserved] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{ reservation_id: string }[]>`
    select reservation_id from relays.reserve(${input.chainId}, ${lower(input.sponsor)}, ${input.kind}::sponsorship.operation_type,
      ${lower(input.to)}, ${lower(input.data)}, ${lower(input.actor)}, ${hold.toString()}::numeric,
      ${config.SPONSORSHIP_RATE_LIMITS.check}::integer)`);
  const submission = await submitRelay({ config, db: c.get("db") }, signer, {
    chainId: input.chainId, kind: input.kind, collectionId: input.collectionId, reservationId: reserved!.reservation_id,
    to: input.to, data: input.data, plan,
  });
  return c.json(toAccepted(submission, reserved!.reservation_id, input.chainId, signer.address), 202);
}

export const venueGasless: RouteHandler<typeof routes.venueGasless, AppEnv> = (c) => {
  const body = c.req.valid("json");
  return relay(c, {
    chainId: body.chainId, sponsor: body.walletAddress, actor: body.actorAddress, to: getAddress(body.targetAddress),
    data: lower(body.callData) as Hex, maxCostWei: body.maxCostWei, kind: "venue_gasless", collectionId: null,
  });
};

export const collectionGasless: RouteHandler<typeof routes.collectionGasless, AppEnv> = async (c) => {
  const { collectionId } = c.req.valid("param");
  const body = c.req.valid("json");
  signerOrRefuse(c);
  const [collection] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{
    chain_id: bigint; address: string; pricing: string; mint_price: string | null; payment_token: string | null;
  }[]>`select chain_id, address, pricing, mint_price::text, payment_token from relays.collection_for_mint(${collectionId})`);
  if (!collection) throw new ApiError(404, "collection_not_found", `Collection ${collectionId} not found.`);
  if (collection.pricing !== "static" || collection.payment_token !== null || collection.mint_price !== "0") {
    throw new ApiError(409, "mint_not_free", "Only collections with a static native price of 0 can be minted gasless: the sponsor pays gas, never a price.");
  }
  // A fresh reference per mint (the contract accepts each once). Its high bytes are never zero in
  // practice, so it never names a checkout (whose reference is a 12-byte id, right-aligned).
  const checkoutRef = keccak256(toHex(`gasless-mint:${collectionId}:${crypto.randomUUID()}`));
  const data = encodeFunctionData({ abi: checkoutCollectionAbi, functionName: "mint", args: [getAddress(body.to), checkoutRef] });
  return relay(c as unknown as Context, {
    chainId: Number(collection.chain_id), sponsor: body.sponsorWalletAddress, actor: body.to, to: getAddress(collection.address),
    data, maxCostWei: body.maxCostWei, kind: "nft_mint", collectionId,
  });
};

interface RelayRow {
  id: string; kind: "venue_gasless" | "nft_mint"; collection_id: string | null; reservation_id: string; chain_id: bigint;
  relayer: string; nonce: bigint; status: "signed" | "sent" | "mined" | "failed"; tx_hash: string; attempts: number;
  reverted: boolean | null; cost: string | null; usage_id: bigint | null; failure_reason: string | null; created_at: Date; updated_at: Date;
}

async function readRelay(c: Context, relayId: string, collectionId: string | null) {
  const db = c.get("db");
  const scope = scopeOf(c.get("principal"));
  const read = () => db.statement(scope, (tx) => tx<RelayRow[]>`
    select id, kind, collection_id, reservation_id, chain_id, relayer, nonce, status, tx_hash, attempts, reverted, cost::text,
           usage_id, failure_reason, created_at, updated_at
    from relays.status(${relayId})`);
  let [row] = await read();
  if (!row || (collectionId !== null && row.collection_id !== collectionId) || (collectionId === null && row.kind !== "venue_gasless")) {
    throw new ApiError(404, "relay_not_found", `Relay ${relayId} not found.`);
  }
  if ((row.status === "signed" || row.status === "sent") && relayerSignerFor(c.get("config"))) {
    // Settle this relay now if its receipt is there (the same, charge-once code as the loop).
    const outcome = await relayOnce({ config: c.get("config"), db }, { chainId: Number(row.chain_id), relayId, settleOnly: true });
    if (outcome.completed > 0) [row] = await read();
  }
  const r = row!;
  return c.json({
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
  }, 200);
}

export const getVenueGasless: RouteHandler<typeof routes.getVenueGasless, AppEnv> = (c) =>
  readRelay(c as unknown as Context, c.req.valid("param").relayId, null);

export const getCollectionGasless: RouteHandler<typeof routes.getCollectionGasless, AppEnv> = (c) => {
  const { collectionId, relayId } = c.req.valid("param");
  return readRelay(c as unknown as Context, relayId, collectionId);
};

export const relaysRouter = createRouter()
  .openapi(routes.venueGasless, venueGasless)
  .openapi(routes.collectionGasless, collectionGasless)
  .openapi(routes.getVenueGasless, getVenueGasless)
  .openapi(routes.getCollectionGasless, getCollectionGasless);
