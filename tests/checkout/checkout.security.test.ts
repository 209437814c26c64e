import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey, PRODUCTION_REQUIREMENTS } from "../setup/test-context.ts";
import { type CheckoutWorld, createSession, readSession, sessionRequest, startCheckoutWorld } from "./checkout-fixtures.ts";

// A second configured chain whose RPC endpoint never answers (port 9 on loopback: discard, closed).
const DEAD_CHAIN_ID = 1337;

let w: CheckoutWorld;
let owner: UserWithKey;
let other: UserWithKey;
let collectionId: string;
let staticCollectionId: string;

beforeAll(async () => {
  w = await startCheckoutWorld();
  owner = await w.ownerWithWallet(w.anvil.accounts[1]!);
  other = await w.ownerWithWallet(w.anvil.accounts[2]!);
  collectionId = (await w.registeredCollection(owner, w.anvil.accounts[1]!)).id;
  staticCollectionId = (await w.registeredCollection(owner, w.anvil.accounts[1]!, { pricing: "static", mintPrice: "5000" })).id;
});
afterAll(() => w.close());

describe("registering a collection", () => {
  it("refuses a contract whose owner() is not one of the caller's linked addresses (403), on that chain", async () => {
    const address = await w.deploy(w.anvil.accounts[2]!.address);
    const body = await expectErrorBody(await w.register(owner.key, { address, pricing: "dynamic" }), 403, "collection_not_owned");
    expect(body.details).toEqual({ owner: w.anvil.accounts[2]!.address, chainId: 31337 });
    expect(await w.t.owner`select 1 from checkout.collections where lower(address) = lower(${address})`).toHaveLength(0);
  });

  it("counts only addresses linked on the collection's own chain", async () => {
    const account = w.anvil.accounts[7]!;
    const elsewhere = await w.t.userWithKey();
    await linkAddress(w.t.adminDb, { userId: elsewhere.id, address: account.address, chainId: "1", connector: "injected" });
    const address = await w.deploy(account.address);
    await expectErrorBody(await w.register(elsewhere.key, { address, pricing: "dynamic" }), 403, "collection_not_owned");
  });

  it("refuses a chain the service is not configured for (400 naming the configured ones)", async () => {
    const address = await w.deploy(w.anvil.accounts[1]!.address);
    const body = await expectErrorBody(await w.register(owner.key, { address, pricing: "dynamic", chainId: 8453 }), 400, "chain_not_supported");
    expect(body.details).toEqual({ chainId: 8453, supportedChainIds: [31337] });
  });

  it("refuses an address without a contract, or a contract without owner() (400 not_a_collection)", async () => {
    const eoa = w.anvil.accounts[3]!.address;
    await expectErrorBody(await w.register(owner.key, { address: eoa, pricing: "dynamic" }), 400, "not_a_collection");
    const token = await w.deployToken(6);
    await expectErrorBody(await w.register(owner.key, { address: token, pricing: "dynamic" }), 400, "not_a_collection");
  });

  it("refuses a payment token without decimals() (400 invalid_payment_token)", async () => {
    const address = await w.deploy(w.anvil.accounts[1]!.address);
    const notAToken = w.anvil.accounts[4]!.address;
    await expectErrorBody(await w.register(owner.key, { address, pricing: "dynamic", paymentToken: notAToken }), 400, "invalid_payment_token");
  });

  it("registers a contract once, whoever asks again (409 collection_already_registered)", async () => {
    const address = await w.deploy(w.anvil.accounts[1]!.address);
    expect((await w.register(owner.key, { address, pricing: "dynamic" })).status).toBe(201);
    await expectErrorBody(await w.register(owner.key, { address: address.toLowerCase(), pricing: "dynamic" }), 409, "collection_already_registered");
  });

  it("requires mintPrice for static pricing only, and a valid checksum", async () => {
    const address = await w.deploy(w.anvil.accounts[1]!.address);
    await expectErrorBody(await w.register(owner.key, { address, pricing: "static" }), 400, "validation_failed");
    await expectErrorBody(await w.register(owner.key, { address, pricing: "dynamic", mintPrice: "1" }), 400, "validation_failed");
    const badChecksum = address.slice(0, 2) + [...address.slice(2)].map((ch) => (/[a-f]/.test(ch) ? ch.toUpperCase() : /[A-F]/.test(ch) ? ch.toLowerCase() : ch)).join("");
    if (badChecksum !== address && /[a-fA-F]/.test(address.slice(2))) {
      await expectErrorBody(await w.register(owner.key, { address: badChecksum, pricing: "dynamic" }), 400, "validation_failed");
    }
  });

  it("does not show another owner's collection (404), nor list it", async () => {
    await expectErrorBody(await w.t.call(`/api/v3/nft-collection/${collectionId}`, { key: other.key }), 404, "not_found");
    const list = await (await w.t.call("/api/v3/nft-collection", { key: other.key })).json();
    expect(list.items).toEqual([]);
  });
});

