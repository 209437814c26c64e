// A test file's checkout world: its own database and anvil, the app configured for that chain, and
// helpers to link wallets, deploy and register collections and create sessions through the API.
import type { Address, HDAccount } from "viem";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { deployCollection, deployTestToken, type CollectionParams } from "../../scripts/lib/contracts.ts";
import { startChain } from "../chain/chain-fixtures.ts";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";

export type CheckoutWorld = Awaited<ReturnType<typeof startCheckoutWorld>>;

export async function startCheckoutWorld(env: Record<string, string> = {}) {
  const chain = await startChain();
  const { anvil } = chain;
  const t: TestContext = await createTestContext({
    EVM_CHAINS: JSON.stringify([{ chainId: anvil.chainId, rpcUrl: anvil.rpcUrl, confirmations: 1 }]),
    ...env,
  });
  const deployer = chain.wallet(anvil.accounts[0]!);

  /** A user with a key of `permissions` and `account`'s address linked on the anvil chain. */
  async function ownerWithWallet(account: HDAccount, permissions: string[] = ["checkout:create", "checkout:retry"]) {
    const user = await t.userWithKey(permissions);
    await linkAddress(t.adminDb, { userId: user.id, address: account.address, chainId: String(anvil.chainId), connector: "injected" });
    return user;
  }

  /** Deploys a reference collection owned by `owner`. */
  const deploy = (owner: Address, params: Partial<CollectionParams> = {}) =>
    deployCollection(deployer, { name: "Tickets", symbol: "TIX", owner, pricing: "dynamic", priceSigner: owner, ...params });

  const deployToken = (decimals: number) => deployTestToken(deployer, { name: "Test USD", symbol: "TUSD", decimals });

  const register = (key: string, json: Record<string, unknown>) =>
    t.call("/api/v3/nft-collection", { method: "POST", key, json: { chainId: anvil.chainId, paymentToken: null, ...json } });

  /** Deploys and registers a dynamic-price (or `params`) collection of `user`, whose wallet is `account`; returns its id. */
  async function registeredCollection(user: UserWithKey, account: HDAccount, json: Record<string, unknown> = { pricing: "dynamic" }) {
    const address = await deploy(account.address);
    const response = await register(user.key, { address, ...json });
    if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string; address: string };
  }

  return { t, chain, anvil, ownerWithWallet, deploy, deployToken, register, registeredCollection, close: async () => {
    await t.close();
    await anvil.stop();
  } };
}

let orderCounter = 0;
/** A unique order reference per call. */
export const newOrderId = () => `order-${Date.now()}-${++orderCounter}`;

/** A valid creation request for `collectionId`; `overrides` replace top-level fields. */
export function sessionRequest(collectionId: string, overrides: Record<string, unknown> = {}) {
  return {
    collectionId,
    externalOrderId: newOrderId(),
    items: [{
      name: "Concert ticket",
      description: "Front row",
      mintPrice: "10000000000000000",
      image: "https://store.example/ticket.png",
      externalProductRef: "sku-1",
      quantity: 1,
    }],
    paymentMethods: ["crypto_wallet"],
    allowedOrigin: "https://store.example",
    webhookUrl: "https://store.example/webhooks/checkout",
    expiresInSeconds: 1800,
    ...overrides,
  };
}

export const createSession = (t: TestContext, key: string, json: unknown) =>
  t.call("/api/v3/checkout/sessions", { method: "POST", key, json });

export const readSession = (t: TestContext, checkoutId: string, headers: Record<string, string> = {}) =>
  t.call(`/api/v3/checkout/sessions/${checkoutId}`, { headers });
