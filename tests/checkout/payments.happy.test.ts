// The hosted page's payment flow end to end on anvil: prepare → the customer's wallet sends the
// prepared transactions → confirm → COMPLETED with the webhook queued; late payments; and the
// reconciler completing a checkout whose page closed before confirming.
import { erc20Abi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutRefFromId } from "../../supabase/functions/_shared/collections/contract.ts";
import { reconcileOnce } from "../../supabase/functions/_shared/checkout/reconciler.ts";
import { expectErrorBody, type UserWithKey } from "../setup/test-context.ts";
import { readSession } from "./checkout-fixtures.ts";
import { PRICE, type PaymentsWorld, type Session, startPaymentsWorld } from "./payments-fixtures.ts";

let w: PaymentsWorld;
let owner: UserWithKey;
let staticCollection: { id: string; address: string };

beforeAll(async () => {
  w = await startPaymentsWorld();
  owner = await w.ownerWithWallet(w.anvil.accounts[1]!);
  staticCollection = await w.payableCollection(owner, w.anvil.accounts[1]!, "static");
});
afterAll(() => w.close());

const customer = () => w.anvil.accounts[3]!;

/** Confirms and expects 200 with the COMPLETED session and its webhook queued; returns the body. */
async function expectCompleted(session: Session, txHash: `0x${string}`) {
  const response = await w.confirm(session, txHash);
  expect(response.status, await response.clone().text()).toBe(200);
  const body = await response.json();
  expect(body).toMatchObject({
    checkoutId: session.checkoutId,
    status: "COMPLETED",
    transactionHash: txHash,
    completedAt: expect.stringMatching(/Z$/),
    tokenIds: [expect.stringMatching(/^\d+$/)],
  });
  const deliveries = await w.deliveries(session.checkoutId);
  expect(deliveries.map((d) => d.event_id)).toEqual([`checkout-completed-${session.checkoutId}`]);
  return body;
}

