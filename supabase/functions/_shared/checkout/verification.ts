// Verifying that a transaction paid for a checkout, as the hosted page's confirmation and the
// reconciler both do it: the receipt through the chain's public client, against the session's terms.
import { type Address, getAddress, type Hex } from "viem";
import { checkoutRefFromId, type MintVerification, NATIVE_TOKEN, verifyMintReceipt } from "../collections/contract.ts";
import { publicClientFor } from "../chain/clients.ts";
import type { Config } from "../config.ts";

/** A checkout's payment terms, as the database stores them. */
export interface CheckoutTerms {
  checkoutId: string;
  chainId: number;
  collectionAddress: string;
  /** null: the chain's native currency. */
  paymentToken: string | null;
  /** In the payment token's smallest unit, as a decimal string (numeric from the database). */
  price: string;
}

/** The terms of checkout `checkoutId` from a row of the checkout SQL functions (session or work list). */
export function checkoutTerms(
  checkoutId: string,
  row: { chain_id: bigint; collection_address: string; payment_token: string | null; price: string },
): CheckoutTerms {
  return {
    checkoutId,
    chainId: Number(row.chain_id),
    collectionAddress: row.collection_address,
    paymentToken: row.payment_token,
    price: row.price,
  };
}

/**
 * Verifies `txHash` against the checkout's terms, minted to `payer` (null: the transaction's sender), with the confirmations
 * EVM_CHAINS asks for on the checkout's chain. Rejects with 400 `chain_not_supported` for a chain
 * that is not configured, and with the RPC's own errors.
 */
export async function verifyCheckoutPayment(config: Config, terms: CheckoutTerms, txHash: Hex, payer: Address | null): Promise<MintVerification> {
  const client = publicClientFor(config, terms.chainId);
  const confirmations = config.EVM_CHAINS.find((chain) => chain.chainId === terms.chainId)!.confirmations;
  return verifyMintReceipt(client, {
    txHash,
    chainId: terms.chainId,
    collection: getAddress(terms.collectionAddress),
    checkoutRef: checkoutRefFromId(terms.checkoutId),
    payer,
    paymentToken: terms.paymentToken ? getAddress(terms.paymentToken) : NATIVE_TOKEN,
    amount: BigInt(terms.price),
    confirmations,
  });
}

/** A verified payment as checkout.complete_session and complete_session_as_job take it. */
export function completionOf(txHash: Hex, verified: Extract<MintVerification, { ok: true }>) {
  return {
    txHash: txHash.toLowerCase(),
    payer: verified.owner,
    tokenIds: verified.tokenIds.map(String),
    amount: verified.amount.toString(),
    // null for the native currency, like the collection row.
    paymentToken: verified.paymentToken === NATIVE_TOKEN ? null : verified.paymentToken,
    blockNumber: verified.blockNumber.toString(),
  };
}
