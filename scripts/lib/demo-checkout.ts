// `npm start`'s checkout demo ("Try it locally"): anvil with the reference NFT
// collection deployed by dev account #0, that account linked to the demo user, the collection
// registered through the API like an integrator would, and a tiny storefront on another loopback
// origin that embeds the hosted checkout with the SDK and verifies the checkout webhook.
// Runs under Deno (npm start) and Node (vitest): node: APIs only. This file deploys; its parts are in
// demo/: the owner's link (owner-link.ts), the API client (api-client.ts), the storefront
// (storefront.ts, its page in storefront-page.ts) and the fixed terms (terms.ts).
//
// Three steps, because the gateway reads EVM_CHAINS when it starts:
//   const chain = await startDemoChain({ port });          anvil + deployment (no database needed)
//   await chain.linkOwner({ ownerDatabaseUrl, userId });   the demo user owns the deployer's address
//   ...start the gateway with { ...env, ...chain.gatewayEnv(env) }...
//   const store = await chain.openStore({ apiRoot, apiKey, port });   register, storefront, a first session
//   await chain.fundSponsor({ apiRoot, apiKey });          the owner's address sponsors relays
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Address, createTestClient, createWalletClient, type HDAccount, http, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { anvil as anvilChain } from "viem/chains";
import { type Anvil, startAnvil } from "./anvil.ts";
import { deployCollection } from "./contracts.ts";
import { REPO_ROOT } from "./local-postgres.ts";
import { type DemoSponsor, fundSponsor } from "./demo/api-client.ts";
import { linkAddress } from "./demo/owner-link.ts";
import { type DemoStore, openStore, type OpenStoreOptions } from "./demo/storefront.ts";
import { DEMO_ANVIL_PORT, DEMO_COLLECTION, DEMO_PRICE, DemoUnavailable, portIsFree } from "./demo/terms.ts";

export { DEMO_ANVIL_PORT, DEMO_PRICE, DEMO_STOREFRONT_PORT, DemoUnavailable } from "./demo/terms.ts";
export type { DemoSponsor } from "./demo/api-client.ts";
export type { DemoSession, DemoStore, OpenStoreOptions } from "./demo/storefront.ts";

export interface DemoAccount {
  address: Address;
  /** anvil's published dev key (from the well-known "test test ... junk" mnemonic): never use it for real funds. */
  privateKey: `0x${string}`;
}

export interface DemoChain {
  anvil: Anvil;
  rpcUrl: string;
  chainId: number;
  collectionAddress: Address;
  /** Dev account #0: deploys and owns the collection (linked to the demo user). */
  owner: DemoAccount;
  /** Dev account #1: the customer, to import into a browser wallet. */
  customer: DemoAccount;
  /**
   * The gasless relayer's wallet (RELAYER_PRIVATE_KEY): a new key funded with 100 ETH on every start.
   * The database outlives anvil and remembers each relayer's nonces; a new relayer starts at 0 on the
   * new chain as in the database (a reused one would wait forever for nonces the new chain never saw).
   */
  relayer: DemoAccount;
  /** Dev account #9's address stands in for the sponsorship vault: deposits are plain transfers to it. */
  vault: Address;
  /**
   * The gateway's settings for this anvil: `env`'s EVM_CHAINS with this anvil as chain 31337 (with the
   * vault), and the relayer key unless `env` names one.
   */
  gatewayEnv(env?: Record<string, string | undefined>): { EVM_CHAINS: string; RELAYER_PRIVATE_KEY: string };
  /**
   * Makes the owner's address (linked to the user of `apiKey`, see linkOwner) a sponsor of check-ins,
   * mints and venue relays to the collection, with 1 ETH deposited and recorded through the API,
   * unless it already has 0.5 ETH available (the database outlives anvil).
   */
  fundSponsor(options: { apiRoot: string; apiKey: string }): Promise<DemoSponsor>;
  /** Links the owner address to `userId` on chain 31337 (idempotent), as the database owner. */
  linkOwner(options: { ownerDatabaseUrl: string; userId: string }): Promise<void>;
  /** Registers the collection through the API and serves the storefront on `port`. */
  openStore(options: OpenStoreOptions): Promise<DemoStore>;
  /** Stops the storefront (when open) and anvil. */
  stop(): Promise<void>;
}

