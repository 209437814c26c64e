// The reference collection on a real anvil: compiled with solc-js, deployed with viem, read and
// minted through the service's helpers (collections/contract.ts), and refusing what it must refuse.
import { type Abi, type AbiParameter, type Address, encodeErrorResult, parseEther, zeroAddress } from "viem";
import { getBlock, readContract, waitForTransactionReceipt } from "viem/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployCollection, deployTestToken, loadArtifacts } from "../../scripts/lib/contracts.ts";
import {
  checkoutCollectionAbi,
  checkoutRefFromId,
  encodeMint,
  encodeMintWithVoucher,
  NATIVE_TOKEN,
  paymentTransactions,
  readCollectionOwner,
  readTokenDecimals,
  readVoucherDomain,
  signMintVoucher,
  verifyMintReceipt,
} from "../../supabase/functions/_shared/collections/contract.ts";
import { newCheckoutRef, startChain } from "./chain-fixtures.ts";

let chain: Awaited<ReturnType<typeof startChain>>;
afterAll(() => chain?.anvil.stop());
beforeAll(async () => {
  chain = await startChain();
});

/** An ABI entry reduced to what defines it: solc's internalType and the defaults parseAbi omits dropped. */
function canonical(abi: Abi): string[] {
  const parameter = (p: AbiParameter): unknown => ({
    type: p.type,
    name: p.name ?? "",
    components: "components" in p ? p.components.map(parameter) : undefined,
  });
  const eventParameter = (p: AbiParameter & { indexed?: boolean }) => ({ ...parameter(p) as object, indexed: p.indexed ?? false });
  return abi.map((item) => JSON.stringify({
    type: item.type,
    name: "name" in item ? item.name : undefined,
    inputs: item.type === "event" ? item.inputs.map(eventParameter) : "inputs" in item ? item.inputs.map(parameter) : undefined,
    outputs: "outputs" in item ? item.outputs.map(parameter) : undefined,
    stateMutability: "stateMutability" in item ? item.stateMutability : undefined,
    anonymous: item.type === "event" ? item.anonymous ?? false : undefined,
  })).sort();
}

describe("reference contracts", () => {
  it("the service's ABI constant is exactly the compiled one", async () => {
    const { CheckoutCollection } = await loadArtifacts();
    expect(canonical(checkoutCollectionAbi)).toEqual(canonical(CheckoutCollection.abi));
  });

  it("reads owner, decimals and the voucher domain; a wallet or a token is no collection", async () => {
    const [deployer, owner, signer] = chain.anvil.accounts;
    const client = chain.wallet(deployer!);
    const token = await deployTestToken(client, { name: "Test USD", symbol: "TUSD", decimals: 6 });
    const collection = await deployCollection(client, {
      name: "Demo Passes",
      symbol: "PASS",
      owner: owner!.address,
      pricing: "dynamic",
      paymentToken: token,
      priceSigner: signer!.address,
    });

    expect(await readCollectionOwner(chain.publicClient, collection)).toEqual({ ok: true, value: owner!.address });
    expect(await readTokenDecimals(chain.publicClient, token)).toEqual({ ok: true, value: 6 });
    expect(await readTokenDecimals(chain.publicClient, NATIVE_TOKEN)).toEqual({ ok: true, value: 18 });
    expect(await readVoucherDomain(chain.publicClient, collection)).toEqual({
      ok: true,
      value: { name: "Demo Passes", version: "1", chainId: 31337, verifyingContract: collection },
    });

    expect(await readCollectionOwner(chain.publicClient, owner!.address)).toMatchObject({ ok: false, code: "not_a_contract" });
    expect(await readCollectionOwner(chain.publicClient, token)).toMatchObject({ ok: false, code: "call_failed" });
    expect(await readTokenDecimals(chain.publicClient, collection)).toMatchObject({ ok: false, code: "call_failed" });
  });

  // viem decodes no custom error of a failed deployment: the revert data carries its selector.
  it("a dynamic collection needs a price signer", async () => {
    const [deployer] = chain.anvil.accounts;
    await expect(deployCollection(chain.wallet(deployer!), {
      name: "No Signer",
      symbol: "NS",
      owner: deployer!.address,
      pricing: "dynamic",
    })).rejects.toThrow(encodeErrorResult({ abi: checkoutCollectionAbi, errorName: "MissingPriceSigner" }));
  });

  it("checkout references are the checkout id right-aligned in 32 bytes", () => {
    expect(checkoutRefFromId("65f1a2b3c4d5e6f708192a3b")).toBe(`0x${"0".repeat(40)}65f1a2b3c4d5e6f708192a3b`);
    expect(() => checkoutRefFromId("not-an-id")).toThrow();
  });
});

