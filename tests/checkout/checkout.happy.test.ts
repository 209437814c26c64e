import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretBox } from "../../supabase/functions/_shared/crypto/secret-box.ts";
import { webhookSecretAssociatedData } from "../../supabase/functions/_shared/webhooks/dispatcher.ts";
import type { UserWithKey } from "../setup/test-context.ts";
import { type CheckoutWorld, createSession, readSession, sessionRequest, startCheckoutWorld } from "./checkout-fixtures.ts";

let w: CheckoutWorld;
let owner: UserWithKey;
let collectionId: string;

beforeAll(async () => {
  w = await startCheckoutWorld();
  owner = await w.ownerWithWallet(w.anvil.accounts[1]!);
  collectionId = (await w.registeredCollection(owner, w.anvil.accounts[1]!)).id;
});
afterAll(() => w.close());

describe("registering a collection", () => {
  it("verifies owner() on-chain and stores the collection with its token's decimals (18 for native)", async () => {
    const account = w.anvil.accounts[1]!;
    const address = await w.deploy(account.address, { pricing: "static", staticPrice: 5000n });
    const response = await w.register(owner.key, { address: address.toLowerCase(), pricing: "static", mintPrice: "5000", providerCardChainIds: [31337] });
    expect(response.status).toBe(201);
    const collection = await response.json();
    expect(collection).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      chainId: 31337,
      address,
      pricing: "static",
      mintPrice: "5000",
      paymentToken: null,
      tokenDecimals: 18,
      tokenSymbol: null,
      providerCardChainIds: [31337],
      ownerAddress: account.address,
      createdAt: expect.stringMatching(/Z$/),
    });

    const one = await w.t.call(`/api/v3/nft-collection/${collection.id}`, { key: owner.key });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(collection);
    const list = await (await w.t.call("/api/v3/nft-collection", { key: owner.key })).json();
    expect(list.items.map((c: { id: string }) => c.id)).toEqual([collection.id, collectionId]);
  });

  it("documents the supported collection interface in the OpenAPI document", async () => {
    const document = await (await w.t.call("/api/v3/openapi")).json();
    const description: string = document.paths["/api/v3/nft-collection"].post.description;
    for (const part of ["owner()", "mint(address to, bytes32 checkoutRef)", "mintWithVoucher", "CheckoutMinted", "decimals()"]) {
      expect(description).toContain(part);
    }
  });

  it("reads an ERC-20 payment token's decimals on-chain", async () => {
    const token = await w.deployToken(6);
    const address = await w.deploy(w.anvil.accounts[1]!.address, { paymentToken: token });
    const response = await w.register(owner.key, { address, pricing: "dynamic", paymentToken: token });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ paymentToken: token, tokenDecimals: 6, tokenSymbol: "TUSD" });
  });
});