describe("a chain whose RPC fails", () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext({ EVM_CHAINS: JSON.stringify([{ chainId: DEAD_CHAIN_ID, rpcUrl: "http://127.0.0.1:9", confirmations: 1 }]) });
  });
  afterAll(() => t.close());

  it("answers 502 chain_unavailable, not 400: the request may succeed later", async () => {
    const user = await t.userWithKey();
    const response = await t.call("/api/v3/nft-collection", {
      method: "POST",
      key: user.key,
      json: { chainId: DEAD_CHAIN_ID, address: w.anvil.accounts[1]!.address, pricing: "dynamic" },
    });
    await expectErrorBody(response, 502, "chain_unavailable");
  });
});

describe("creating a session", () => {
  it("needs checkout:create (403 naming it), before anything is created", async () => {
    const reader = await w.ownerWithWallet(w.anvil.accounts[5]!, ["checkout:retry"]);
    const body = await expectErrorBody(await createSession(w.t, reader.key, sessionRequest(collectionId)), 403, "missing_permission");
    expect(body.message).toContain("checkout:create");
  });

  it("answers 404 for another owner's collection, like an unknown one", async () => {
    await expectErrorBody(await createSession(w.t, other.key, sessionRequest(collectionId)), 404, "collection_not_found");
    await expectErrorBody(await createSession(w.t, other.key, sessionRequest("0123456789abcdef01234567")), 404, "collection_not_found");
  });

  it("refuses provider_card where the collection has not enabled it", async () => {
    const response = await createSession(w.t, owner.key, sessionRequest(collectionId, { paymentMethods: ["crypto_wallet", "provider_card"] }));
    await expectErrorBody(response, 400, "payment_method_not_enabled");
  });

  it("a static-price collection accepts its mint price only", async () => {
    const request = sessionRequest(staticCollectionId);
    request.items[0]!.mintPrice = "4999";
    const body = await expectErrorBody(await createSession(w.t, owner.key, request), 400, "price_not_allowed");
    expect(body.details).toEqual({ mintPrice: "5000" });
    request.items[0]!.mintPrice = "5000";
    expect((await createSession(w.t, owner.key, request)).status).toBe(201);
  });

  it("answers 409 naming the differing fields when an order id is reused with other data", async () => {
    const request = sessionRequest(collectionId);
    expect((await createSession(w.t, owner.key, request)).status).toBe(201);
    const changed = { ...request, allowedOrigin: "https://other.example", items: [{ ...request.items[0], mintPrice: "1" }] };
    const body = await expectErrorBody(await createSession(w.t, owner.key, changed), 409, "idempotency_conflict");
    expect(body.details).toEqual({ differingFields: ["allowedOrigin", "items", "price"] });
    // Another owner may use the same order id: idempotency is per owner.
    const theirs = await w.registeredCollection(other, w.anvil.accounts[2]!);
    expect((await createSession(w.t, other.key, { ...request, collectionId: theirs.id })).status).toBe(201);
  });

  it.each([
    ["two items", (r: ReturnType<typeof sessionRequest>) => ({ ...r, items: [r.items[0], r.items[0]] })],
    ["no item", (r: ReturnType<typeof sessionRequest>) => ({ ...r, items: [] })],
    ["quantity 2", (r: ReturnType<typeof sessionRequest>) => ({ ...r, items: [{ ...r.items[0], quantity: 2 }] })],
    ["an http image", (r: ReturnType<typeof sessionRequest>) => ({ ...r, items: [{ ...r.items[0], image: "http://store.example/t.png" }] })],
    ["a negative price", (r: ReturnType<typeof sessionRequest>) => ({ ...r, items: [{ ...r.items[0], mintPrice: "-1" }] })],
    ["a fractional price", (r: ReturnType<typeof sessionRequest>) => ({ ...r, items: [{ ...r.items[0], mintPrice: 1.5 }] })],
    ["an unknown payment method", (r: ReturnType<typeof sessionRequest>) => ({ ...r, paymentMethods: ["cash"] })],
    ["no payment method", (r: ReturnType<typeof sessionRequest>) => ({ ...r, paymentMethods: [] })],
    ["a lifetime under 300 s", (r: ReturnType<typeof sessionRequest>) => ({ ...r, expiresInSeconds: 299 })],
    ["a lifetime over a day", (r: ReturnType<typeof sessionRequest>) => ({ ...r, expiresInSeconds: 86_401 })],
    ["an unknown field", (r: ReturnType<typeof sessionRequest>) => ({ ...r, currency: "EUR" })],
  ])("refuses %s (400)", async (_, change) => {
    await expectErrorBody(await createSession(w.t, owner.key, change(sessionRequest(collectionId))), 400, "validation_failed");
  });

  it.each([
    "https://*.store.example",
    "*",
    "https://store.example/",
    "https://store.example/shop",
    "https://store.example?x=1",
    "https://user@store.example",
    "https://store.example:443",
    "https://STORE.example",
    "http://store.example",
    "store.example",
    "ftp://store.example",
  ])("refuses the allowedOrigin %s (400 invalid_allowed_origin)", async (allowedOrigin) => {
    await expectErrorBody(await createSession(w.t, owner.key, sessionRequest(collectionId, { allowedOrigin })), 400, "invalid_allowed_origin");
  });

  it.each([
    "http://store.example/hook",
    "ftp://store.example/hook",
    "https://user:pass@store.example/hook",
    "https://store.example/hook#fragment",
    "/hook",
  ])("refuses the webhookUrl %s (400 invalid_webhook_url)", async (webhookUrl) => {
    await expectErrorBody(await createSession(w.t, owner.key, sessionRequest(collectionId, { webhookUrl })), 400, "invalid_webhook_url");
  });
});

