// One anvil per test file, with the clients the chain tests use. Polling every 50 ms: viem's
// default (4 s) would make every wait on a local, instantly mined chain take seconds (DESIGN).
import { type Address, createPublicClient, createTestClient, createWalletClient, type Hex, http, type LocalAccount } from "viem";
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
  /** Sends `data` to `to` from `from` and waits until it is mined; a revert throws. */
  async function send(from: LocalAccount, to: Address, data: Hex) {
    const hash = await wallet(from).sendTransaction({ to, data });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`the transaction to ${to} reverted`);
  }
  return { anvil, publicClient, testClient, wallet, send };
}

/** A fresh 32-byte checkout reference, so tests never collide on the contract's used-once rule. */
export function newCheckoutRef(): `0x${string}` {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `0x${Buffer.from(bytes).toString("hex")}`;
}
