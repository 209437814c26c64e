// The hosted page's payment operations refuse: a wrong or missing client secret (like an unknown
// id), an embedding origin other than allowedOrigin, and every transaction that does not pay for
// this checkout (wrong amount, wrong contract, reverted, a hash replayed from another checkout, a
// hash that completed another checkout).
import { type Hex, type HDAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutRefFromId, encodeMint, encodeMintWithVoucher, readVoucherDomain, signMintVoucher } from "../../supabase/functions/_shared/collections/contract.ts";
import { createApiApp } from "../../supabase/functions/api/app.ts";
import { expectErrorBody, type UserWithKey } from "../setup/test-context.ts";
import { PRICE, type PaymentsWorld, serviceSigner, type Session, startPaymentsWorld } from "./payments-fixtures.ts";

let w: PaymentsWorld;
let owner: UserWithKey;
let staticCollection: { id: string; address: Hex };
let dynamicCollection: { id: string; address: Hex };

beforeAll(async () => {
  w = await startPaymentsWorld();
  owner = await w.ownerWithWallet(w.anvil.accounts[1]!);
  staticCollection = await w.payableCollection(owner, w.anvil.accounts[1]!, "static");
  dynamicCollection = await w.payableCollection(owner, w.anvil.accounts[1]!, "dynamic");
});
afterAll(() => w.close());

const customer = () => w.anvil.accounts[3]!;

/** Sends one transaction from `account`, mined; `gas` set skips estimation, so a reverting call is mined too. */
async function send(account: HDAccount, to: Hex, data: Hex, value: bigint, gas?: bigint): Promise<Hex> {
  const hash = await w.chain.wallet(account).sendTransaction({ to, data, value, gas });
  await w.chain.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

describe("the client secret", () => {
  it("a wrong or missing secret answers every operation exactly like an unknown checkout (404 not_found)", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const payment = await w.prepared(session, customer().address);
    const unknown: Session = { ...session, checkoutId: "0123456789abcdef01234567" };
    const hash: Hex = `0x${"ab".repeat(32)}`;
    for (const secret of ["cs_wrong", null]) {
      await expectErrorBody(await w.prepare(session, customer().address, undefined, secret), 404, "not_found");
      await expectErrorBody(await w.reportTransaction(session, payment.attemptId, hash, secret), 404, "not_found");
      await expectErrorBody(await w.confirm(session, hash, secret), 404, "not_found");
    }
    await expectErrorBody(await w.prepare(unknown, customer().address), 404, "not_found");
    await expectErrorBody(await w.reportTransaction(unknown, payment.attemptId, hash), 404, "not_found");
    await expectErrorBody(await w.confirm(unknown, hash), 404, "not_found");
    // Nothing was recorded by the refused calls.
    const attempts = await w.t.owner`select tx_hash from checkout.payment_attempts where session_id = ${session.checkoutId}`;
    expect(attempts).toEqual([{ tx_hash: null }]);
  });

  it("an API key does not authenticate the page's operations", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const response = await w.t.call(`/api/v3/checkout/sessions/${session.checkoutId}/payments`, {
      method: "POST", key: owner.key, json: { payerAddress: customer().address, embeddingOrigin: "https://store.example" },
    });
    await expectErrorBody(response, 404, "not_found");
  });

  it("an attempt of another checkout is not this checkout's (404 payment_attempt_not_found)", async () => {
    const a = await w.newSession(owner, staticCollection.id);
    const b = await w.newSession(owner, staticCollection.id);
    const attemptOfA = (await w.prepared(a, customer().address)).attemptId;
    await expectErrorBody(await w.reportTransaction(b, attemptOfA, `0x${"cd".repeat(32)}`), 404, "payment_attempt_not_found");
  });
});

describe("the embedding origin (SPEC 4.4 rule 5)", () => {
  it("prepares nothing for another origin (403 origin_not_allowed), not even one differing by a trailing slash or case", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    for (const origin of ["https://evil.example", "https://store.example/", "https://STORE.example", "http://store.example"]) {
      await expectErrorBody(await w.prepare(session, customer().address, origin), 403, "origin_not_allowed");
    }
    expect(await w.t.owner`select 1 from checkout.payment_attempts where session_id = ${session.checkoutId}`).toHaveLength(0);
  });

  it("refuses unknown body fields (strict)", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const response = await w.t.call(`/api/v3/checkout/sessions/${session.checkoutId}/payments`, {
      method: "POST",
      headers: { "X-Checkout-Client-Secret": session.clientSecret },
      json: { payerAddress: customer().address, embeddingOrigin: "https://store.example", amount: "1" },
    });
    await expectErrorBody(response, 400, "validation_failed");
  });
});