describe("paying a static-price checkout in the native currency", () => {
  it("prepares mint(payer, checkoutRef) at the price, verifies the mined payment and completes the checkout", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const payment = await w.prepared(session, customer().address);
    expect(payment).toEqual({
      attemptId: expect.stringMatching(/^[0-9a-f]{24}$/),
      chainId: 31337,
      transactions: [{ kind: "mint", to: staticCollection.address, data: expect.stringMatching(/^0x/), value: String(PRICE) }],
      expiresAt: session.expiresAt,
    });
    expect(payment.transactions[0]!.data).toContain(checkoutRefFromId(session.checkoutId).slice(2));

    const txHash = await w.pay(customer(), payment);
    const body = await expectCompleted(session, txHash);
    const [delivery] = await w.deliveries(session.checkoutId);
    expect(delivery!.payload).toMatchObject({
      type: "checkout.completed",
      checkoutId: session.checkoutId,
      transactionHash: txHash,
      amount: String(PRICE),
      paymentToken: null,
      tokenIds: body.tokenIds,
      ownerWallet: customer().address,
    });

    // The page may confirm twice: the same hash answers the same COMPLETED session, nothing queued again.
    const again = await w.confirm(session, txHash);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);
    expect(await w.deliveries(session.checkoutId)).toHaveLength(1);
    const read = await (await readSession(w.t, session.checkoutId, { "X-Checkout-Client-Secret": session.clientSecret })).json();
    expect(read).toMatchObject({ status: "COMPLETED", transactionHash: txHash });
  });

  it("answers 202 confirming while the transaction is not mined, or not confirmed enough", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const unknown = await w.confirm(session, `0x${"12".repeat(32)}`);
    expect(unknown.status).toBe(202);
    expect(await unknown.json()).toMatchObject({ status: "confirming", reason: "receipt_not_found" });

    const txHash = await w.pay(customer(), await w.prepared(session, customer().address));
    // The same database and chain, served by an app that wants 5 confirmations.
    const { createApiApp } = await import("../../supabase/functions/api/app.ts");
    const strict = createApiApp({ config: { ...w.t.config, EVM_CHAINS: w.t.config.EVM_CHAINS.map((c) => ({ ...c, confirmations: 5 })) }, db: w.t.db });
    const response = await strict.request(`/api/v3/checkout/sessions/${session.checkoutId}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-checkout-client-secret": session.clientSecret },
      body: JSON.stringify({ txHash }),
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ status: "confirming", reason: "not_enough_confirmations" });
    await expectCompleted(session, txHash);
  });
});

describe("on Supabase's Edge Runtime", () => {
  const host = globalThis as { EdgeRuntime?: { waitUntil(task: Promise<unknown>): void } };

  it("the confirming request tries the webhook itself after its response (waitUntil), with no dispatcher running", async () => {
    const tasks: Promise<unknown>[] = [];
    host.EdgeRuntime = { waitUntil: (task) => tasks.push(task) };
    try {
      const session = await w.newSession(owner, staticCollection.id);
      const txHash = await w.pay(customer(), await w.prepared(session, customer().address));
      await expectCompleted(session, txHash);
      expect(tasks).toHaveLength(1);
      await Promise.all(tasks);
      // The store's URL does not resolve here: the attempt is what proves the kick ran.
      const [delivery] = await w.t.owner<{ attempts: number }[]>`
        select attempts from checkout.webhook_deliveries where session_id = ${session.checkoutId}`;
      expect(delivery!.attempts).toBe(1);
    } finally {
      delete host.EdgeRuntime;
    }
  });
});

describe("paying in an ERC-20", () => {
  it("prepares the approval of exactly the price to the collection, then the mint without value", async () => {
    const token = await w.deployToken(6);
    const collection = await w.payableCollection(owner, w.anvil.accounts[1]!, "static", token);
    await w.fund(token, customer().address, PRICE);
    const session = await w.newSession(owner, collection.id);
    const shown = await (await readSession(w.t, session.checkoutId, { "X-Checkout-Client-Secret": session.clientSecret })).json();
    expect(shown.paymentToken).toEqual({ address: token, decimals: 6, symbol: "TUSD" });
    const payment = await w.prepared(session, customer().address);
    expect(payment.transactions.map(({ kind, to, value }) => ({ kind, to, value }))).toEqual([
      { kind: "approve", to: token, value: "0" },
      { kind: "mint", to: collection.address, value: "0" },
    ]);
    const txHash = await w.pay(customer(), payment);
    await expectCompleted(session, txHash);
    const [delivery] = await w.deliveries(session.checkoutId);
    expect(delivery!.payload).toMatchObject({ paymentToken: token, amount: String(PRICE) });
    const paid = await w.chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [w.anvil.accounts[1]!.address] });
    expect(paid).toBe(PRICE);
  });
});

describe("paying a dynamic-price checkout", () => {
  it("prepares mintWithVoucher signed by the service for the session's price, valid until the session expires", async () => {
    const collection = await w.payableCollection(owner, w.anvil.accounts[1]!, "dynamic");
    const session = await w.newSession(owner, collection.id, {
      items: [{ name: "Ticket", description: "", mintPrice: "1234567", image: "https://store.example/t.png", externalProductRef: "sku-9", quantity: 1 }],
    });
    const payment = await w.prepared(session, customer().address);
    expect(payment.transactions).toEqual([{ kind: "mint", to: collection.address, data: expect.any(String), value: "1234567" }]);
    const deadline = BigInt(Math.floor(Date.parse(session.expiresAt) / 1000)).toString(16);
    expect(payment.transactions[0]!.data).toContain(deadline);
    const txHash = await w.pay(customer(), payment);
    const body = await expectCompleted(session, txHash);
    expect(body.price).toBe("1234567");
  });
});

describe("expiry", () => {
  /** Moves the session's expiry to now, behind the API's back: it reads EXPIRED from here on. */
  const expireNow = (session: Session) => w.t.owner`update checkout.sessions set expires_at = now() where id = ${session.checkoutId}`;

  it("completes a payment prepared before expiry and mined after it", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const payment = await w.prepared(session, customer().address);
    await expireNow(session);
    const read = await readSession(w.t, session.checkoutId, { "X-Checkout-Client-Secret": session.clientSecret });
    expect((await read.json()).status).toBe("EXPIRED");
    const txHash = await w.pay(customer(), payment);
    await expectCompleted(session, txHash);
  });

  it("starts no new payment after expiry (409 checkout_not_payable)", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    await expireNow(session);
    const body = await expectErrorBody(await w.prepare(session, customer().address), 409, "checkout_not_payable");
    expect(body.details).toEqual({ status: "EXPIRED" });
  });

  it("does not complete an expired checkout for a payer who prepared nothing before expiry (409)", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    // Another wallet prepared; the customer pays with calldata of its own.
    const payment = await w.prepared(session, w.anvil.accounts[4]!.address);
    const { encodeMint } = await import("../../supabase/functions/_shared/collections/contract.ts");
    await expireNow(session);
    const own = { ...payment, transactions: [{ ...payment.transactions[0]!, data: encodeMint({ to: customer().address, checkoutRef: checkoutRefFromId(session.checkoutId) }) }] };
    const txHash = await w.pay(customer(), own);
    await expectErrorBody(await w.confirm(session, txHash), 409, "checkout_not_payable");
  });
});

describe("a customer who paid and closed the page", () => {
  it("gets the checkout completed by the reconciler from the reported transaction", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const payment = await w.prepared(session, customer().address);
    const txHash = await w.pay(customer(), payment);
    const reported = await w.reportTransaction(session, payment.attemptId, txHash);
    expect(reported.status).toBe(202);
    expect(await reported.json()).toEqual({ attemptId: payment.attemptId, txHash });

    const outcome = await reconcileOnce({ config: w.t.config, db: w.t.db });
    expect(outcome.completed).toBe(1);
    const read = await (await readSession(w.t, session.checkoutId, { "X-Checkout-Client-Secret": session.clientSecret })).json();
    expect(read).toMatchObject({ status: "COMPLETED", transactionHash: txHash });
    expect((await w.deliveries(session.checkoutId)).map((d) => d.event_id)).toEqual([`checkout-completed-${session.checkoutId}`]);
    // Nothing left to do; the page coming back and confirming gets the same COMPLETED session.
    expect((await reconcileOnce({ config: w.t.config, db: w.t.db })).completed).toBe(0);
    expect((await w.confirm(session, txHash)).status).toBe(200);
  });
});