describe("creating a checkout session", () => {
  it("answers 201 with the session object, and the same request again answers 200 with the same checkout", async () => {
    const request = sessionRequest(collectionId);
    request.items[0]!.mintPrice = "1000000";
    const first = await createSession(w.t, owner.key, request);
    expect(first.status).toBe(201);
    const session = await first.json();
    expect(session).toEqual({
      checkoutId: expect.stringMatching(/^[0-9a-f]{24}$/),
      clientSecret: expect.stringMatching(/^cs_[A-Za-z0-9_-]{43}$/),
      checkoutUrl: `${w.t.config.PUBLIC_API_ROOT}/checkout/${session.checkoutId}#clientSecret=${session.clientSecret}`,
      webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      status: "PENDING",
      expiresAt: expect.stringMatching(/Z$/),
    });
    const lifetime = Date.parse(session.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(1790_000);
    expect(lifetime).toBeLessThanOrEqual(1800_000);

    // The same data with keys in another order and the price as a number is the same request.
    const { items, ...rest } = request;
    const reordered = Object.fromEntries(Object.entries({ ...rest, items: [{ ...items[0], mintPrice: 1000000 }] }).reverse());
    for (const replay of [request, reordered]) {
      const again = await createSession(w.t, owner.key, replay);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(session);
    }
  });

  it("stores the client secret hashed and sealed, and the webhook secret sealed as the dispatcher opens it", async () => {
    const request = sessionRequest(collectionId);
    const session = await (await createSession(w.t, owner.key, request)).json();
    const box = await SecretBox.fromBase64(w.t.config.SECRETS_ENCRYPTION_KEY!);
    const [stored] = await w.t.owner<{ client_secret_hash: Buffer; client_secret_ciphertext: Buffer }[]>`
      select client_secret_hash, client_secret_ciphertext from checkout.sessions where id = ${session.checkoutId}`;
    expect(stored!.client_secret_hash.equals(createHash("sha256").update(session.clientSecret).digest())).toBe(true);
    expect(stored!.client_secret_ciphertext.toString("latin1")).not.toContain(session.clientSecret);
    const [secret] = await w.t.owner<{ secret_ciphertext: Buffer }[]>`
      select secret_ciphertext from checkout.webhook_secrets where owner_id = ${owner.id} and webhook_url = ${request.webhookUrl}`;
    expect(await box.open(secret!.secret_ciphertext, webhookSecretAssociatedData(owner.id, request.webhookUrl))).toBe(session.webhookSecret);
  });

  it("gives one webhook secret per (owner, webhook URL)", async () => {
    const a = await (await createSession(w.t, owner.key, sessionRequest(collectionId))).json();
    const b = await (await createSession(w.t, owner.key, sessionRequest(collectionId))).json();
    const c = await (await createSession(w.t, owner.key, sessionRequest(collectionId, { webhookUrl: "https://store.example/other" }))).json();
    expect(a.webhookSecret).toBe(b.webhookSecret);
    expect(c.webhookSecret).not.toBe(a.webhookSecret);
    expect(a.clientSecret).not.toBe(b.clientSecret);
  });

  it("accepts the lifetime bounds, the default lifetime and a loopback http origin and webhook outside production", async () => {
    for (const expiresInSeconds of [300, 86_400]) {
      expect((await createSession(w.t, owner.key, sessionRequest(collectionId, { expiresInSeconds }))).status).toBe(201);
    }
    const { expiresInSeconds: _, ...withoutLifetime } = sessionRequest(collectionId, {
      allowedOrigin: "http://127.0.0.1:5173",
      webhookUrl: "http://localhost:8080/hook",
    });
    const response = await createSession(w.t, owner.key, withoutLifetime);
    expect(response.status).toBe(201);
    const lifetime = Date.parse((await response.json()).expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(1790_000);
  });
});

describe("reading a session with its client secret", () => {
  it("answers the client-safe session, never the webhook URL, the order id or a secret", async () => {
    const request = sessionRequest(collectionId, { paymentMethods: ["crypto_wallet"] });
    const session = await (await createSession(w.t, owner.key, request)).json();
    const response = await readSession(w.t, session.checkoutId, { "X-Checkout-Client-Secret": session.clientSecret });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = await response.json();
    expect(body).toEqual({
      checkoutId: session.checkoutId,
      status: "PENDING",
      expiresAt: session.expiresAt,
      item: request.items[0],
      price: "10000000000000000",
      paymentToken: { address: null, decimals: 18, symbol: null },
      chainId: 31337,
      collectionAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      pricing: "dynamic",
      paymentMethods: ["crypto_wallet"],
      allowedOrigin: "https://store.example",
      transactionHash: null,
      completedAt: null,
      failureReason: null,
    });
    const text = JSON.stringify(body);
    for (const secret of [session.clientSecret, session.webhookSecret, request.webhookUrl, request.externalOrderId]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe("webhook retry and the delivery log", () => {
  it("queues another delivery of the same event for a COMPLETED checkout and shows every delivery with its attempts", async () => {
    const session = await (await createSession(w.t, owner.key, sessionRequest(collectionId))).json();
    const id = session.checkoutId as string;
    // Completed behind the API's back (payment is not under test), with one failed delivery.
    await w.t.owner`update checkout.sessions set status = 'COMPLETED', tx_hash = ${`0x${"ab".repeat(32)}`}, completed_at = now() where id = ${id}`;
    const [delivery] = await w.t.owner<{ id: string }[]>`
      insert into checkout.webhook_deliveries (event_id, session_id, owner_id, webhook_url, payload, status, attempts, last_status_code)
      values (${`checkout-completed-${id}`}, ${id}, ${owner.id}, 'https://store.example/webhooks/checkout', '{}', 'failed', 1, 500)
      returning id`;
    await w.t.owner`insert into checkout.webhook_attempts (delivery_id, status_code, error) values (${delivery!.id}, 500, 'HTTP 500')`;

    const retried = await w.t.call(`/api/v3/checkout/sessions/${id}/webhook/retry`, { method: "POST", key: owner.key });
    expect(retried.status).toBe(202);
    const queued = await retried.json();
    expect(queued).toMatchObject({ eventId: `checkout-completed-${id}`, status: "pending", attemptCount: 0, deliveredAt: null });
    // A second retry while that one waits joins it.
    const again = await w.t.call(`/api/v3/checkout/sessions/${id}/webhook/retry`, { method: "POST", key: owner.key });
    expect((await again.json()).deliveryId).toBe(queued.deliveryId);

    const log = await w.t.call(`/api/v3/checkout/sessions/${id}/webhook/deliveries`, { key: owner.key });
    expect(log.status).toBe(200);
    const { items } = await log.json();
    expect(items).toEqual([
      expect.objectContaining({ deliveryId: delivery!.id, status: "failed", attempts: [{ attemptedAt: expect.stringMatching(/Z$/), statusCode: 500, error: "HTTP 500" }] }),
      expect.objectContaining({ deliveryId: queued.deliveryId, status: "pending", attempts: [] }),
    ]);
  });

  it("the log of a checkout with no delivery yet is empty", async () => {
    const session = await (await createSession(w.t, owner.key, sessionRequest(collectionId))).json();
    const log = await w.t.call(`/api/v3/checkout/sessions/${session.checkoutId}/webhook/deliveries`, { key: owner.key });
    expect(log.status).toBe(200);
    expect(await log.json()).toEqual({ items: [] });
  });
});