describe("in production", () => {
  let t: TestContext;
  let user: UserWithKey;
  let prodCollectionId: string;
  beforeAll(async () => {
    t = await createTestContext({ APP_ENV: "production", ...PRODUCTION_REQUIREMENTS });
    user = await t.userWithKey(["checkout:create"]);
    // Registered behind the API's back: this context has no chain.
    const [row] = await t.owner<{ id: string }[]>`
      insert into checkout.collections (owner_id, chain_id, address, pricing, token_decimals, verified_owner_address)
      values (${user.id}, 31337, '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'dynamic', 18, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
      returning id`;
    prodCollectionId = row!.id;
  });
  afterAll(() => t.close());

  it("accepts a public https webhook and origin", async () => {
    expect((await createSession(t, user.key, sessionRequest(prodCollectionId))).status).toBe(201);
  });

  it("refuses plain http even for loopback", async () => {
    await expectErrorBody(await createSession(t, user.key, sessionRequest(prodCollectionId, { allowedOrigin: "http://localhost:3000" })), 400, "invalid_allowed_origin");
    await expectErrorBody(await createSession(t, user.key, sessionRequest(prodCollectionId, { webhookUrl: "http://127.0.0.1/hook" })), 400, "invalid_webhook_url");
  });

  it.each([
    "https://localhost/hook",
    "https://api.localhost/hook",
    "https://127.0.0.1/hook",
    "https://2130706433/hook", // 127.0.0.1 as one number: the URL parser normalises it
    "https://10.1.2.3/hook",
    "https://172.16.0.1/hook",
    "https://192.168.1.1/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://100.64.0.1/hook",
    "https://0.0.0.0/hook",
    "https://[::1]/hook",
    "https://[::]/hook",
    "https://[fd00::1]/hook",
    "https://[fe80::1]/hook",
    "https://[::ffff:10.0.0.1]/hook",
  ])("refuses the internal webhook target %s", async (webhookUrl) => {
    await expectErrorBody(await createSession(t, user.key, sessionRequest(prodCollectionId, { webhookUrl })), 400, "invalid_webhook_url");
  });
});