describe("static price in the native currency", () => {
  let collection: Address;
  const price = parseEther("0.05");

  beforeAll(async () => {
    const [deployer, owner] = chain.anvil.accounts;
    collection = await deployCollection(chain.wallet(deployer!), {
      name: "Static Native",
      symbol: "SN",
      owner: owner!.address,
      pricing: "static",
      staticPrice: price,
    });
  });

  it("mints to the payer, pays the owner and verifies", async () => {
    const [, owner, payer] = chain.anvil.accounts;
    const checkoutRef = newCheckoutRef();
    const ownerBefore = await chain.publicClient.getBalance({ address: owner!.address });
    const [mint, ...more] = paymentTransactions({
      chainId: 31337,
      collection,
      paymentToken: NATIVE_TOKEN,
      amount: price,
      mintData: encodeMint({ to: payer!.address, checkoutRef }),
    });
    expect(more).toEqual([]);
    expect(mint).toMatchObject({ kind: "mint", to: collection, value: price });
    const txHash = await chain.wallet(payer!).sendTransaction({ to: mint!.to, data: mint!.data, value: mint!.value });
    await waitForTransactionReceipt(chain.publicClient, { hash: txHash });

    const result = await verifyMintReceipt(chain.publicClient, {
      txHash,
      chainId: 31337,
      collection,
      checkoutRef,
      payer: payer!.address,
      paymentToken: NATIVE_TOKEN,
      amount: price,
      confirmations: 1,
    });
    expect(result).toMatchObject({ ok: true, owner: payer!.address, amount: price, paymentToken: zeroAddress });
    if (!result.ok) return;
    expect(result.tokenIds).toHaveLength(1);
    const ownerOf = await readContract(chain.publicClient, {
      address: collection,
      abi: checkoutCollectionAbi,
      functionName: "ownerOf",
      args: [result.tokenIds[0]!],
    });
    expect(ownerOf).toBe(payer!.address);
    expect(await chain.publicClient.getBalance({ address: owner!.address })).toBe(ownerBefore + price);
  });

  it("refuses a reused checkout reference, a wrong value and a voucher mint", async () => {
    const [, , payer] = chain.anvil.accounts;
    const client = chain.wallet(payer!);
    const checkoutRef = newCheckoutRef();
    const mint = (value: bigint) =>
      client.writeContract({ address: collection, abi: checkoutCollectionAbi, functionName: "mint", args: [payer!.address, checkoutRef], value });

    await expect(mint(price - 1n)).rejects.toThrow(/WrongPayment/);
    await waitForTransactionReceipt(chain.publicClient, { hash: await mint(price) });
    await expect(mint(price)).rejects.toThrow(/CheckoutRefAlreadyUsed/);
    await expect(client.writeContract({
      address: collection,
      abi: checkoutCollectionAbi,
      functionName: "mintWithVoucher",
      args: [payer!.address, newCheckoutRef(), 1n, 2n ** 40n, "0x"],
    })).rejects.toThrow(/WrongPricing/);
  });
});

describe("static price in an ERC-20", () => {
  it("approves then mints; the owner receives the tokens", async () => {
    const [deployer, owner, payer] = chain.anvil.accounts;
    const deployerClient = chain.wallet(deployer!);
    const token = await deployTestToken(deployerClient, { name: "Test USD", symbol: "TUSD", decimals: 6 });
    const price = 25_000_000n; // 25.00 TUSD
    const collection = await deployCollection(deployerClient, {
      name: "Static Token",
      symbol: "ST",
      owner: owner!.address,
      pricing: "static",
      paymentToken: token,
      staticPrice: price,
    });
    const { TestToken } = await loadArtifacts();
    const payerClient = chain.wallet(payer!);
    await waitForTransactionReceipt(chain.publicClient, {
      hash: await payerClient.writeContract({ address: token, abi: TestToken.abi, functionName: "mint", args: [payer!.address, price] }),
    });

    const checkoutRef = newCheckoutRef();
    const transactions = paymentTransactions({
      chainId: 31337,
      collection,
      paymentToken: token,
      amount: price,
      mintData: encodeMint({ to: payer!.address, checkoutRef }),
    });
    expect(transactions.map((tx) => [tx.kind, tx.to, tx.value])).toEqual([["approve", token, 0n], ["mint", collection, 0n]]);
    let txHash: `0x${string}` = "0x";
    for (const tx of transactions) {
      txHash = await payerClient.sendTransaction({ to: tx.to, data: tx.data, value: tx.value });
      await waitForTransactionReceipt(chain.publicClient, { hash: txHash });
    }

    const result = await verifyMintReceipt(chain.publicClient, {
      txHash,
      chainId: 31337,
      collection,
      checkoutRef,
      payer: payer!.address,
      paymentToken: token,
      amount: price,
      confirmations: 1,
    });
    expect(result).toMatchObject({ ok: true, paymentToken: token, amount: price });
    const balanceOf = (address: Address) =>
      readContract(chain.publicClient, { address: token, abi: TestToken.abi, functionName: "balanceOf", args: [address] });
    expect(await balanceOf(owner!.address)).toBe(price);
    expect(await balanceOf(payer!.address)).toBe(0n);
  });
});

