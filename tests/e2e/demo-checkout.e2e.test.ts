// npm start's checkout demo (scripts/lib/demo-checkout.ts) on a test database of its own, with a
// user and key of its own instead of the seed's demo user: anvil + the deployed collection, the
// owner's address linked, the real Deno gateway configured for that anvil, the collection
// registered through the API, the storefront served, a real payment from another dev account, and
// the storefront verifying the webhook the gateway's dispatcher delivers. Then the demo again on
// the same database (a second `npm start`): the same collection, registered once. And what a fresh
// `npm start` configures besides (scripts/lib/local-services.ts): every feature answers, none says
// `*_not_configured`: the jobs function, the sponsorship verifier, a gasless relay paid by the funded
// demo sponsor, and sign-in mail.
import { createServer, type Server } from "node:net";
import { createPublicClient, createWalletClient, type Hex, http } from "viem";
import { anvil as anvilChain } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PRICE, type DemoChain, type DemoSponsor, type DemoStore, DemoUnavailable, startDemoChain } from "../../scripts/lib/demo-checkout.ts";
import { freePort, type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { type LocalServices, startLocalServices } from "../../scripts/lib/local-services.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { sendMail } from "../../supabase/functions/_shared/mail/mailer.ts";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

let t: TestContext;
let user: UserWithKey;
let anvilPort: number;
let storePort: number;
let chain: DemoChain;
let store: DemoStore;
let gateway: GatewayProcess;
let services: LocalServices;
let sponsor: DemoSponsor;
const logged: string[] = [];

beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey(["checkout:create", "checkout:retry", "sponsorship:write"]);
  [anvilPort, storePort] = [await freePort(), await freePort()];
  // The order npm start follows: the chain before the gateway, which reads EVM_CHAINS at start.
  chain = await startDemoChain({ port: anvilPort });
  await chain.linkOwner({ ownerDatabaseUrl: t.url, userId: user.id });
  services = await startLocalServices({}, { mailPort: 0, log: (line) => logged.push(line) });
  gateway = await startGatewayProcess({ DATABASE_URL: t.url, ...chain.gatewayEnv({}), ...services.env }, 60_000);
  store = await chain.openStore({ apiRoot: gateway.url, apiKey: user.key, port: storePort, log: (line) => logged.push(line) });
  sponsor = await chain.fundSponsor({ apiRoot: gateway.url, apiKey: user.key });
}, 120_000);

afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await chain?.stop();
  await services?.stop();
  await t?.close();
});

const pageCall = async (checkoutId: string, secret: string, path: string, json?: unknown) => {
  const response = await fetch(`${gateway.url}/api/v3/checkout/sessions/${checkoutId}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { "x-checkout-client-secret": secret, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: await response.json() };
};

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; store log:\n${logged.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the demo chain", () => {
  it("links dev account #0, the collection's owner, to the user, and names the customer's well-known key", async () => {
    const links = await t.owner`select user_id, address from core.crypto_addresses where chain_id = '31337'`;
    expect(links).toEqual([{ user_id: user.id, address: chain.owner.address }]);
    expect(chain.owner.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(chain.customer).toEqual({
      address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      privateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    });
    // The deployer's first contract on a fresh chain: the same address on every start.
    expect(chain.collectionAddress).toBe("0x5FbDB2315678afecb367f032d93F642f64180aa3");
  });

  it("configures the gateway for anvil as chain 31337 with its vault and relayer, keeping other configured chains and a relayer key", () => {
    const other = { chainId: 84532, rpcUrl: "https://sepolia.base.org", confirmations: 2 };
    const stale = { chainId: 31337, rpcUrl: "http://127.0.0.1:1", confirmations: 1 };
    const env = chain.gatewayEnv({ EVM_CHAINS: JSON.stringify([other, stale]) });
    expect(JSON.parse(env.EVM_CHAINS)).toEqual([
      other,
      { chainId: 31337, rpcUrl: chain.rpcUrl, confirmations: 1, sponsorshipVault: chain.vault },
    ]);
    expect(env.RELAYER_PRIVATE_KEY).toBe(chain.relayer.privateKey);
    const ownKey = `0x${"11".repeat(32)}`;
    expect(chain.gatewayEnv({ RELAYER_PRIVATE_KEY: ownKey }).RELAYER_PRIVATE_KEY).toBe(ownKey);
  });

  it("registers the collection to the user through the API, static at 0.01 ETH", async () => {
    expect(store.registeredNow).toBe(true);
    const rows = await t.owner`select owner_id, address, pricing, mint_price::text, payment_token from checkout.collections`;
    expect(rows).toEqual([{
      owner_id: user.id, address: chain.collectionAddress, pricing: "static", mint_price: String(DEMO_PRICE), payment_token: null,
    }]);
    const listed = await (await fetch(`${gateway.url}/api/v3/nft-collection`, { headers: { "x-api-key": user.key } })).json();
    expect(listed.items.map((item: { id: string }) => item.id)).toEqual([store.collectionId]);
  });

  it("creates a first session for the storefront's origin and webhook endpoint", async () => {
    expect(store.url).toBe(`http://127.0.0.1:${storePort}`);
    expect(store.webhookUrl).toBe(`${store.url}/webhooks/checkout`);
    const { session } = store;
    expect(session.checkoutUrl).toBe(`${gateway.url}/checkout/${session.checkoutId}#clientSecret=${session.clientSecret}`);
    const read = await pageCall(session.checkoutId, session.clientSecret, "");
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: "PENDING", allowedOrigin: store.url, price: String(DEMO_PRICE), chainId: 31337 });
    const [row] = await t.owner`select request->>'webhookUrl' as webhook_url from checkout.sessions where id = ${session.checkoutId}`;
    expect(row!.webhook_url).toBe(store.webhookUrl);

    // The demo checkout URL (the fragment stays in the browser) and its frame-ancestors.
    const page = await fetch(session.checkoutUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain(`frame-ancestors ${store.url}`);
  });

  it("serves the storefront page, which embeds the checkout with the SDK the gateway serves", async () => {
    const response = await fetch(`${store.url}/`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`<script src="${gateway.url}/sdk/v1/eventhub-sdk.js"></script>`);
    expect(html).toContain("EventhubSDK.createPaymentFrame(");
    expect(html).toContain("height: 720px");
    expect(html).toContain(chain.customer.privateKey);
    const sdk = await fetch(`${gateway.url}/sdk/v1/eventhub-sdk.js`);
    expect(sdk.status).toBe(200);
    expect(await sdk.text()).toContain("window.EventhubSDK");
    expect((await fetch(`${store.url}/nothing`)).status).toBe(404);
  });
});

