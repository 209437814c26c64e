// `npm start`'s checkout demo ("Try it locally"): anvil with the reference NFT
// collection deployed by dev account #0, that account linked to the demo user, the collection
// registered through the API like an integrator would, and a tiny storefront on another loopback
// origin that embeds the hosted checkout with the SDK and verifies the checkout webhook.
// Runs under Deno (npm start) and Node (vitest): node: APIs only.
//
// Three steps, because the gateway reads EVM_CHAINS when it starts:
//   const chain = await startDemoChain({ port });          anvil + deployment (no database needed)
//   await chain.linkOwner({ ownerDatabaseUrl, userId });   the demo user owns the deployer's address
//   ...start the gateway with { ...env, ...chain.gatewayEnv(env) }...
//   const store = await chain.openStore({ apiRoot, apiKey, port });   register, storefront, a first session
//   await chain.fundSponsor({ apiRoot, apiKey });          the owner's address sponsors relays
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { type Account, type Address, createPublicClient, createTestClient, createWalletClient, formatEther, getAddress, type HDAccount, http, toHex, type Transport, type WalletClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { anvil as anvilChain } from "viem/chains";
import { type Anvil, startAnvil } from "./anvil.ts";
import { deployCollection } from "./contracts.ts";
import { REPO_ROOT } from "./local-postgres.ts";

export const DEMO_ANVIL_PORT = 8545;
export const DEMO_STOREFRONT_PORT = 54324;
/** The demo collection's static price: 0.01 ETH. */
export const DEMO_PRICE = 10_000_000_000_000_000n;
const DEMO_COLLECTION = { name: "Eventhub Demo Tickets", symbol: "DEMO" } as const;
const ITEM = {
  name: "Demo ticket",
  description: "A ticket NFT minted on your local anvil chain",
  // The page shows any https image and hides one that does not load (offline: a neutral tile).
  image: "https://placehold.co/480x480/png?text=Demo+ticket",
  externalProductRef: "demo-ticket",
} as const;
const WEBHOOK_PATH = "/webhooks/checkout";

/** The demo cannot run (port taken, no anvil binary, address linked to someone else...); `npm start` goes on without it. */
export class DemoUnavailable extends Error {}

export interface DemoAccount {
  address: Address;
  /** anvil's published dev key (from the well-known "test test ... junk" mnemonic): never use it for real funds. */
  privateKey: `0x${string}`;
}

export interface DemoSession {
  checkoutId: string;
  clientSecret: string;
  checkoutUrl: string;
  externalOrderId: string;
}

export interface DemoStore {
  /** The storefront's origin, the sessions' allowedOrigin, e.g. http://127.0.0.1:54324 */
  url: string;
  webhookUrl: string;
  collectionId: string;
  /** Whether this start registered the collection (false: it was registered by an earlier start). */
  registeredNow: boolean;
  /** The session created at start, to open directly. */
  session: DemoSession;
  /** Creates a session for a new order, as the storefront's backend does on every page load. */
  newSession(): Promise<DemoSession>;
  /** Event ids whose webhook verified. */
  verifiedEvents: ReadonlySet<string>;
  stop(): Promise<void>;
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

export interface DemoSponsor {
  walletAddress: Address;
  availableWei: string;
  depositedNow: boolean;
}

export interface OpenStoreOptions {
  /** The gateway's root, e.g. http://127.0.0.1:54321 */
  apiRoot: string;
  /** An API key of the user `linkOwner` linked, with checkout:create. */
  apiKey: string;
  port?: number;
  /** Console lines of the storefront; console.log by default. */
  log?: (line: string) => void;
}

const demoAccount = (account: HDAccount): DemoAccount => ({
  address: account.address,
  privateKey: toHex(account.getHdKey().privateKey!),
});

/** Whether a TCP port is free on loopback (bound, then released). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

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

/** Links `address` to `userId` on `chainId` unless it already is; refuses when another user has it. */
async function linkAddress(ownerDatabaseUrl: string, userId: string, address: Address, chainId: number): Promise<void> {
  const sql = postgres(ownerDatabaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ user_id: string }[]>`
      with inserted as (
        insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
        values (${userId}, ${address}, ${String(chainId)}, 'injected', 'operator')
        on conflict (chain_id, lower(address)) do nothing
        returning user_id
      )
      select user_id from inserted
      union all
      select user_id from core.crypto_addresses where chain_id = ${String(chainId)} and lower(address) = lower(${address})
      limit 1`;
    if (row?.user_id !== userId) {
      throw new DemoUnavailable(`${address} is linked to user ${row?.user_id} on chain ${chainId}, not to the demo user ${userId}`);
    }
  } finally {
    await sql.end();
  }
}

async function api(apiRoot: string, apiKey: string, method: string, path: string, json?: unknown) {
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

async function fundSponsor(
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
async function registerCollection(chain: DemoChain, apiRoot: string, apiKey: string): Promise<{ id: string; registeredNow: boolean }> {
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

async function readBody(request: IncomingMessage, limit = 256 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const json = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));

/** Registers the collection, serves the storefront and creates the first session. */
async function openStore(chain: DemoChain, options: OpenStoreOptions): Promise<DemoStore> {
  const apiRoot = options.apiRoot.replace(/\/+$/, "");
  const port = options.port ?? DEMO_STOREFRONT_PORT;
  const log = options.log ?? ((line: string) => console.log(line));
  const origin = `http://127.0.0.1:${port}`;
  const webhookUrl = `${origin}${WEBHOOK_PATH}`;
  if (!(await portIsFree(port))) throw new DemoUnavailable(`storefront port ${port} is in use (set DEMO_STOREFRONT_PORT to another port)`);

  const { id: collectionId, registeredNow } = await registerCollection(chain, apiRoot, options.apiKey);

  // The backend's order book: what a real store keeps in its database.
  const orders = new Map<string, { externalOrderId: string; webhookSecret: string; paid: boolean }>();
  const secrets = new Set<string>(); // one per (account, webhook URL), so in practice just one
  const verifiedEvents = new Set<string>();

  async function newSession(): Promise<DemoSession> {
    const externalOrderId = `demo-${Date.now()}-${randomBytes(4).toString("hex")}`;
    const created = await api(apiRoot, options.apiKey, "POST", "/api/v3/checkout/sessions", {
      collectionId,
      externalOrderId,
      items: [{ ...ITEM, mintPrice: String(DEMO_PRICE), quantity: 1 }],
      paymentMethods: ["crypto_wallet"],
      allowedOrigin: origin,
      webhookUrl,
      expiresInSeconds: 3600,
    });
    if (created.status !== 201) throw new Error(`creating a demo checkout session: ${created.status} ${created.text}`);
    const { checkoutId, clientSecret, checkoutUrl, webhookSecret } = created.body as Record<string, string>;
    orders.set(checkoutId!, { externalOrderId, webhookSecret: webhookSecret!, paid: false });
    secrets.add(webhookSecret!);
    return { checkoutId: checkoutId!, clientSecret: clientSecret!, checkoutUrl: checkoutUrl!, externalOrderId };
  }

  // Created before the storefront listens: its checkoutUrl tells where the checkout (and the SDK) is served.
  const session = await newSession();
  const checkoutOrigin = new URL(session.checkoutUrl).origin;
  const page = storefrontPage({ checkoutOrigin, chain, price: `${formatEther(DEMO_PRICE)} ETH` });

  async function receiveWebhook(request: IncomingMessage, response: ServerResponse) {
    const body = await readBody(request);
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    // Verified before anything in it is believed; the library also refuses old timestamps (replays).
    const verified = [...secrets].some((secret) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    if (!verified) {
      log(`[demo store] webhook refused: the signature does not verify`);
      response.writeHead(401).end();
      return;
    }
    const eventId = headers["webhook-id"]!;
    const again = verifiedEvents.has(eventId);
    verifiedEvents.add(eventId);
    const order = orders.get(eventId.replace(/^checkout-completed-/, ""));
    if (order) order.paid = true;
    log(`[demo store] webhook ${eventId} verified${again ? " (again)" : ""}${order ? `: order ${order.externalOrderId} is paid` : ""}`);
    response.writeHead(204).end();
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = new URL(request.url ?? "/", origin).pathname;
    if (request.method === "GET" && path === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(page);
    } else if (request.method === "POST" && path === "/api/checkout") {
      // The storefront's backend: a new order per page load, a session for it with the API key,
      // and only { checkoutId, clientSecret } to the browser (the webhook secret stays here).
      const created = await newSession();
      json(response, 201, { checkoutId: created.checkoutId, clientSecret: created.clientSecret, externalOrderId: created.externalOrderId });
    } else if (request.method === "GET" && path.startsWith("/api/orders/")) {
      const order = orders.get(path.slice("/api/orders/".length));
      if (!order) json(response, 404, { error: "no such order" });
      else json(response, 200, { externalOrderId: order.externalOrderId, paid: order.paid });
    } else if (request.method === "POST" && path === WEBHOOK_PATH) {
      await receiveWebhook(request, response);
    } else {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      log(`[demo store] ${request.method} ${request.url} failed: ${error instanceof Error ? error.message : error}`);
      if (!response.headersSent) json(response, 500, { error: "the demo store failed; see the npm start console" });
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new DemoUnavailable(`storefront port ${port}: ${error.message}`)));
    server.listen(port, "127.0.0.1", () => resolve());
  });

  let stopped = false;
  return {
    url: origin,
    webhookUrl,
    collectionId,
    registeredNow,
    session,
    newSession,
    verifiedEvents,
    async stop() {
      if (stopped) return;
      stopped = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The storefront's one page: a cart, the embedded checkout (720 px) and what the checkout tells the page. */
function storefrontPage({ checkoutOrigin, chain, price }: { checkoutOrigin: string; chain: DemoChain; price: string }): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo store: Eventhub checkout</title>
<style>
  body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: #1d2433; background: #f4f5f8; }
  header { padding: 16px 24px; background: #1d2433; color: #fff; }
  header h1 { margin: 0; font-size: 20px; }
  main { display: flex; flex-wrap: wrap; gap: 24px; padding: 24px; }
  /* min(): on a phone both columns shrink to the viewport instead of overflowing it. */
  #checkout { flex: 1 1 min(420px, 100%); max-width: 560px; height: 720px; background: #fff; border-radius: 8px; overflow: hidden; }
  aside { flex: 1 1 min(320px, 100%); min-width: 0; }
  code { font-size: 13px; word-break: break-all; }
  #events li { margin-bottom: 6px; overflow-wrap: anywhere; }
  .paid { color: #0a7a3e; font-weight: 600; }
</style></head>
<body>
<header><h1>Demo store</h1>One <b>${escape(ITEM.name)}</b> for ${escape(price)} on Anvil (chain ${chain.chainId})</header>
<main>
  <div id="checkout"></div>
  <aside>
    <h2>Pay with an anvil dev account</h2>
    <p>Add the network <code>${escape(chain.rpcUrl)}</code> (chain id ${chain.chainId}) to your wallet and import
      dev account #1, <code>${escape(chain.customer.address)}</code>, with anvil's published private key
      <code>${escape(chain.customer.privateKey)}</code> (public knowledge: never send real funds to it).</p>
    <h2>What the checkout tells this page</h2>
    <ol id="events"></ol>
  </aside>
</main>
<script src="${escape(checkoutOrigin)}/sdk/v1/eventhub-sdk.js"></script>
<script>
(async () => {
  const CHECKOUT_ORIGIN = ${JSON.stringify(checkoutOrigin)};
  const events = document.getElementById("events");
  const show = (text, className) => {
    const item = document.createElement("li");
    item.textContent = new Date().toLocaleTimeString() + "  " + text;
    if (className) item.className = className;
    events.append(item);
  };
  // The backend creates a session for a new order; the browser gets its id and client secret only.
  const answer = await fetch("/api/checkout", { method: "POST" });
  if (!answer.ok) return show("creating the checkout failed: " + answer.status + " " + await answer.text());
  const { checkoutId, clientSecret, externalOrderId } = await answer.json();
  show("order " + externalOrderId + ": checkout " + checkoutId);
  const { frame } = EventhubSDK.createPaymentFrame({
    el: document.getElementById("checkout"),
    params: { target: EventhubSDK.PaymentTarget.Checkout, checkoutId, clientSecret, checkoutOrigin: CHECKOUT_ORIGIN },
  });
  let waiting = false;
  window.addEventListener("message", async (event) => {
    // Both checks: from the checkout's origin, and from our frame.
    if (!EventhubSDK.isPaymentEvent(event, CHECKOUT_ORIGIN) || event.source !== frame.contentWindow) return;
    show(event.data.type + (event.data.payload ? " " + JSON.stringify(event.data.payload) : ""));
    if (event.data.type !== EventhubSDK.PaymentEvent.PaymentSuccess || waiting) return;
    // A browser message is for the UI only: the order is paid when the signed webhook arrived.
    waiting = true;
    show("waiting for the signed webhook…");
    for (let i = 0; i < 120; i++) {
      const order = await (await fetch("/api/orders/" + checkoutId)).json();
      if (order.paid) return show("webhook verified: order " + order.externalOrderId + " is paid", "paid");
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    show("no webhook yet: see the npm start console");
  });
})();
</script>
</body></html>
`;
}