describe("dynamic pricing without the service's signing key", () => {
  it("answers 400 dynamic_pricing_unavailable and records no attempt", async () => {
    const session = await w.newSession(owner, dynamicCollection.id);
    const app = createApiApp({ config: { ...w.t.config, SERVICE_SIGNER_PRIVATE_KEY: undefined }, db: w.t.db });
    const response = await app.request(`/api/v3/checkout/sessions/${session.checkoutId}/payments`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-checkout-client-secret": session.clientSecret },
      body: JSON.stringify({ payerAddress: customer().address, embeddingOrigin: "https://store.example" }),
    });
    await expectErrorBody(response, 400, "dynamic_pricing_unavailable");
    expect(await w.t.owner`select 1 from checkout.payment_attempts where session_id = ${session.checkoutId}`).toHaveLength(0);
  });
});

describe("transactions that do not pay for the checkout", () => {
  it("wrong amount: a mint with this checkout's reference at another price (400 wrong_amount)", async () => {
    const session = await w.newSession(owner, dynamicCollection.id);
    await w.prepared(session, customer().address);
    // A voucher for half the price, as if the service had signed one for another amount.
    const domain = await readVoucherDomain(w.chain.publicClient, dynamicCollection.address);
    if (!domain.ok) throw new Error(domain.message);
    const voucher = { checkoutRef: checkoutRefFromId(session.checkoutId), to: customer().address, price: PRICE / 2n, deadline: BigInt(Math.floor(Date.now() / 1000) + 600) };
    const data = encodeMintWithVoucher(voucher, await signMintVoucher(serviceSigner, domain.value, voucher));
    const txHash = await send(customer(), dynamicCollection.address, data, PRICE / 2n);
    await expectErrorBody(await w.confirm(session, txHash), 400, "wrong_amount");
  });

  it("wrong contract: a mint with this checkout's reference on another collection (400 wrong_contract)", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    await w.prepared(session, customer().address);
    const other = await w.deploy(w.anvil.accounts[1]!.address, { pricing: "static", staticPrice: PRICE });
    const txHash = await send(customer(), other, encodeMint({ to: customer().address, checkoutRef: checkoutRefFromId(session.checkoutId) }), PRICE);
    await expectErrorBody(await w.confirm(session, txHash), 400, "wrong_contract");
  });

  it("a reverted transaction (400 transaction_reverted)", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const payment = await w.prepared(session, customer().address);
    const mint = payment.transactions[0]!;
    const txHash = await send(customer(), mint.to, mint.data, PRICE - 1n, 300_000n);
    await expectErrorBody(await w.confirm(session, txHash), 400, "transaction_reverted");
    expect((await w.deliveries(session.checkoutId))).toHaveLength(0);
  });

  it("a hash that paid another checkout, replayed on this one (400 wrong_checkout_reference)", async () => {
    const paid = await w.newSession(owner, staticCollection.id);
    const txHash = await w.pay(customer(), await w.prepared(paid, customer().address));
    expect((await w.confirm(paid, txHash)).status).toBe(200);
    const victim = await w.newSession(owner, staticCollection.id);
    await w.prepared(victim, customer().address);
    await expectErrorBody(await w.confirm(victim, txHash), 400, "wrong_checkout_reference");
  });

  it("a hash already recorded on another checkout completes nothing more (409 transaction_already_used)", async () => {
    // One transaction paying two checkouts (a batch) is the real case; here the other checkout's
    // completion is written behind the API's back, and the unique constraint decides.
    const session = await w.newSession(owner, staticCollection.id);
    const txHash = await w.pay(customer(), await w.prepared(session, customer().address));
    const other = await w.newSession(owner, staticCollection.id);
    await w.t.owner`update checkout.sessions set status = 'COMPLETED', tx_hash = ${txHash}, completed_at = now() where id = ${other.checkoutId}`;
    await expectErrorBody(await w.confirm(session, txHash), 409, "transaction_already_used");
    const [row] = await w.t.owner`select status from checkout.sessions where id = ${session.checkoutId}`;
    expect(row!.status).toBe("PENDING");
    expect(await w.deliveries(session.checkoutId)).toHaveLength(0);
  });
});