describe("a purchase in the storefront", () => {
  it("is paid from dev account #1 through the API's payment routes, and the store verifies the webhook", async () => {
    // The page's first call: the store's backend creates the session for a new order.
    const created = await fetch(`${store.url}/api/checkout`, { method: "POST" });
    expect(created.status).toBe(201);
    const { checkoutId, clientSecret, externalOrderId } = await created.json();
    expect(externalOrderId).toMatch(/^demo-/);
    expect(checkoutId).not.toBe(store.session.checkoutId);
    expect(await (await fetch(`${store.url}/api/orders/${checkoutId}`)).json()).toEqual({ externalOrderId, paid: false });

    // What the hosted page does embedded in the storefront, with the customer's wallet.
    const prepared = await pageCall(checkoutId, clientSecret, "/payments", { payerAddress: chain.customer.address, embeddingOrigin: store.url });
    expect(prepared.status).toBe(201);
    expect(prepared.body.transactions).toEqual([
      { kind: "mint", to: chain.collectionAddress, data: expect.stringMatching(/^0x/), value: String(DEMO_PRICE) },
    ]);
    const customer = chain.anvil.accounts[1]!;
    const transport = http(chain.rpcUrl);
    const wallet = createWalletClient({ account: customer, chain: anvilChain, transport });
    const publicClient = createPublicClient({ chain: anvilChain, transport, pollingInterval: 50 });
    const [mint] = prepared.body.transactions as { to: Hex; data: Hex; value: string }[];
    const txHash = await wallet.sendTransaction({ to: mint!.to, data: mint!.data, value: BigInt(mint!.value) });
    expect((await publicClient.waitForTransactionReceipt({ hash: txHash })).status).toBe("success");
    expect((await pageCall(checkoutId, clientSecret, `/payments/${prepared.body.attemptId}/transaction`, { txHash })).status).toBe(202);
    const confirmed = await waitFor("the confirmation", async () => {
      const answer = await pageCall(checkoutId, clientSecret, "/confirm", { txHash });
      return answer.status === 202 ? undefined : answer;
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: "COMPLETED", transactionHash: txHash });

    // The gateway's dispatcher delivers the signed webhook to the storefront, which verifies it.
    const line = `[demo store] webhook checkout-completed-${checkoutId} verified: order ${externalOrderId} is paid`;
    await waitFor("the verified webhook", () => (logged.includes(line) ? true : undefined));
    expect(store.verifiedEvents.has(`checkout-completed-${checkoutId}`)).toBe(true);
    expect(await (await fetch(`${store.url}/api/orders/${checkoutId}`)).json()).toEqual({ externalOrderId, paid: true });
  });

  it("refuses a webhook whose signature does not verify", async () => {
    const response = await fetch(`${store.url}/webhooks/checkout`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": "checkout-completed-000000000000000000000000",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      },
      body: JSON.stringify({ type: "checkout.completed" }),
    });
    expect(response.status).toBe(401);
    expect(logged.at(-1)).toBe("[demo store] webhook refused: the signature does not verify");
  });
});

