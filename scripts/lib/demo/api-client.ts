// The demo's calls to the REST API with the demo user's key, as an integrator's backend makes them:
// fund the sponsor, register the collection, create checkout sessions.
import { type Account, type Address, createPublicClient, getAddress, http, type Transport, type WalletClient } from "viem";
import { anvil as anvilChain } from "viem/chains";
import type { DemoChain } from "../demo-checkout.ts";
import { DEMO_PRICE, DemoUnavailable } from "./terms.ts";

export interface DemoSponsor {
  walletAddress: Address;
  availableWei: string;
  depositedNow: boolean;
}

export async function api(apiRoot: string, apiKey: string, method: string, path: string, json?: unknown) {
  const response = await fetch(`${apiRoot}${path}`, {
    method,
    headers: { "x-api-key": apiKey, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: described by the status below.
  }
  return { status: response.status, body, text };
}

const SPONSOR_DEPOSIT = 10n ** 18n;

export async function fundSponsor(
  chain: DemoChain,
  ownerWallet: WalletClient<Transport, typeof anvilChain, Account>,
  { apiRoot, apiKey }: { apiRoot: string; apiKey: string },
): Promise<DemoSponsor> {
  const sponsor = { walletAddress: chain.owner.address, chainId: chain.chainId };
  const query = `walletAddress=${sponsor.walletAddress}&chainId=${sponsor.chainId}`;
  const before = await api(apiRoot, apiKey, "GET", `/api/v3/sponsorship/balance?${query}`);
  if (before.status !== 200) throw new Error(`reading the demo sponsor's balance: ${before.status} ${before.text}`);
  const depositNow = BigInt(String(before.body.availableWei)) < SPONSOR_DEPOSIT / 2n;
  if (depositNow) {
    const txHash = await ownerWallet.sendTransaction({ to: chain.vault, value: SPONSOR_DEPOSIT });
    await createPublicClient({ chain: anvilChain, transport: http(chain.rpcUrl), pollingInterval: 50 }).waitForTransactionReceipt({ hash: txHash });
    const recorded = await api(apiRoot, apiKey, "POST", "/api/v3/sponsorship/deposits/record", { ...sponsor, txHash });
    if (recorded.status !== 201) throw new Error(`recording the demo sponsor's deposit: ${recorded.status} ${recorded.text}`);
  }
  const saved = await api(apiRoot, apiKey, "POST", "/api/v3/sponsorship/settings", {
    ...sponsor,
    enabledOperations: ["check_in", "nft_mint", "venue_gasless"],
    // A venue relay must name its contract: the demo collection is the chain's one contract.
    allowedTargets: [chain.collectionAddress],
  });
  if (saved.status !== 200) throw new Error(`saving the demo sponsor's settings: ${saved.status} ${saved.text}`);
  const after = await api(apiRoot, apiKey, "GET", `/api/v3/sponsorship/balance?${query}`);
  return { walletAddress: sponsor.walletAddress, availableWei: String(after.body.availableWei), depositedNow: depositNow };
}

interface CollectionBody {
  id: string;
  chainId: number;
  address: string;
  pricing: string;
  mintPrice: string | null;
  paymentToken: string | null;
}

/**
 * Registers the collection (POST /api/v3/nft-collection). Registered by an earlier start (the
 * address is the same on every fresh anvil): that registration, if it is the caller's with the same terms.
 */
export async function registerCollection(chain: DemoChain, apiRoot: string, apiKey: string): Promise<{ id: string; registeredNow: boolean }> {
  const created = await api(apiRoot, apiKey, "POST", "/api/v3/nft-collection", {
    chainId: chain.chainId,
    address: chain.collectionAddress,
    pricing: "static",
    mintPrice: String(DEMO_PRICE),
    paymentToken: null,
  });
  if (created.status === 201) return { id: String(created.body.id), registeredNow: true };
  if (created.status !== 409 || created.body.code !== "collection_already_registered") {
    throw new Error(`registering the demo collection: ${created.status} ${created.text}`);
  }
  const listed = await api(apiRoot, apiKey, "GET", "/api/v3/nft-collection");
  const items = (listed.body.items ?? []) as CollectionBody[];
  const mine = items.find((item) => item.chainId === chain.chainId && getAddress(item.address) === chain.collectionAddress);
  if (!mine) throw new DemoUnavailable(`${chain.collectionAddress} on chain ${chain.chainId} is registered by another user`);
  if (mine.pricing !== "static" || mine.mintPrice !== String(DEMO_PRICE) || mine.paymentToken !== null) {
    throw new DemoUnavailable(`${chain.collectionAddress} is registered with other terms (${mine.pricing}, ${mine.mintPrice}); ` +
      "the demo needs static pricing at 0.01 ETH");
  }
  return { id: mine.id, registeredNow: false };
}
