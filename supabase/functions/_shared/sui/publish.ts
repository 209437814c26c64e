// Publishing a collection on Sui: the service builds `event_pass::collection::create_collection`,
// signs it with its own key and pays the gas. Two steps, so the caller can store the signed
// transaction before anything reaches the chain: a retry then executes the very same bytes, which
// Sui answers from its record of the digest instead of creating a second collection.
//
// Node calls per publish: preparePublish makes two reads, LedgerService.GetEpoch (the reference
// gas price) and one page of StateService.ListOwnedObjects for Coin<SUI> (the gas coin); gas
// price, budget and payment are then set on the transaction, so building it needs no node (no
// SimulateTransaction). executePrepared makes one TransactionExecutionService.ExecuteTransaction.
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { Transaction, TransactionDataBuilder } from "@mysten/sui/transactions";
import { fromBase64, normalizeStructTag, normalizeSuiAddress, toBase64 } from "@mysten/sui/utils";
import { fromSui, SuiUnavailable, SuiUnfunded } from "./errors.ts";
import { parseSuiAddress } from "./network.ts";
import type { SuiSigner } from "./signer.ts";

/** What the organiser asked for; strings are checked for length by the caller. */
export interface CollectionInput {
  name: string;
  description: string;
  imageUrl: string;
  projectUrl: string;
  /** null: no limit. */
  maxSupply: bigint | number | null;
  transferable: boolean;
  /** Receives the CollectionCap (the right to mint). */
  organiser: string;
}

export interface SuiObjectRef {
  objectId: string;
  version: string;
  digest: string;
}

/**
 * Default budget in MIST (0.05 SUI): creating two small objects costs about a tenth of it. Only
 * what is used is charged; the gas coin must hold the whole budget.
 */
export const DEFAULT_PUBLISH_GAS_BUDGET = 50_000_000n;
/** Coins looked at for gas, in one page: the service's address holds a few coins, not thousands. */
const GAS_COIN_PAGE = 50;

const U64_MAX = (1n << 64n) - 1n;

export const collectionType = (packageId: string) => `${normalizeSuiAddress(packageId)}::collection::Collection`;
export const collectionCapType = (packageId: string) => `${normalizeSuiAddress(packageId)}::collection::CollectionCap`;
export const eventPassType = (packageId: string) => `${normalizeSuiAddress(packageId)}::collection::EventPass`;

/** The transaction, complete: sender, gas price, budget and payment are all set, so it builds offline. */
export function buildPublishTransaction(args: {
  packageId: string;
  sender: string;
  gasPrice: bigint;
  gasBudget: bigint;
  gasPayment: SuiObjectRef[];
  input: CollectionInput;
}): Transaction {
  const { input } = args;
  const maxSupply = input.maxSupply === null ? null : BigInt(input.maxSupply);
  if (maxSupply !== null && (maxSupply < 0n || maxSupply > U64_MAX)) throw new RangeError("maxSupply must fit in a u64");
  if (args.gasPayment.length === 0) throw new RangeError("a gas coin is required");
  const tx = new Transaction();
  tx.setSender(parseSuiAddress(args.sender, "sender"));
  tx.setGasPrice(args.gasPrice);
  tx.setGasBudget(args.gasBudget);
  tx.setGasPayment(args.gasPayment);
  tx.moveCall({
    target: `${parseSuiAddress(args.packageId, "packageId")}::collection::create_collection`,
    arguments: [
      tx.pure.string(input.name),
      tx.pure.string(input.description),
      tx.pure.string(input.imageUrl),
      tx.pure.string(input.projectUrl),
      tx.pure.option("u64", maxSupply),
      tx.pure.bool(input.transferable),
      tx.pure.address(parseSuiAddress(input.organiser, "organiser")),
    ],
  });
  return tx;
}

/** A signed publish, ready to store: executePrepared takes exactly this back. */
export interface PreparedPublish {
  /** TransactionData BCS, base64. */
  bytes: string;
  /** The service's signature, base64 (Sui's serialized form). */
  signature: string;
  /** The transaction digest (base58): the same for every execution of these bytes. */
  digest: string;
  /** The SUI coin it pays with: spent by the first of the transactions built on it to execute. */
  gasCoin: string;
}

/**
 * Reads the reference gas price and picks the richest SUI coin of the signer (one page), then
 * builds and signs. `avoidGasCoins`: coins of prepared transactions not yet executed, which a
 * second transaction must not also spend (Sui would refuse one of the two). SuiUnfunded when no
 * other coin holds the budget; SuiUnavailable when the node or the signer does not answer.
 * Nothing is sent to the chain.
 */
