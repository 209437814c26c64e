// How deep a mined transaction is, as both on-chain verifications count it (a checkout's mint,
// collections/contract.ts; a sponsored transaction or deposit, sponsorship/chain-verification.ts).
// Each compares it with its chain's `confirmations` and refuses with its own code.
import type { Client } from "viem";
import { getBlockNumber } from "viem/actions";

/** Blocks from `blockNumber` to the chain's head, both counted: a just-mined transaction has 1. */
export async function confirmationsOf(client: Client, blockNumber: bigint): Promise<bigint> {
  // cacheTime 0: viem otherwise reuses a block number for a polling interval.
  const head = await getBlockNumber(client, { cacheTime: 0 });
  return head - blockNumber + 1n;
}
