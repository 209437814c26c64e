// The reconciler's log search on anvil: a customer whose page closed before the wallet answered
// (no hash reported) still gets the checkout completed from the collection's CheckoutMinted logs;
// a mint of another checkout's reference completes nothing else; and a checkout whose reference a
// mint consumed on other terms (the owner changed the static price) is FAILED, terminal.
// reconcilePass is reconcileOnce answering the log search's counts too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutCollectionAbi } from "../../supabase/functions/_shared/collections/contract.ts";
import { reconcilePass } from "../../supabase/functions/_shared/checkout/reconciler.ts";
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
const services = () => ({ config: w.t.config, db: w.t.db });

const read = async (session: Session) =>
  (await readSession(w.t, session.checkoutId, { "X-Checkout-Client-Secret": session.clientSecret })).json();

const nfts = (checkoutId: string) =>
  w.t.owner<{ token_id: string; owner_address: string }[]>`
    select token_id::text, owner_address from checkout.nfts where session_id = ${checkoutId}`;

describe("a customer whose page closed before the wallet answered (no hash reported)", () => {
  it("gets the checkout completed from the collection's CheckoutMinted logs", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    const txHash = await w.pay(customer(), await w.prepared(session, customer().address));

    const outcome = await reconcilePass(services());
    expect(outcome).toMatchObject({ completed: 1, failed: 0, searched: 1 });
    expect(await read(session)).toMatchObject({ status: "COMPLETED", transactionHash: txHash, failureReason: null });
    expect(await nfts(session.checkoutId)).toEqual([{ token_id: expect.stringMatching(/^\d+$/), owner_address: customer().address }]);
    const [delivery] = await w.deliveries(session.checkoutId);
    expect(delivery).toMatchObject({
      event_id: `checkout-completed-${session.checkoutId}`,
      payload: { transactionHash: txHash, ownerWallet: customer().address, amount: String(PRICE) },
    });
    // Done once: the next pass finds nothing to do, and the page coming back confirms the same.
    expect((await reconcilePass(services())).completed).toBe(0);
    expect((await w.confirm(session, txHash)).status).toBe(200);
  });

  it("does not complete a checkout with a mint of another checkout's reference", async () => {
    const unpaid = await w.newSession(owner, staticCollection.id);
    const paid = await w.newSession(owner, staticCollection.id);
    await w.prepared(unpaid, customer().address);
    const txHash = await w.pay(customer(), await w.prepared(paid, customer().address));

    const outcome = await reconcilePass(services());
    expect(outcome).toMatchObject({ completed: 1, failed: 0 });
    expect(await read(paid)).toMatchObject({ status: "COMPLETED", transactionHash: txHash });
    expect(await read(unpaid)).toMatchObject({ status: "PENDING", transactionHash: null });
    expect(await nfts(unpaid.checkoutId)).toEqual([]);
    expect(await w.deliveries(unpaid.checkoutId)).toEqual([]);
  });

  it("searches the chain's latest logBlockWindow blocks only", async () => {
    const session = await w.newSession(owner, staticCollection.id);
    await w.pay(customer(), await w.prepared(session, customer().address));
    await w.chain.testClient.mine({ blocks: 3 });
    // The mint is 4 blocks deep: a 3-block window does not reach it, the default does.
    expect((await reconcilePass(services(), { logBlockWindow: { [w.anvil.chainId]: 3 } })).completed).toBe(0);
    expect((await read(session)).status).toBe("PENDING");
    expect((await reconcilePass(services())).completed).toBe(1);
    expect((await read(session)).status).toBe("COMPLETED");
  });
});

describe("FAILED: the checkout's reference consumed by a mint that cannot pay for it", () => {
  it("fails the checkout once that mint is confirmed, and a FAILED checkout takes no payment", async () => {
    // A collection of its own: its owner changes the static price after the checkout was created.
    const collection = await w.payableCollection(owner, w.anvil.accounts[1]!, "static");
    const session = await w.newSession(owner, collection.id);
    const payment = await w.prepared(session, customer().address);
    const setPrice = await w.chain.wallet(w.anvil.accounts[1]!).writeContract({
      address: collection.address as `0x${string}`, abi: checkoutCollectionAbi, functionName: "setStaticPrice", args: [PRICE * 2n],
    });
    await w.chain.publicClient.waitForTransactionReceipt({ hash: setPrice });
    // The customer's mint with the checkout's reference, at the collection's new price: the
    // reference is spent, and no payment of the session's price can ever mint with it again.
    const txHash = await w.pay(customer(), { ...payment, transactions: [{ ...payment.transactions[0]!, value: String(PRICE * 2n) }] });

    // Not confirmed enough yet (5 confirmations asked): never FAILED on "not yet".
    const strict = { config: { ...w.t.config, EVM_CHAINS: w.t.config.EVM_CHAINS.map((c) => ({ ...c, confirmations: 5 })) }, db: w.t.db };
    expect(await reconcilePass(strict)).toMatchObject({ completed: 0, failed: 0 });
    expect((await read(session)).status).toBe("PENDING");

    expect(await reconcilePass(services())).toMatchObject({ completed: 0, failed: 1 });
    expect(await read(session)).toMatchObject({ status: "FAILED", failureReason: "checkout_reference_consumed", transactionHash: null });
    expect(await w.deliveries(session.checkoutId)).toEqual([]);
    expect(await nfts(session.checkoutId)).toEqual([]);

    // Terminal: no payment starts, no confirmation completes it, the reconciler leaves it.
    const prepare = await expectErrorBody(await w.prepare(session, customer().address), 409, "checkout_not_payable");
    expect(prepare.details).toEqual({ status: "FAILED" });
    const confirm = await expectErrorBody(await w.confirm(session, txHash), 409, "checkout_not_payable");
    expect(confirm.details).toEqual({ status: "FAILED" });
    expect(await reconcilePass(services())).toMatchObject({ completed: 0, failed: 0 });
  });
});
