// One anvil per test file, with the clients the chain tests use. Polling every 50 ms: viem's
// default (4 s) would make every wait on a local, instantly mined chain take seconds (DESIGN).
import { createPublicClient, createTestClient, createWalletClient, http, type LocalAccount } from "viem";
import { anvil as anvilChain } from "viem/chains";
import { type Anvil, startAnvil } from "../../scripts/lib/anvil.ts";

const POLLING_INTERVAL_MS = 50;

export async function startChain() {
  const anvil: Anvil = await startAnvil();
  const transport = http(anvil.rpcUrl);
  const publicClient = createPublicClient({ chain: anvilChain, transport, pollingInterval: POLLING_INTERVAL_MS });
  const testClient = createTestClient({ chain: anvilChain, transport, mode: "anvil", pollingInterval: POLLING_INTERVAL_MS });
  const wallet = (account: LocalAccount) =>
    createWalletClient({ account, chain: anvilChain, transport, pollingInterval: POLLING_INTERVAL_MS });
  return { anvil, publicClient, testClient, wallet };
}

/** A fresh 32-byte checkout reference, so tests never collide on the contract's used-once rule. */
export function newCheckoutRef(): `0x${string}` {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `0x${Buffer.from(bytes).toString("hex")}`;
}
