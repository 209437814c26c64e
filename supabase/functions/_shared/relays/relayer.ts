// Gasless relays: the service's relayer wallet sends an allowed transaction for a
// caller, paid from a sponsor's balance (migration 20261123001200_relays.sql).
//
// Nonces, safe under concurrency and after a restart:
//   * one DB transaction as service_jobs takes the relayer account's row lock (relays.take_nonce),
//     signs with that nonce, and records the signed transaction (relays.record_signed: next_nonce +
//     1) BEFORE anything is broadcast. Concurrent relays, on any number of replicas, queue on that
//     lock for the time of one signature, so nonces are handed out n, n+1, ... without reuse; a
//     transaction that rolls back (refused reservation, signer error) leaves next_nonce as it was,
//     so no gap either.
//   * the table starts (and catches up) at the chain's pending nonce (relays.sync_nonce, only ever
//     raising it), once per process and chain before its first relay, and on every recovery pass.
//   * a crash after the commit leaves a `signed` row with its raw transaction: the recovery pass
//     broadcasts it again, so its nonce is used and never a permanent gap.
// Stuck transactions: a relay not mined RELAYER_REPLACE_AFTER_SECONDS after its latest attempt is
// re-signed with the same nonce and both fees raised by at least 12.5 % (EIP-1559 replacement rule)
// or to the network's current estimate if higher, while gas limit × max fee stays within the
// sponsor's hold (the hold is twice the first attempt's worst case unless the caller set
// maxCostWei), up to MAX_ATTEMPTS. The relay row's lock (skip locked) makes one replica replace it.
// Completion: the first receipt among a relay's attempts is charged once (relays.complete, under
// the relay's and the sponsor's locks): gasUsed × effectiveGasPrice (+ an OP-stack L1 fee).
// A nonce consumed by none of our attempts (the key used elsewhere) fails the relay: hold released.
//
// The key: read from RELAYER_PRIVATE_KEY once into a viem account; only the account's address and
// its signTransaction leave this module. Log lines carry relay ids and error messages, with the
// key's hex redacted should any message ever contain it. A KMS or remote signer implements
// RelayerSigner and is installed with useRelayerSigner(config, signer).
import {
  type Address,
  getAddress,
  type Hex,
  HttpRequestError,
  InsufficientFundsError,
  keccak256,
  TimeoutError,
  type TransactionSerializableEIP1559,
  TransactionReceiptNotFoundError,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { estimateFeesPerGas, estimateGas, getBlockNumber, getTransactionCount, getTransactionReceipt, sendRawTransaction } from "viem/actions";
import type { Config } from "../config.ts";
import { type ChainClient, fromChain, publicClientFor } from "../chain/clients.ts";
import type { Database, Tx } from "../db/database.ts";
import { translateDatabaseError } from "../db/database-errors.ts";
import { serviceJobs } from "../db/service-jobs.ts";
import type { AppServices } from "../http/context.ts";
import { ApiError } from "../http/errors.ts";
import { gasCost } from "../sponsorship/chain-verification.ts";
import type { RelayKind } from "./schemas.ts";

/** What the relayer needs of a key: its address and an EIP-1559 transaction signature. */
export interface RelayerSigner {
  readonly address: Address;
  /** The signed, serialized transaction (what eth_sendRawTransaction takes). */
  signTransaction(transaction: TransactionSerializableEIP1559 & { chainId: number }): Promise<Hex>;
}

/** Replacements per relay at most (the first attempt included). */
export const MAX_ATTEMPTS = 6;
/** The hold when the caller names none: twice the first attempt's worst case (room for ~5 bumps). */
export const HOLD_FACTOR = 2n;

/** A signer from a raw private key; the key stays in viem's closure, never on the returned object. */
export function localKeySigner(privateKey: Hex): RelayerSigner {
  let account: ReturnType<typeof privateKeyToAccount>;
  try {
    account = privateKeyToAccount(privateKey);
  } catch {
    throw new Error("RELAYER_PRIVATE_KEY is not a valid secp256k1 private key");
  }
  return Object.freeze({ address: account.address, signTransaction: (transaction: TransactionSerializableEIP1559 & { chainId: number }) => account.signTransaction(transaction) });
}

const signers = new WeakMap<Config, RelayerSigner | null>();

/** Installs `signer` (a KMS's, a test's) for the services built on `config`; null: none. */
export function useRelayerSigner(config: Config, signer: RelayerSigner | null): void {
  signers.set(config, signer);
}

/** The configured signer (created once per configuration), or null without RELAYER_PRIVATE_KEY. */
export function relayerSignerFor(config: Config): RelayerSigner | null {
  if (!signers.has(config)) signers.set(config, config.RELAYER_PRIVATE_KEY ? localKeySigner(config.RELAYER_PRIVATE_KEY as Hex) : null);
  return signers.get(config)!;
}

/** `message` with the configured key's hex replaced, for log lines. */
export function redacted(config: Config, message: string): string {
  const key = config.RELAYER_PRIVATE_KEY?.slice(2);
  return key ? message.replace(new RegExp(`(0x)?${key}`, "gi"), "[redacted]") : message;
}

function log(config: Config, what: string, error: unknown): void {
  const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
  console.error(`[relayer] ${what}: ${redacted(config, message)}`);
}

const lower = (value: string) => value.toLowerCase();
const ceilBump = (value: bigint) => (value * 9n + 7n) / 8n; // +12.5 %, rounded up
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** `work` in one transaction as service_jobs; the relays.* functions refuse with API errors (translated). */
async function asServiceJobs<T>(db: Database, work: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await serviceJobs(db).transaction(work);
  } catch (error) {
    throw translateDatabaseError(error);
  }
}

