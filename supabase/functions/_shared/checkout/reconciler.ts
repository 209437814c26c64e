// The checkout reconciler (issue 8 item 5, SPEC 3): a customer who paid and closed the hosted page
// still gets the checkout completed. The page reports each broadcast hash on its payment attempt
// (record_payment_transaction) before it waits for the receipt; this job checks those receipts the
// way the page's confirmation does and completes the checkout as `service_jobs`
// (complete_session_as_job: same rules, COMPLETED + NFTs + webhook in one transaction).
//
// Not done here: attempts without a reported hash (the page closed before the wallet answered).
// Finding those mints needs a search of the collection's CheckoutMinted logs by checkout reference
// from the attempt's prepared_at; payment_attempts_to_reconcile lists them after the hashed ones.
import type { Hex } from "viem";
import { getAddress } from "viem";
import type { AppServices } from "../http/context.ts";
import { asServiceJobsOn } from "../webhooks/dispatcher.ts";
import { completionOf, verifyCheckoutPayment } from "./verification.ts";

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

export interface ReconcileOutcome {
  /** Transactions whose receipts were checked. */
  checked: number;
  /** Checkouts completed by this pass. */
  completed: number;
}

/**
 * One pass: takes up to `limit` attempts of checkouts still open (PENDING, or EXPIRED with the
 * attempt prepared before expiry), verifies each reported transaction and completes the checkouts
 * it paid for. A receipt not mined or confirmed yet, or refused, is left for a later pass (a refused
 * one drops out after the work list's 3 days); an RPC failure skips that attempt only.
 */
export async function reconcileOnce(services: AppServices, limit = 100): Promise<ReconcileOutcome> {
  const { config, db } = services;
  const attempts = await asServiceJobsOn(db, (tx) => tx<AttemptToReconcile[]>`
    select attempt_id, session_id, payer_address, chain_id, tx_hash, collection_address, price::text, payment_token
    from checkout.payment_attempts_to_reconcile(${limit})`);

  // Several attempts of one checkout may report the same hash: check each transaction once.
  const seen = new Set<string>();
  const outcome: ReconcileOutcome = { checked: 0, completed: 0 };
  for (const attempt of attempts) {
    if (!attempt.tx_hash || seen.has(`${attempt.session_id}:${attempt.tx_hash}`)) continue;
    seen.add(`${attempt.session_id}:${attempt.tx_hash}`);
    const txHash = attempt.tx_hash as Hex;
    try {
      const verification = await verifyCheckoutPayment(config, {
        checkoutId: attempt.session_id,
        chainId: Number(attempt.chain_id),
        collectionAddress: attempt.collection_address,
        paymentToken: attempt.payment_token,
        price: attempt.price,
      }, txHash, getAddress(attempt.payer_address));
      outcome.checked++;
      if (!verification.ok) continue;
      const done = completionOf(txHash, verification);
      await asServiceJobsOn(db, (tx) => tx`
        select from checkout.complete_session_as_job(${attempt.session_id}, ${done.txHash}, ${done.payer},
                                                     ${done.tokenIds}::numeric[], ${done.amount}::numeric,
                                                     ${done.paymentToken}, ${done.blockNumber}::bigint)`);
      outcome.completed++;
    } catch (error) {
      // One attempt's RPC failure, unconfigured chain or refusal by the SQL (the hash completed
      // another checkout, or the checkout was completed meanwhile) must not stop the others.
      reportError(attempt.session_id, error);
    }
  }
  return outcome;
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