describe("dynamic price with the service's voucher", () => {
  let collection: Address;

  beforeAll(async () => {
    const [deployer, owner, , signer] = chain.anvil.accounts;
    collection = await deployCollection(chain.wallet(deployer!), {
      name: "Dynamic Native",
      symbol: "DN",
      owner: owner!.address,
      pricing: "dynamic",
      priceSigner: signer!.address,
    });
  });

  async function voucherFor(to: Address, price: bigint, secondsLeft: bigint) {
    const { timestamp } = await getBlock(chain.publicClient);
    return { checkoutRef: newCheckoutRef(), to, price, deadline: timestamp + secondsLeft };
  }

  it("mints at the signed price and verifies", async () => {
    const [, , payer, signer] = chain.anvil.accounts;
    const domain = await readVoucherDomain(chain.publicClient, collection);
    if (!domain.ok) throw new Error(domain.message);
    const voucher = await voucherFor(payer!.address, parseEther("0.123"), 600n);
    const signature = await signMintVoucher(signer!, domain.value, voucher);
    const [mint] = paymentTransactions({
      chainId: 31337,
      collection,
      paymentToken: NATIVE_TOKEN,
      amount: voucher.price,
      mintData: encodeMintWithVoucher(voucher, signature),
    });
    const txHash = await chain.wallet(payer!).sendTransaction({ to: mint!.to, data: mint!.data, value: mint!.value });
    await waitForTransactionReceipt(chain.publicClient, { hash: txHash });

    expect(await verifyMintReceipt(chain.publicClient, {
      txHash,
      chainId: 31337,
      collection,
      checkoutRef: voucher.checkoutRef,
      payer: payer!.address,
      paymentToken: NATIVE_TOKEN,
      amount: voucher.price,
      confirmations: 1,
    })).toMatchObject({ ok: true, amount: voucher.price });
  });

  it("refuses an expired voucher, another signer, a changed price or recipient, and a static mint", async () => {
    const [, , payer, signer, stranger] = chain.anvil.accounts;
    const domain = await readVoucherDomain(chain.publicClient, collection);
    if (!domain.ok) throw new Error(domain.message);
    const client = chain.wallet(payer!);
    const mintWithVoucher = (
      voucher: { checkoutRef: `0x${string}`; to: Address; price: bigint; deadline: bigint },
      signature: `0x${string}`,
      value = voucher.price,
    ) =>
      client.writeContract({
        address: collection,
        abi: checkoutCollectionAbi,
        functionName: "mintWithVoucher",
        args: [voucher.to, voucher.checkoutRef, voucher.price, voucher.deadline, signature],
        value,
      });

    const expired = await voucherFor(payer!.address, 1000n, -1n);
    await expect(mintWithVoucher(expired, await signMintVoucher(signer!, domain.value, expired))).rejects.toThrow(/VoucherExpired/);

    const voucher = await voucherFor(payer!.address, 1000n, 600n);
    await expect(mintWithVoucher(voucher, await signMintVoucher(stranger!, domain.value, voucher))).rejects.toThrow(/InvalidVoucherSigner/);
    const signature = await signMintVoucher(signer!, domain.value, voucher);
    await expect(mintWithVoucher({ ...voucher, price: 1n }, signature)).rejects.toThrow(/InvalidVoucherSigner/);
    await expect(mintWithVoucher({ ...voucher, to: stranger!.address }, signature)).rejects.toThrow(/InvalidVoucherSigner/);
    await expect(mintWithVoucher(voucher, signature, 999n)).rejects.toThrow(/WrongPayment/);
    await expect(client.writeContract({
      address: collection,
      abi: checkoutCollectionAbi,
      functionName: "mint",
      args: [payer!.address, voucher.checkoutRef],
    })).rejects.toThrow(/WrongPricing/);

    await waitForTransactionReceipt(chain.publicClient, { hash: await mintWithVoucher(voucher, signature) });
    await expect(mintWithVoucher(voucher, signature)).rejects.toThrow(/CheckoutRefAlreadyUsed/);
  });

  it("only the owner rotates the price signer, and the old signer's vouchers stop working", async () => {
    const [, owner, payer, signer, stranger] = chain.anvil.accounts;
    const domain = await readVoucherDomain(chain.publicClient, collection);
    if (!domain.ok) throw new Error(domain.message);
    const setPriceSigner = (from: typeof owner, signerAddress: Address) =>
      chain.wallet(from!).writeContract({
        address: collection,
        abi: checkoutCollectionAbi,
        functionName: "setPriceSigner",
        args: [signerAddress],
      });
    await expect(setPriceSigner(stranger, stranger!.address)).rejects.toThrow(/OwnableUnauthorizedAccount/);
    await waitForTransactionReceipt(chain.publicClient, { hash: await setPriceSigner(owner, stranger!.address) });

    const voucher = await voucherFor(payer!.address, 1000n, 600n);
    const mintWith = (signature: `0x${string}`) =>
      chain.wallet(payer!).writeContract({
        address: collection,
        abi: checkoutCollectionAbi,
        functionName: "mintWithVoucher",
        args: [voucher.to, voucher.checkoutRef, voucher.price, voucher.deadline, signature],
        value: voucher.price,
      });
    await expect(mintWith(await signMintVoucher(signer!, domain.value, voucher))).rejects.toThrow(/InvalidVoucherSigner/);
    await waitForTransactionReceipt(chain.publicClient, {
      hash: await mintWith(await signMintVoucher(stranger!, domain.value, voucher)),
    });
  });
});