const demoAccount = (account: HDAccount): DemoAccount => ({
  address: account.address,
  privateKey: toHex(account.getHdKey().privateKey!),
});

/**
 * Starts anvil on `port` and deploys the demo collection (static price DEMO_PRICE in ETH) from dev
 * account #0. Throws DemoUnavailable when the port is taken or anvil is not installed.
 */
export async function startDemoChain(options: { port?: number } = {}): Promise<DemoChain> {
  const port = options.port ?? DEMO_ANVIL_PORT;
  // Not installed on this platform (the anvil package is an optional dependency for linux-amd64).
  if (!existsSync(join(REPO_ROOT, "node_modules/.bin/anvil"))) {
    throw new DemoUnavailable("anvil is not installed (node_modules/.bin/anvil; the package is @foundry-rs/anvil-linux-amd64)");
  }
  // Checked first: startAnvil would take any chain 31337 already answering there for its own.
  if (!(await portIsFree(port))) {
    throw new DemoUnavailable(`port ${port} is in use (set DEMO_ANVIL_PORT to another port)`);
  }
  const anvil = await startAnvil({ port });
  let store: { stop(): Promise<void> } | undefined;
  try {
    const [ownerAccount, customerAccount] = [anvil.accounts[0]!, anvil.accounts[1]!];
    const wallet = createWalletClient({ account: ownerAccount, chain: anvilChain, transport: http(anvil.rpcUrl), pollingInterval: 50 });
    // A fresh chain, so this is always the deployer's first contract: the same address every start.
    const collectionAddress = await deployCollection(wallet, {
      ...DEMO_COLLECTION,
      owner: ownerAccount.address,
      pricing: "static",
      staticPrice: DEMO_PRICE,
    });
    const relayerKey = generatePrivateKey();
    const relayer = { address: privateKeyToAccount(relayerKey).address, privateKey: relayerKey };
    await createTestClient({ mode: "anvil", chain: anvilChain, transport: http(anvil.rpcUrl) })
      .setBalance({ address: relayer.address, value: 100n * 10n ** 18n });
    const chain: DemoChain = {
      anvil,
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      collectionAddress,
      owner: demoAccount(ownerAccount),
      customer: demoAccount(customerAccount),
      relayer,
      vault: anvil.accounts[9]!.address,
      gatewayEnv(env = {}) {
        let chains: { chainId: number }[] = [];
        try {
          const parsed = JSON.parse(env.EVM_CHAINS ?? "[]");
          if (Array.isArray(parsed)) chains = parsed;
        } catch {
          // An invalid EVM_CHAINS is the gateway's to report; the demo chain replaces it.
        }
        const others = chains.filter((entry) => entry?.chainId !== anvil.chainId);
        const demo = { chainId: anvil.chainId, rpcUrl: anvil.rpcUrl, confirmations: 1, sponsorshipVault: chain.vault };
        return { EVM_CHAINS: JSON.stringify([...others, demo]), RELAYER_PRIVATE_KEY: env.RELAYER_PRIVATE_KEY ?? chain.relayer.privateKey };
      },
      fundSponsor: (options) => fundSponsor(chain, wallet, options),
      linkOwner: (link) => linkAddress(link.ownerDatabaseUrl, link.userId, ownerAccount.address, anvil.chainId),
      async openStore(open) {
        const opened = await openStore(chain, open);
        store = opened;
        return opened;
      },
      async stop() {
        await store?.stop();
        await anvil.stop();
      },
    };
    return chain;
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