describe("every feature configured, as on a fresh npm start", () => {
  const secretOf = (name: string) => services.env[name]!;

  it("runs the jobs function with the printed secret, and refuses another", async () => {
    const call = (secret: string) => fetch(`${gateway.url}/functions/v1/jobs`, { method: "POST", headers: { "x-jobs-secret": secret } });
    const ran = await call(secretOf("JOBS_SECRET"));
    expect(ran.status).toBe(200);
    expect(await ran.json()).toMatchObject({ relays: expect.any(Object), deliveriesAttempted: expect.any(Number) });
    expect((await call("x".repeat(32))).status).toBe(401);
    expect(services.lines.join("\n")).toContain(secretOf("JOBS_SECRET"));
  });

  it("takes the sponsorship verifier's calls with the printed secret", async () => {
    const verify = (secret: string) => fetch(`${gateway.url}/api/v3/sponsorship/provider/verify`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-provider-verifier-secret": secret },
      body: JSON.stringify({}),
    });
    const answered = await verify(secretOf("SPONSORSHIP_VERIFIER_SECRETS"));
    expect(answered.status).toBe(400); // past the secret, at the body's validation
    expect((await answered.json()).code).toBe("validation_failed");
    expect((await verify("x".repeat(32))).status).toBe(401);
    expect(services.lines.join("\n")).toContain(secretOf("SPONSORSHIP_VERIFIER_SECRETS"));
  });

  it("funds the demo sponsor once with a deposit recorded through the API, and relays a gasless call it pays for", async () => {
    expect(sponsor).toMatchObject({ walletAddress: chain.owner.address, depositedNow: true, availableWei: String(10n ** 18n) });
    const again = await chain.fundSponsor({ apiRoot: gateway.url, apiKey: user.key });
    expect(again).toMatchObject({ depositedNow: false, availableWei: String(10n ** 18n) });

    const accepted = await fetch(`${gateway.url}/api/v3/crypto/evm/venue-gasless`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": user.key },
      body: JSON.stringify({
        walletAddress: chain.owner.address, chainId: chain.chainId, targetAddress: chain.collectionAddress,
        callData: "0x06fdde03", actorAddress: chain.owner.address, // name(): a call that changes nothing
      }),
    });
    expect(accepted.status).toBe(202);
    const { relayId, relayerAddress } = await accepted.json();
    expect(relayerAddress).toBe(chain.relayer.address);
    const mined = await waitFor("the relay mined and charged", async () => {
      const read = await (await fetch(`${gateway.url}/api/v3/crypto/evm/venue-gasless/${relayId}`, { headers: { "x-api-key": user.key } })).json();
      return read.status === "mined" && read.chargedWei ? read : undefined;
    });
    expect(mined.reverted).toBe(false);
  });

  it("delivers sign-in mail to the local mailbox, which prints it", async () => {
    const config = loadConfig({ GATEWAY_DATABASE_URL: "postgres://unused", SMTP_URL: secretOf("SMTP_URL") });
    await sendMail(config, { to: "person@example.com", subject: "Your sign-in code", text: "Your sign-in code is 123456." });
    await waitFor("the printed mail", () => (logged.some((line) => line.includes("Your sign-in code is 123456.")) ? true : undefined));
    expect(services.mailSink!.mails.at(-1)!.to).toEqual(["person@example.com"]);
  });
});

describe("when the demo cannot run", () => {
  it("says that the anvil port is in use instead of using whatever answers there", async () => {
    const holder: Server = createServer();
    const port = await freePort();
    await listenOnLoopback(holder, port);
    try {
      const error = await startDemoChain({ port }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DemoUnavailable);
      expect((error as Error).message).toBe(`port ${port} is in use (set DEMO_ANVIL_PORT to another port)`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe("a second start on the same database", () => {
  it("links and registers nothing twice, reuses the registration and sells on the fresh chain", async () => {
    await chain.stop(); // the storefront and anvil, as Ctrl-C does; the gateway's EVM_CHAINS names the same port
    expect(await fetch(`${store.url}/`).then(() => "up", () => "down")).toBe("down");
    chain = await startDemoChain({ port: anvilPort });
    await chain.linkOwner({ ownerDatabaseUrl: t.url, userId: user.id });
    const again = await chain.openStore({ apiRoot: gateway.url, apiKey: user.key, port: storePort, log: (line) => logged.push(line) });
    expect(again.registeredNow).toBe(false);
    expect(again.collectionId).toBe(store.collectionId);
    expect(await t.owner`select id from checkout.collections`).toEqual([{ id: store.collectionId }]);
    expect(await t.owner`select id from core.crypto_addresses`).toHaveLength(1);
    store = again;

    const { session } = again;
    expect(session.checkoutId).not.toBe((await t.owner`select id from checkout.sessions order by created_at limit 1`)[0]!.id);
    const prepared = await pageCall(session.checkoutId, session.clientSecret, "/payments", {
      payerAddress: chain.customer.address, embeddingOrigin: again.url,
    });
    expect(prepared.status).toBe(201);
    expect((await fetch(`${again.url}/`)).status).toBe(200);
  });

  it("refuses to take over an address another user has linked", async () => {
    const other = await t.userWithKey();
    const error = await chain.linkOwner({ ownerDatabaseUrl: t.url, userId: other.id }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DemoUnavailable);
    expect((error as Error).message).toContain(`is linked to user ${user.id} on chain 31337`);
  });
});