export async function preparePublish(
  client: SuiGrpcClient,
  signer: SuiSigner,
  args: { packageId: string; input: CollectionInput; gasBudget?: bigint; avoidGasCoins?: readonly string[] },
): Promise<PreparedPublish> {
  const gasBudget = args.gasBudget ?? DEFAULT_PUBLISH_GAS_BUDGET;
  const { referenceGasPrice } = await fromSui(client.getReferenceGasPrice());
  if (!/^\d+$/.test(referenceGasPrice)) throw new SuiUnavailable("The Sui node did not report a reference gas price");
  const { objects: listed } = await fromSui(client.listCoins({ owner: signer.address, limit: GAS_COIN_PAGE }));
  const avoid = new Set((args.avoidGasCoins ?? []).map((id) => normalizeSuiAddress(id)));
  const coins = listed.filter((coin) => !avoid.has(normalizeSuiAddress(coin.objectId)));
  const richest = coins.reduce<(typeof coins)[number] | undefined>(
    (best, coin) => (!best || BigInt(coin.balance) > BigInt(best.balance) ? coin : best), undefined);
  if (!richest || BigInt(richest.balance) < gasBudget) {
    throw new SuiUnfunded(`The service's Sui address ${signer.address} has no SUI coin holding the gas budget (${gasBudget} MIST)`);
  }
  const tx = buildPublishTransaction({
    packageId: args.packageId,
    sender: signer.address,
    gasPrice: BigInt(referenceGasPrice),
    gasBudget,
    gasPayment: [{ objectId: richest.objectId, version: richest.version, digest: richest.digest }],
    input: args.input,
  });
  const bytes = await tx.build();
  let signature: string;
  try {
    ({ signature } = await signer.signTransaction(bytes));
  } catch (error) {
    // A remote signer down; its message is not passed on (it could quote key material).
    throw new SuiUnavailable("The Sui signer could not sign; nothing was sent", undefined, { cause: error });
  }
  return { bytes: toBase64(bytes), signature, digest: TransactionDataBuilder.getDigestFromBytes(bytes), gasCoin: normalizeSuiAddress(richest.objectId) };
}

export interface PublishOutcome {
  digest: string;
  status: "success" | "failure";
  /** Why execution failed (a Move abort, insufficient gas, ...); only with status failure. */
  error?: string;
  /** The SDK's name of the failure: MoveAbort, InsufficientGas, ... */
  errorKind?: string;
  collectionId?: string;
  capId?: string;
  /** The Move type of the collection's passes: `<package>::collection::EventPass`. */
  passType: string;
  /** Gas charged in MIST (computation + storage - rebate), also on failure. */
  gasCostMist: string;
}

/** The package a prepared publish calls, read back from its bytes. */
function packageOf(bytes: Uint8Array): string {
  const command = TransactionDataBuilder.fromBytes(bytes).commands[0];
  if (command?.$kind !== "MoveCall" || command.MoveCall.module !== "collection" || command.MoveCall.function !== "create_collection") {
    throw new RangeError("not a prepared collection publish");
  }
  return normalizeSuiAddress(command.MoveCall.package);
}

/**
 * Executes a prepared publish (again, after a lost answer: the node answers for the digest it
 * already executed). A Move abort or gas failure is status "failure" with its reason; the node
 * refusing the transaction is SuiRejected; no answer is SuiUnavailable.
 */
export async function executePrepared(client: SuiGrpcClient, prepared: { bytes: string; signature: string }): Promise<PublishOutcome> {
  const bytes = fromBase64(prepared.bytes);
  const packageId = packageOf(bytes);
  const digest = TransactionDataBuilder.getDigestFromBytes(bytes);
  const result = await fromSui(client.executeTransaction({
    transaction: bytes,
    signatures: [prepared.signature],
    include: { effects: true, objectTypes: true },
  }), { refusable: true });
  const executed = result.Transaction ?? result.FailedTransaction;
  if (executed.digest !== digest) throw new Error(`The Sui node answered for transaction ${executed.digest}, not ${digest}`);
  const gas = executed.effects.gasUsed;
  const gasCostMist = (BigInt(gas.computationCost ?? 0) + BigInt(gas.storageCost ?? 0) - BigInt(gas.storageRebate ?? 0)).toString();
  const passType = eventPassType(packageId);
  if (!executed.status.success) {
    return { digest, status: "failure", error: executed.status.error.message, errorKind: executed.status.error.$kind, passType, gasCostMist };
  }
  const createdOf = (type: string) => {
    const wanted = normalizeStructTag(type);
    return executed.effects.changedObjects.find((change) =>
      change.idOperation === "Created" && executed.objectTypes[change.objectId] !== undefined &&
      normalizeStructTag(executed.objectTypes[change.objectId]!) === wanted)?.objectId;
  };
  const collectionId = createdOf(collectionType(packageId));
  const capId = createdOf(collectionCapType(packageId));
  if (!collectionId || !capId) {
    // Executed, yet not what create_collection creates: another package at that id.
    throw new Error(`Transaction ${digest} succeeded without creating a Collection and a CollectionCap of ${packageId}`);
  }
  return { digest, status: "success", collectionId: normalizeSuiAddress(collectionId), capId: normalizeSuiAddress(capId), passType, gasCostMist };
}
