// verifyMintReceipt against real transactions on anvil: each refusal code, and the late arrivals
// (a pending transaction, a block short of confirmations) that verify once the chain moves on.
// The contract refuses a wrong payment itself, so wrong_amount and wrong_token are a real mint
// verified against the expectation of another checkout.
import { type Address, type Hex, parseEther } from "viem";
import { waitForTransactionReceipt } from "viem/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployCollection, deployTestToken } from "../../scripts/lib/contracts.ts";
import {
  encodeMint,
  type ExpectedMint,
  NATIVE_TOKEN,
  verifyMintReceipt,
} from "../../supabase/functions/_shared/collections/contract.ts";
import { newCheckoutRef, startChain } from "./chain-fixtures.ts";

let chain: Awaited<ReturnType<typeof startChain>>;
let collection: Address;
let otherCollection: Address;
let token: Address;
const price = parseEther("0.01");

beforeAll(async () => {
  chain = await startChain();
  const [deployer, owner] = chain.anvil.accounts;
  const client = chain.wallet(deployer!);
  const params = { symbol: "V", owner: owner!.address, pricing: "static", staticPrice: price } as const;
  collection = await deployCollection(client, { name: "Verified", ...params });
  otherCollection = await deployCollection(client, { name: "Other", ...params });
  token = await deployTestToken(client, { name: "Test USD", symbol: "TUSD", decimals: 6 });
});
afterAll(() => chain?.anvil.stop());

const payer = () => chain.anvil.accounts[2]!;

/** Sends a static native mint of `to` from the payer without waiting for it to be mined. */
function sendMint(params: { checkoutRef: Hex; to?: Address; gas?: bigint }): Promise<Hex> {
  return chain.wallet(payer()).sendTransaction({
    to: collection,
    data: encodeMint({ to: params.to ?? payer().address, checkoutRef: params.checkoutRef }),
    value: price,
    gas: params.gas,
  });
}

async function mined(hash: Hex): Promise<Hex> {
  await waitForTransactionReceipt(chain.publicClient, { hash });
  return hash;
}

function expectation(txHash: Hex, checkoutRef: Hex, changes: Partial<ExpectedMint> = {}): ExpectedMint {
  return {
    txHash,
    chainId: 31337,
    collection,
    checkoutRef,
    payer: payer().address,
    paymentToken: NATIVE_TOKEN,
    amount: price,
    confirmations: 1,
    ...changes,
  };
}

describe("verifyMintReceipt", () => {
  let checkoutRef: Hex;
  let txHash: Hex;

  beforeAll(async () => {
    checkoutRef = newCheckoutRef();
    txHash = await mined(await sendMint({ checkoutRef }));
  });

  it("accepts the mint it expects", async () => {
    const result = await verifyMintReceipt(chain.publicClient, expectation(txHash, checkoutRef));
    expect(result).toMatchObject({ ok: true, owner: payer().address, amount: price, paymentToken: NATIVE_TOKEN });
    expect(result.ok && result.tokenIds.length).toBe(1);
  });

  // Functions: the addresses they name exist only once beforeAll has deployed them.
  it.each([
    ["wrong_chain", () => ({ chainId: 1 })],
    ["wrong_contract", () => ({ collection: otherCollection })],
    ["wrong_checkout_reference", () => ({ checkoutRef: newCheckoutRef() })],
    ["wrong_amount", () => ({ amount: price + 1n })],
    ["wrong_token", () => ({ paymentToken: token })],
  ] as const)("refuses %s", async (code, changes: () => Partial<ExpectedMint>) => {
    expect(await verifyMintReceipt(chain.publicClient, expectation(txHash, checkoutRef, changes())))
      .toMatchObject({ ok: false, code });
  });

  it("refuses a mint to someone other than the payer", async () => {
    const ref = newCheckoutRef();
    const hash = await mined(await sendMint({ checkoutRef: ref, to: chain.anvil.accounts[5]!.address }));
    expect(await verifyMintReceipt(chain.publicClient, expectation(hash, ref)))
      .toMatchObject({ ok: false, code: "not_minted_to_payer" });
  });

  it("refuses a reverted transaction: a reused checkout reference", async () => {
    // An explicit gas limit skips estimation, which would refuse to send a reverting transaction.
    const hash = await mined(await sendMint({ checkoutRef, gas: 300_000n }));
    const receipt = await chain.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("reverted");
    expect(await verifyMintReceipt(chain.publicClient, expectation(hash, checkoutRef)))
      .toMatchObject({ ok: false, code: "transaction_reverted" });
  });

  it("a transaction not mined yet is receipt_not_found, then verifies once mined", async () => {
    const ref = newCheckoutRef();
    await chain.testClient.setAutomine(false);
    try {
      const hash = await sendMint({ checkoutRef: ref });
      expect(await verifyMintReceipt(chain.publicClient, expectation(hash, ref)))
        .toMatchObject({ ok: false, code: "receipt_not_found" });
      await chain.testClient.mine({ blocks: 1 });
      expect(await verifyMintReceipt(chain.publicClient, expectation(hash, ref))).toMatchObject({ ok: true });
    } finally {
      await chain.testClient.setAutomine(true);
    }
  });

  it("waits for the confirmations the chain requires, counting the transaction's own block", async () => {
    const ref = newCheckoutRef();
    const hash = await mined(await sendMint({ checkoutRef: ref }));
    expect(await verifyMintReceipt(chain.publicClient, expectation(hash, ref, { confirmations: 3 })))
      .toMatchObject({ ok: false, code: "not_enough_confirmations" });
    await chain.testClient.mine({ blocks: 2 });
    expect(await verifyMintReceipt(chain.publicClient, expectation(hash, ref, { confirmations: 3 })))
      .toMatchObject({ ok: true });
  });
});
