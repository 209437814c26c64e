// The checkout reconciler (SPEC 3): a customer who paid and closed the hosted page
// still gets the checkout completed, as `service_jobs` (complete_session_as_job: same rules as the
// page's confirmation, COMPLETED + NFTs + webhook in one transaction). Each pass does two things:
//
// 1. Reported hashes. The page reports each broadcast hash on its payment attempt
//    (record_payment_transaction) before it waits for the receipt; those receipts are checked the
//    way the page's confirmation does.
// 2. Log search, for attempts without a reported hash (the page closed before the wallet answered)
//    and for any other mint of an open checkout's reference. Per collection, one eth_getLogs (per
//    MAX_REFS_PER_LOG_QUERY references) for CheckoutMinted with the open checkouts' references as
//    alternatives of the indexed checkoutRef topic, over the chain's latest `logBlockWindow` blocks
//    (default DEFAULT_LOG_BLOCK_WINDOW). Each mint found is verified like a confirmation, with the
//    payer it was minted to when that wallet prepared a payment of the checkout.
//    - verified: the checkout is completed;
//    - refused as wrong_amount or wrong_token: the reference is consumed (every supported collection
//      accepts a reference once) by a mint that can never pay this checkout, so it is FAILED with
//      `checkout_reference_consumed` (fail_session_as_job; 20261123001000_checkout.sql says when FAILED happens);
//    - anything else (not mined or confirmed enough yet, RPC error, minted to a wallet that prepared
//      nothing): left for a later pass or for the page's confirmation. Never FAILED on those.
//
// Why a block window and not the block at prepare time: the window costs nothing at prepare (no RPC
// call nor column written on the customer's path) and bounds every eth_getLogs to a range providers
// accept; the mint of a checkout is found as long as one pass runs while it is among the latest
// `logBlockWindow` blocks (5,000 blocks: ~17 h on Ethereum, ~2.8 h on Base or OP, ~20 min on
// Arbitrum), i.e. the reconciler must not stop for longer than that. Older mints are an operator's
// (the hosted page's confirmation with the hash still completes them).
import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { getBlockNumber } from "viem/actions";
import { checkoutRefFromId, findCheckoutMints, MAX_REFS_PER_LOG_QUERY, type MintRefusalCode } from "../collections/contract.ts";
import { publicClientFor } from "../chain/clients.ts";
import type { AppServices } from "../http/context.ts";
import { serviceJobs } from "../db/service-jobs.ts";
import { checkoutTerms, completionOf, verifyCheckoutPayment } from "./verification.ts";

interface AttemptToReconcile {
  attempt_id: string;
  session_id: string;
  payer_address: string;
  chain_id: bigint;
  tx_hash: string | null;
  collection_address: string;
  price: string;
  payment_token: string | null;
}

interface SessionToSearch {
  session_id: string;
  chain_id: bigint;
  collection_address: string;
  price: string;
  payment_token: string | null;
  /** Lower-case addresses of the wallets that prepared a payment. */
  payers: string[];
}

/** Blocks back from the chain's head that one pass searches for mints, unless configured per chain. */
const DEFAULT_LOG_BLOCK_WINDOW = 5_000;

/** The failure_reason of a checkout whose reference a mint consumed that cannot pay for it. */
const REFERENCE_CONSUMED = "checkout_reference_consumed";

/** Refusals of a found mint that no later pass can change: the reference is spent on other terms. */
const PERMANENT_REFUSALS = new Set<MintRefusalCode>(["wrong_amount", "wrong_token"]);

export interface ReconcileOptions {
  /** Attempts with a reported hash checked per pass (the work list's limit). */
  limit?: number;
  /** Open checkouts whose references one pass searches for. */
  searchLimit?: number;
  /** Blocks back from the head searched per chain id; DEFAULT_LOG_BLOCK_WINDOW for the others. */
  logBlockWindow?: Record<number, number>;
}

export interface ReconcileOutcome {
  /** Transactions whose receipts were checked. */
  checked: number;
  /** Checkouts completed by this pass. */
  completed: number;
}

/** A pass in detail (reconcilePass); reconcileOnce answers the ReconcileOutcome part. */
export interface ReconcileReport extends ReconcileOutcome {
  /** eth_getLogs calls of the log search. */
  searched: number;
  /** Checkouts this pass set FAILED (their reference consumed by a mint that cannot pay them). */
  failed: number;
}

/** Completes a verified checkout as service_jobs. */
async function complete(services: AppServices, checkoutId: string, done: ReturnType<typeof completionOf>): Promise<void> {
  await serviceJobs(services.db).transaction((tx) => tx`
    select from checkout.complete_session_as_job(${checkoutId}, ${done.txHash}, ${done.payer},
                                                 ${done.tokenIds}::numeric[], ${done.amount}::numeric,
                                                 ${done.paymentToken}, ${done.blockNumber}::bigint)`);
}

/**
 * One pass: checks up to `limit` reported transactions of checkouts still open (PENDING, or EXPIRED
 * with the attempt prepared before expiry), then searches the logs for the references of up to
 * `searchLimit` open checkouts with attempts (see the file's header). A receipt not mined or
 * confirmed yet is left for a later pass; an RPC failure skips that attempt or collection only.
 */
export async function reconcileOnce(services: AppServices, options: ReconcileOptions = {}): Promise<ReconcileOutcome> {
  const { checked, completed } = await reconcilePass(services, options);
  return { checked, completed };
}