// ------------------------------------------------------------------------------------------
// Planning and submitting (the request's path)
// ------------------------------------------------------------------------------------------

export interface RelayPlan {
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** gas × maxFeePerGas: the first attempt's worst case. */
  worstCase: bigint;
}

/**
 * Gas (estimate + 20 %) and fees for the relayer calling `to` with `data`. A call that would revert
 * is 422 relay_would_revert; an RPC failure 502 chain_unavailable. Nothing is signed.
 */
export async function planRelay(client: ChainClient, from: Address, to: Address, data: Hex): Promise<RelayPlan> {
  let estimated: bigint;
  try {
    estimated = await estimateGas(client, { account: from, to, data, value: 0n });
  } catch (error) {
    const causes = causesOf(error);
    if (causes.some((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) {
      throw new ApiError(502, "chain_unavailable", "The chain's RPC endpoint did not answer; try again.");
    }
    if (causes.some((e) => e instanceof InsufficientFundsError)) {
      throw new ApiError(503, "relayer_unavailable", "The relayer cannot pay for gas right now; nothing was signed or charged.");
    }
    throw new ApiError(422, "relay_would_revert", "The call reverts when the relayer sends it: nothing was signed or charged.");
  }
  const fees = await fromChain(estimateFeesPerGas(client, { chain: null, type: "eip1559" }));
  const gas = estimated + estimated / 5n;
  return { gas, ...fees, worstCase: gas * fees.maxFeePerGas };
}

/** `error` and its causes (viem wraps the transport's error in the action's). */
function causesOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e && chain.length < 10; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** Once per process, database and chain: the relayer account's next_nonce catches up with the chain. */
const synced = new WeakMap<Database, Map<string, Promise<void>>>();

async function syncNonce(db: Database, client: ChainClient, chainId: number, relayer: Address): Promise<bigint> {
  const pending = await getTransactionCount(client, { address: relayer, blockTag: "pending" });
  const [row] = await asServiceJobs(db, (tx) => tx<{ next: bigint }[]>`
    select relays.sync_nonce(${chainId}, ${lower(relayer)}, ${pending}) as next`);
  return BigInt(row!.next);
}

function ensureSynced(db: Database, client: ChainClient, chainId: number, relayer: Address): Promise<void> {
  let byChain = synced.get(db);
  if (!byChain) synced.set(db, byChain = new Map());
  const key = `${chainId}:${relayer}`;
  let done = byChain.get(key);
  if (!done) {
    done = syncNonce(db, client, chainId, relayer).then(() => {});
    done.catch(() => byChain!.delete(key));
    byChain.set(key, done);
  }
  return done;
}

export interface RelaySubmission {
  relayId: string;
  txHash: Hex;
  nonce: bigint;
  /** signed: recorded, the broadcast failed and the recovery pass retries it; sent: a node accepted it. */
  status: "signed" | "sent";
}

/**
 * Signs the reserved call with the relayer's next nonce, records it (and `recordAlso`, in the same
 * transaction), then broadcasts it. The reservation must be the caller's relay hold for exactly
 * `to`, `data`.
 */
export async function submitRelay(
  services: AppServices,
  signer: RelayerSigner,
  input: {
    chainId: number; kind: RelayKind; collectionId: string | null; reservationId: string; to: Address; data: Hex; plan: RelayPlan;
    recordAlso?: (tx: Tx, relayId: string) => Promise<unknown>;
  },
): Promise<RelaySubmission> {
  const { db, config } = services;
  const client = publicClientFor(config, input.chainId);
  await fromChain(ensureSynced(db, client, input.chainId, signer.address));
  const relayer = lower(signer.address);
  const recorded = await asServiceJobs(db, async (tx) => {
    const [taken] = await tx<{ nonce: bigint }[]>`select relays.take_nonce(${input.chainId}, ${relayer}) as nonce`;
    const nonce = BigInt(taken!.nonce);
    let raw: Hex;
    try {
      raw = await signer.signTransaction({
        type: "eip1559", chainId: input.chainId, nonce: Number(nonce), to: input.to, data: input.data, value: 0n,
        gas: input.plan.gas, maxFeePerGas: input.plan.maxFeePerGas, maxPriorityFeePerGas: input.plan.maxPriorityFeePerGas,
      });
    } catch (error) {
      // A remote signer down: the transaction rolls back, so the nonce is not taken.
      log(config, "signing", error);
      throw new ApiError(503, "relayer_unavailable", "The relayer could not sign; nothing was sent or charged.");
    }
    const txHash = keccak256(raw);
    const [row] = await tx<{ id: string }[]>`
      select relays.record_signed(${input.reservationId}, ${input.chainId}, ${relayer}, ${nonce.toString()}::bigint, ${input.kind},
        ${input.collectionId}, ${lower(input.to)}, ${lower(input.data)}, ${input.plan.gas.toString()}::numeric, ${txHash}, ${lower(raw)},
        ${input.plan.maxFeePerGas.toString()}::numeric, ${input.plan.maxPriorityFeePerGas.toString()}::numeric) as id`;
    await input.recordAlso?.(tx, row!.id);
    return { relayId: row!.id, txHash, raw, nonce };
  });
  const sent = await broadcast(services, recorded.relayId, recorded.txHash, recorded.raw, input.chainId);
  return { relayId: recorded.relayId, txHash: recorded.txHash, nonce: recorded.nonce, status: sent ? "sent" : "signed" };
}

/** Sends `raw`; true once a node accepted it (or already knows it). Failures are logged, never thrown. */
async function broadcast(services: AppServices, relayId: string, txHash: Hex, raw: Hex, chainId: number): Promise<boolean> {
  const { db, config } = services;
  try {
    await sendRawTransaction(publicClientFor(config, chainId), { serializedTransaction: raw });
  } catch (error) {
    const message = String((error as Error)?.message ?? error);
    // A node that has it already, or mined it: accepted. Anything else: the recovery pass retries.
    if (!/already known|already imported|known transaction|AlreadyKnown/i.test(message)) {
      log(config, `relay ${relayId} broadcast`, error);
      return false;
    }
  }
  await asServiceJobs(db, (tx) => tx`select relays.mark_sent(${relayId}, ${txHash})`);
  return true;
}

// ------------------------------------------------------------------------------------------
// The recovery pass: charge mined relays, broadcast persisted ones again, replace stuck ones
// ------------------------------------------------------------------------------------------

interface PendingRelay {
  id: string;
  nonce: bigint;
  status: "signed" | "sent";
  to_address: string;
  call_data: string;
  gas_limit: string;
  max_cost: string;
  tx_hashes: string[];
  latest_raw_tx: string;
  latest_max_fee: string;
  latest_priority_fee: string;
  latest_at: Date;
  attempts: number;
}

export interface RelayPassOutcome {
  completed: number;
  rebroadcast: number;
  replaced: number;
  failed: number;
}

export interface RelayPassOptions {
  /** Replace a relay whose latest attempt is older than this (default RELAYER_REPLACE_AFTER_SECONDS). */
  replaceAfterMs?: number;
  /** Only this relay (the status read settles its own relay without the loop). */
  relayId?: string;
  /** Only charge mined relays: no broadcast, no replacement. */
  settleOnly?: boolean;
}

async function receiptOf(client: ChainClient, hash: Hex) {
  try {
    return await getTransactionReceipt(client, { hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError || (error as { name?: string }).name === "TransactionReceiptNotFoundError") return null;
    throw error;
  }
}

/** One pass over every configured chain (or the chain of `options.relayId`). Never throws. */
export async function relayOnce(services: AppServices, options: RelayPassOptions & { chainId?: number } = {}): Promise<RelayPassOutcome> {
  const { config } = services;
  const outcome: RelayPassOutcome = { completed: 0, rebroadcast: 0, replaced: 0, failed: 0 };
  const signer = relayerSignerFor(config);
  if (!signer) return outcome;
  for (const chain of config.EVM_CHAINS) {
    if (options.chainId !== undefined && chain.chainId !== options.chainId) continue;
    try {
      await relayChainOnce(services, signer, chain.chainId, chain.confirmations, options, outcome);
    } catch (error) {
      log(config, `chain ${chain.chainId}`, error);
    }
  }
  return outcome;
}

async function relayChainOnce(
  services: AppServices, signer: RelayerSigner, chainId: number, confirmations: number, options: RelayPassOptions, outcome: RelayPassOutcome,
): Promise<void> {
  const { db, config } = services;
  const client = publicClientFor(config, chainId);
  const relayer = lower(signer.address);
  if (!options.settleOnly) await syncNonce(db, client, chainId, signer.address);
  // One relay (the status read): read by its id, whatever its nonce; the batch reads the 200 lowest
  // pending nonces. The same columns and conditions (chain, relayer, signed or sent) either way.
  const pending = await asServiceJobs(db, (tx) => tx<PendingRelay[]>`
    select id, nonce, status, to_address, call_data, gas_limit::text, max_cost::text, tx_hashes, latest_raw_tx,
           latest_max_fee::text, latest_priority_fee::text, latest_at, attempts
    from ${options.relayId
      ? tx`relays.pending_relay(${chainId}, ${relayer}, ${options.relayId})`
      : tx`relays.pending(${chainId}, ${relayer}, 200)`}`);
  if (pending.length === 0) return;
  // Read before the receipts: a nonce below this count was consumed by a transaction already mined.
  // Settling only (the status read) never looks at it: no RPC call for it on that path.
  const minedCount = options.settleOnly ? 0n : BigInt(await getTransactionCount(client, { address: signer.address, blockTag: "latest" }));
  const head = await getBlockNumber(client, { cacheTime: 0 });
  const replaceAfterMs = options.replaceAfterMs ?? config.RELAYER_REPLACE_AFTER_SECONDS * 1000;
  for (const relay of pending) {
    try {
      await settleOrPush(services, signer, client, chainId, relay, { minedCount, head, confirmations, replaceAfterMs, settleOnly: !!options.settleOnly }, outcome);
    } catch (error) {
      log(config, `relay ${relay.id}`, error);
    }
  }
}

async function settleOrPush(
  services: AppServices, signer: RelayerSigner, client: ChainClient, chainId: number, relay: PendingRelay,
  at: { minedCount: bigint; head: bigint; confirmations: number; replaceAfterMs: number; settleOnly: boolean },
  outcome: RelayPassOutcome,
): Promise<void> {
  const { db } = services;
  for (const hash of relay.tx_hashes) {
    const receipt = await receiptOf(client, hash as Hex);
    if (!receipt) continue;
    // Mined, not confirmed enough yet (a receipt newer than the head read first counts as one confirmation).
    if (max(at.head, receipt.blockNumber) - receipt.blockNumber + 1n < BigInt(at.confirmations)) return;
    const cost = gasCost(receipt);
    const [row] = await asServiceJobs(db, (tx) => tx<{ replayed: boolean }[]>`
      select replayed from relays.complete(${relay.id}, ${hash}, ${cost.toString()}::numeric, ${receipt.status !== "success"})`);
    if (!row!.replayed) outcome.completed++;
    return;
  }
  if (at.settleOnly) return;
  if (BigInt(relay.nonce) < at.minedCount) {
    // The nonce is used on-chain, by none of this relay's attempts: the key was used elsewhere.
    await asServiceJobs(db, (tx) => tx`select relays.fail(${relay.id}, 'nonce_consumed_elsewhere')`);
    outcome.failed++;
    return;
  }
  const stuck = Date.now() - relay.latest_at.getTime() >= at.replaceAfterMs;
  if (stuck && relay.attempts < MAX_ATTEMPTS && await replace(services, signer, client, chainId, relay)) {
    outcome.replaced++;
    return;
  }
  if (await broadcast(services, relay.id, relay.tx_hashes[0] as Hex, relay.latest_raw_tx as Hex, chainId)) outcome.rebroadcast++;
}

/** Re-signs `relay` with its nonce and higher fees; false when the hold leaves no room or another replica holds it. */
async function replace(services: AppServices, signer: RelayerSigner, client: ChainClient, chainId: number, relay: PendingRelay): Promise<boolean> {
  const { db, config } = services;
  const gas = BigInt(relay.gas_limit);
  const current = await estimateFeesPerGas(client, { chain: null, type: "eip1559" });
  const priority = max(ceilBump(BigInt(relay.latest_priority_fee)), current.maxPriorityFeePerGas);
  let maxFee = max(ceilBump(BigInt(relay.latest_max_fee)), current.maxFeePerGas);
  if (maxFee < priority) maxFee = priority;
  if (gas * maxFee > BigInt(relay.max_cost)) {
    // The sponsor's hold caps the fee: the cheapest valid bump, if it still fits.
    maxFee = max(ceilBump(BigInt(relay.latest_max_fee)), priority);
    if (gas * maxFee > BigInt(relay.max_cost)) {
      log(config, `relay ${relay.id}`, "stuck, and the sponsor's hold leaves no room for a higher fee");
      return false;
    }
  }
  const signed = await asServiceJobs(db, async (tx) => {
    const [locked] = await tx<{ locked: boolean }[]>`select relays.lock_pending(${relay.id}) as locked`;
    if (!locked!.locked) return null;
    const raw = await signer.signTransaction({
      type: "eip1559", chainId, nonce: Number(relay.nonce), to: getAddress(relay.to_address), data: relay.call_data as Hex, value: 0n,
      gas, maxFeePerGas: maxFee, maxPriorityFeePerGas: priority,
    });
    const txHash = keccak256(raw);
    await tx`select relays.add_attempt(${relay.id}, ${txHash}, ${lower(raw)}, ${maxFee.toString()}::numeric, ${priority.toString()}::numeric)`;
    return { raw, txHash };
  });
  if (!signed) return false;
  await broadcast(services, relay.id, signed.txHash, signed.raw, chainId);
  return true;
}

/** The gateway's loop: a pass at once, then every `intervalMs`. */
export function startRelayLoop(services: AppServices, intervalMs: number): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    running = relayOnce(services).finally(() => {
      if (!stopped) timer = setTimeout(run, intervalMs);
    });
  };
  if (relayerSignerFor(services.config)) run();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