describe("reading a session with its client secret", () => {
  let session: { checkoutId: string; clientSecret: string };
  beforeAll(async () => {
    session = await (await createSession(w.t, owner.key, sessionRequest(collectionId))).json();
  });

  /** The parts of an error answer that do not change per request. */
  async function refusal(response: Response) {
    const body = await response.json();
    return { status: response.status, code: body.code, message: body.message, keys: Object.keys(body).sort() };
  }

  it("answers a wrong, a missing or another session's secret exactly like an unknown id", async () => {
    const unknownId = "0123456789abcdef01234567";
    const unknown = await refusal(await readSession(w.t, unknownId, { "X-Checkout-Client-Secret": session.clientSecret }));
    expect(unknown.status).toBe(404);
    expect(unknown.code).toBe("not_found");
    const another = await (await createSession(w.t, owner.key, sessionRequest(collectionId))).json();
    const attempts: Record<string, string>[] = [
      { "X-Checkout-Client-Secret": `cs_${randomBytes(32).toString("base64url")}` },
      { "X-Checkout-Client-Secret": session.clientSecret.slice(0, -1) },
      { "X-Checkout-Client-Secret": another.clientSecret },
      {},
    ];
    for (const headers of attempts) {
      expect(await refusal(await readSession(w.t, session.checkoutId, headers))).toEqual(unknown);
    }
  });

  it("an API key alone, even the owner's, does not authenticate the read", async () => {
    const response = await w.t.call(`/api/v3/checkout/sessions/${session.checkoutId}`, { key: owner.key });
    await expectErrorBody(response, 404, "not_found");
  });
});

describe("webhook retry and the delivery log", () => {
  let pendingId: string;
  beforeAll(async () => {
    pendingId = (await (await createSession(w.t, owner.key, sessionRequest(collectionId))).json()).checkoutId;
  });
  const retry = (id: string, key: string) => w.t.call(`/api/v3/checkout/sessions/${id}/webhook/retry`, { method: "POST", key });

  it("needs checkout:retry (403 naming it)", async () => {
    const creator = await w.ownerWithWallet(w.anvil.accounts[6]!, ["checkout:create"]);
    const body = await expectErrorBody(await retry(pendingId, creator.key), 403, "missing_permission");
    expect(body.message).toContain("checkout:retry");
  });

  it("answers 409 checkout_not_completed for a PENDING checkout", async () => {
    const body = await expectErrorBody(await retry(pendingId, owner.key), 409, "checkout_not_completed");
    expect(body.details).toEqual({ status: "PENDING" });
  });

  it("answers 404 for another owner's checkout, like an unknown one, and queues nothing", async () => {
    await expectErrorBody(await retry(pendingId, other.key), 404, "checkout_not_found");
    await expectErrorBody(await retry("0123456789abcdef01234567", other.key), 404, "checkout_not_found");
    const log = await w.t.call(`/api/v3/checkout/sessions/${pendingId}/webhook/deliveries`, { key: other.key });
    await expectErrorBody(log, 404, "checkout_not_found");
    expect(await w.t.owner`select 1 from checkout.webhook_deliveries where session_id = ${pendingId}`).toHaveLength(0);
  });
});