/** reconcileOnce, answering what the log search did too. */
export async function reconcilePass(services: AppServices, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const report: ReconcileReport = { checked: 0, completed: 0, searched: 0, failed: 0 };
  const completed = await checkReportedHashes(services, options.limit ?? 100, report);
  await searchMints(services, options, completed, report);
  return report;
}

/** Step 1; returns the checkouts it completed. */
async function checkReportedHashes(services: AppServices, limit: number, outcome: ReconcileReport): Promise<Set<string>> {
  const attempts = await serviceJobs(services.db).transaction((tx) => tx<AttemptToReconcile[]>`
    select attempt_id, session_id, payer_address, chain_id, tx_hash, collection_address, price::text, payment_token
    from checkout.payment_attempts_to_reconcile(${limit})
    where tx_hash is not null`);

  // Several attempts of one checkout may report the same hash: check each transaction once.
  const seen = new Set<string>();
  const completed = new Set<string>();
  for (const attempt of attempts) {
    if (!attempt.tx_hash || completed.has(attempt.session_id) || seen.has(`${attempt.session_id}:${attempt.tx_hash}`)) continue;
    seen.add(`${attempt.session_id}:${attempt.tx_hash}`);
    const txHash = attempt.tx_hash as Hex;
    try {
      const verification = await verifyCheckoutPayment(services.config, checkoutTerms(attempt.session_id, attempt), txHash, getAddress(attempt.payer_address));
      outcome.checked++;
      if (!verification.ok) continue;
      await complete(services, attempt.session_id, completionOf(txHash, verification));
      completed.add(attempt.session_id);
      outcome.completed++;
    } catch (error) {
      // One attempt's RPC failure, unconfigured chain or refusal by the SQL (the hash completed
      // another checkout, or the checkout was completed meanwhile) must not stop the others.
      reportError(attempt.session_id, error);
    }
  }
  return completed;
}

/** Step 2: one log search per collection, then each mint found verified and acted on. */
async function searchMints(services: AppServices, options: ReconcileOptions, skip: Set<string>, outcome: ReconcileReport): Promise<void> {
  const sessions = await serviceJobs(services.db).transaction((tx) => tx<SessionToSearch[]>`
    select session_id, chain_id, collection_address, price::text, payment_token, payers
    from checkout.sessions_to_search_for_mints(${options.searchLimit ?? 1000})`);

  const byCollection = new Map<string, SessionToSearch[]>();
  for (const session of sessions) {
    if (skip.has(session.session_id)) continue;
    const key = `${session.chain_id}:${session.collection_address.toLowerCase()}`;
    const group = byCollection.get(key);
    if (group) group.push(session);
    else byCollection.set(key, [session]);
  }

  const heads = new Map<number, Promise<bigint>>();
  for (const group of byCollection.values()) {
    const chainId = Number(group[0]!.chain_id);
    const collection = getAddress(group[0]!.collection_address);
    const byRef = new Map(group.map((session) => [checkoutRefFromId(session.session_id), session]));
    try {
      const client = publicClientFor(services.config, chainId);
      // One head per chain and pass; cacheTime 0: viem otherwise reuses a block number for a while.
      if (!heads.has(chainId)) heads.set(chainId, getBlockNumber(client, { cacheTime: 0 }));
      const head = await heads.get(chainId)!;
      const window = BigInt(options.logBlockWindow?.[chainId] ?? DEFAULT_LOG_BLOCK_WINDOW);
      const fromBlock = head >= window ? head - window + 1n : 0n;
      const refs = [...byRef.keys()];
      outcome.searched += Math.ceil(refs.length / MAX_REFS_PER_LOG_QUERY);
      const mints = await findCheckoutMints(client, { collection, checkoutRefs: refs, fromBlock, toBlock: head });
      for (const mint of mints) {
        const session = byRef.get(mint.checkoutRef.toLowerCase() as Hex);
        if (session) await settle(services, session, mint.txHash, mint.to, outcome);
      }
    } catch (error) {
      reportError(`(collection ${collection} on chain ${chainId})`, error);
    }
  }
}

/** A found mint of `session`'s reference: completes the checkout, fails it, or leaves it. */
async function settle(services: AppServices, session: SessionToSearch, txHash: Hex, mintedTo: Address, outcome: ReconcileReport): Promise<void> {
  // The wallet the NFT went to, when it prepared a payment of this checkout; else one that did, so
  // the verdict on amount and token still comes (verification checks those before the payer).
  const payer = session.payers.includes(mintedTo.toLowerCase()) ? mintedTo : getAddress(session.payers[0]!);
  try {
    const verification = await verifyCheckoutPayment(services.config, checkoutTerms(session.session_id, session), txHash, payer);
    outcome.checked++;
    if (verification.ok) {
      await complete(services, session.session_id, completionOf(txHash, verification));
      outcome.completed++;
    } else if (PERMANENT_REFUSALS.has(verification.code)) {
      await serviceJobs(services.db).transaction((tx) => tx`
        select from checkout.fail_session_as_job(${session.session_id}, ${REFERENCE_CONSUMED})`);
      outcome.failed++;
    }
  } catch (error) {
    reportError(session.session_id, error);
  }
}

function reportError(checkoutId: string, error: unknown): void {
  // The message only: a driver error can carry a statement's parameters.
  console.error(`[reconciler] checkout ${checkoutId}:`, error instanceof Error ? error.message : String(error));
}

/**
 * Runs reconcileOnce every `intervalMs` until stopped; passes never overlap. `stop` waits for the
 * pass in progress.
 */
export function startReconciler(services: AppServices, intervalMs: number): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      running = reconcileOnce(services)
        .catch((error) => reportError("(work list)", error))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
