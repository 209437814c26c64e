// The sponsored-gas ledger's chain verification (chain-verification.ts) against real transactions
// on anvil (Prague): a direct EOA call, EIP-7702 calls into a Simple7702Account-delegated EOA (its
// own type-4 transaction, and a relayer's handleOps through the canonical EntryPoint 0.8), ERC-4337
// user operations of a SimpleAccount built and signed by hand, and deposits; each refusal code.
import {
  type Address,
  createPublicClient,
  custom,
  encodeFunctionData,
  type Hex,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { entryPoint08Abi } from "viem/account-abstraction";
import { anvil as anvilChain } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  aaArtifact,
  CANONICAL_ENTRY_POINT_08,
  deployCanonicalEntryPoint,
  deployEntryPoint,
  deploySimple7702Account,
  deploySimpleAccountFactory,
  depositAtEntryPoint,
  encodeExecute,
  encodeExecuteBatch,
  handleOps,
  signedUserOperation,
  simpleAccountAddress,
  userOperationEvents,
} from "../../scripts/lib/account-abstraction.ts";
import {
  type SponsoredTransactionClaim,
  verifyDeposit,
  verifySponsoredTransaction,
} from "../../supabase/functions/_shared/sponsorship/chain-verification.ts";
import { startChain } from "./chain-fixtures.ts";

let chain: Awaited<ReturnType<typeof startChain>>;
/** The canonical EntryPoint 0.8 (known to the verifier). */
let entryPoint: Address;
/** An EntryPoint at an ordinary address: unknown unless passed as an extra one. */
let otherEntryPoint: Address;
let factory: Address;
let delegate: Address;

const CHAIN_ID = 31337;
const accounts = () => chain.anvil.accounts;
const options = { confirmations: 1 };

/** The sponsored call of every scenario: a real contract function with value (a deposit at the other EntryPoint). */
const target = () => otherEntryPoint;
const callData = (beneficiary: Address = accounts()[9]!.address) =>
  encodeFunctionData({ abi: aaArtifact("EntryPoint").abi, functionName: "depositTo", args: [beneficiary] });
const value = 1_000n;

function receiptOf(hash: Hex) {
  return chain.publicClient.waitForTransactionReceipt({ hash });
}

beforeAll(async () => {
  chain = await startChain();
  const deployer = chain.wallet(accounts()[0]!);
  entryPoint = await deployCanonicalEntryPoint(deployer);
  otherEntryPoint = await deployEntryPoint(deployer);
  factory = await deploySimpleAccountFactory(deployer, entryPoint);
  delegate = await deploySimple7702Account(deployer);
});
afterAll(() => chain?.anvil.stop());

describe("direct EOA", () => {
  let txHash: Hex;
  let claim: SponsoredTransactionClaim;

  beforeAll(async () => {
    const actor = accounts()[1]!;
    txHash = await chain.wallet(actor).sendTransaction({ to: target(), data: callData(), value });
    await receiptOf(txHash);
    claim = { mode: "eoa", chainId: CHAIN_ID, txHash, targetAddress: target(), callData: callData(), nativeValueWei: value, actorAddress: actor.address };
  });

  it("verifies the actor's call at gasUsed × effectiveGasPrice", async () => {
    const receipt = await receiptOf(txHash);
    expect(await verifySponsoredTransaction(chain.publicClient, claim, options)).toEqual({
      ok: true,
      cost: receipt.gasUsed * receipt.effectiveGasPrice,
      usageActor: accounts()[1]!.address,
      blockNumber: receipt.blockNumber,
      userOpHash: null,
    });
  });

  it("adds the L1 fee an OP-stack receipt reports", async () => {
    // anvil's receipts with the l1Fee field an OP-stack node adds (0x2a wei).
    const withL1Fee = createPublicClient({
      chain: anvilChain,
      transport: custom({
        async request({ method, params }) {
          const answer = await chain.publicClient.request({ method, params } as never) as Record<string, unknown> | null;
          return method === "eth_getTransactionReceipt" && answer ? { ...answer, l1Fee: "0x2a" } : answer;
        },
      }),
    });
    const receipt = await receiptOf(txHash);
    expect(await verifySponsoredTransaction(withL1Fee, claim, options)).toMatchObject({
      ok: true,
      cost: receipt.gasUsed * receipt.effectiveGasPrice + 42n,
    });
  });

  it("refuses another actor, target, calldata, value or chain", async () => {
    const verify = (changes: Partial<SponsoredTransactionClaim>) =>
      verifySponsoredTransaction(chain.publicClient, { ...claim, ...changes }, options);
    expect(await verify({ actorAddress: accounts()[2]!.address })).toMatchObject({ ok: false, code: "wrong_sender", pending: false });
    expect(await verify({ targetAddress: entryPoint })).toMatchObject({ ok: false, code: "wrong_target", pending: false });
    expect(await verify({ callData: callData(accounts()[8]!.address) })).toMatchObject({ ok: false, code: "wrong_call_data", pending: false });
    expect(await verify({ nativeValueWei: value + 1n })).toMatchObject({ ok: false, code: "wrong_value", pending: false });
    expect(await verify({ chainId: 1 })).toMatchObject({ ok: false, code: "wrong_chain", pending: false });
  });

  it("refuses a reverted transaction", async () => {
    const actor = accounts()[1]!;
    // SimpleAccountFactory.createAccount only answers the EntryPoint's SenderCreator: this reverts.
    const data = encodeFunctionData({ abi: aaArtifact("SimpleAccountFactory").abi, functionName: "createAccount", args: [actor.address, 0n] });
    const hash = await chain.wallet(actor).sendTransaction({ to: factory, data, gas: 500_000n });
    expect((await receiptOf(hash)).status).toBe("reverted");
    expect(await verifySponsoredTransaction(chain.publicClient, { ...claim, txHash: hash, targetAddress: factory, callData: data, nativeValueWei: 0n }, options))
      .toMatchObject({ ok: false, code: "transaction_failed", pending: false });
  });

  it("an unknown hash and a block short of confirmations are pending", async () => {
    expect(await verifySponsoredTransaction(chain.publicClient, { ...claim, txHash: `0x${"ab".repeat(32)}` }, options))
      .toMatchObject({ ok: false, code: "receipt_not_found", pending: true });
    const hash = await chain.wallet(accounts()[1]!).sendTransaction({ to: target(), data: callData(), value });
    await receiptOf(hash);
    const fresh = { ...claim, txHash: hash };
    expect(await verifySponsoredTransaction(chain.publicClient, fresh, { confirmations: 3 }))
      .toMatchObject({ ok: false, code: "not_enough_confirmations", pending: true });
    await chain.testClient.mine({ blocks: 2 });
    expect(await verifySponsoredTransaction(chain.publicClient, fresh, { confirmations: 3 })).toMatchObject({ ok: true });
  });
});

describe("EIP-7702", () => {
  // accounts[6] delegates with its own type-4 transaction; accounts[7] through a relayer's handleOps.
  const selfEoa = () => accounts()[6]!;
  const relayedEoa = () => accounts()[7]!;
  const relayer = () => accounts()[3]!;
  const wrapped = () => encodeExecute({ target: target(), value, data: callData() });
  const claimFor = (txHash: Hex, actor: Address): SponsoredTransactionClaim =>
    ({ mode: "eip7702", chainId: CHAIN_ID, txHash, targetAddress: target(), callData: callData(), nativeValueWei: value, actorAddress: actor });
  let selfTx: Hex;

  beforeAll(async () => {
    const wallet = chain.wallet(selfEoa());
    const authorization = await wallet.signAuthorization({ contractAddress: delegate, executor: "self" });
    selfTx = await wallet.sendTransaction({ authorizationList: [authorization], to: selfEoa().address, data: wrapped() });
    expect((await receiptOf(selfTx)).status).toBe("success");
  });

  it("verifies the type-4 transaction calling execute on the delegated EOA", async () => {
    const receipt = await receiptOf(selfTx);
    expect(receipt.type).toBe("eip7702");
    expect(await verifySponsoredTransaction(chain.publicClient, claimFor(selfTx, selfEoa().address), options)).toEqual({
      ok: true,
      cost: receipt.gasUsed * receipt.effectiveGasPrice,
      usageActor: selfEoa().address,
      blockNumber: receipt.blockNumber,
      userOpHash: null,
    });
  });

  it("verifies a later call of the delegated EOA, an executeBatch of one call; refuses a batch of two", async () => {
    const one = { target: target(), value, data: callData() };
    const later = await chain.wallet(selfEoa()).sendTransaction({ to: selfEoa().address, data: encodeExecuteBatch([one]) });
    expect(await verifySponsoredTransaction(chain.publicClient, claimFor(later, selfEoa().address), options)).toMatchObject({ ok: true });
    const two = await chain.wallet(selfEoa()).sendTransaction({ to: selfEoa().address, data: encodeExecuteBatch([one, one]) });
    expect(await verifySponsoredTransaction(chain.publicClient, claimFor(two, selfEoa().address), options))
      .toMatchObject({ ok: false, code: "wrong_wrapped_call" });
  });

  it("refuses a wrapped call to another target, or with another value", async () => {
    const claim = claimFor(selfTx, selfEoa().address);
    expect(await verifySponsoredTransaction(chain.publicClient, { ...claim, targetAddress: entryPoint }, options))
      .toMatchObject({ ok: false, code: "wrong_wrapped_call", pending: false });
    expect(await verifySponsoredTransaction(chain.publicClient, { ...claim, nativeValueWei: 0n }, options))
      .toMatchObject({ ok: false, code: "wrong_wrapped_call" });
  });

  it("refuses an EOA that is not delegated", async () => {
    const plain = accounts()[8]!.address;
    const hash = await chain.wallet(accounts()[1]!).sendTransaction({ to: plain, data: wrapped() });
    expect(await verifySponsoredTransaction(chain.publicClient, claimFor(hash, plain), options))
      .toMatchObject({ ok: false, code: "not_delegated", pending: false });
  });

  it("a relayer's direct execute reverts: Simple7702Account takes calls only from the EOA or the EntryPoint", async () => {
    const hash = await chain.wallet(relayer()).sendTransaction({ to: selfEoa().address, data: wrapped(), gas: 300_000n });
    expect(await verifySponsoredTransaction(chain.publicClient, claimFor(hash, selfEoa().address), options))
      .toMatchObject({ ok: false, code: "transaction_failed" });
  });

  it("verifies a relayer's type-4 handleOps of the EOA's user operation, at the operation's actualGasCost", async () => {
    const eoa = relayedEoa();
    await depositAtEntryPoint(chain.wallet(relayer()), entryPoint, eoa.address, parseEther("1"));
    const authorization = await chain.wallet(relayer()).signAuthorization({ account: eoa, contractAddress: delegate });
    const { userOperation, hash: userOpHash } = await signedUserOperation(chain.wallet(relayer()), {
      entryPoint, chainId: CHAIN_ID, sender: eoa.address, signer: eoa, callData: wrapped(),
    });
    const txHash = await handleOps(chain.wallet(relayer()), entryPoint, [userOperation], [authorization]);
    const [event] = await userOperationEvents(chain.publicClient, txHash);
    expect(event?.args.success).toBe(true);
    const claim = claimFor(txHash, eoa.address);
    expect(await verifySponsoredTransaction(chain.publicClient, claim, options)).toEqual({
      ok: true,
      cost: event!.args.actualGasCost,
      usageActor: eoa.address,
      blockNumber: (await receiptOf(txHash)).blockNumber,
      userOpHash,
    });
    expect(await verifySponsoredTransaction(chain.publicClient, { ...claim, targetAddress: entryPoint }, options))
      .toMatchObject({ ok: false, code: "wrong_wrapped_call" });
  });
});

describe("ERC-4337", () => {
  const owner = () => accounts()[4]!;
  const bundler = () => chain.wallet(accounts()[5]!);
  let account: Address;
  let txHash: Hex;
  let userOpHash: Hex;
  let claim: SponsoredTransactionClaim;
  const userOperation = (callData: Hex, changes: { nonce?: bigint; firstOne?: boolean } = {}) =>
    signedUserOperation(bundler(), {
      entryPoint, chainId: CHAIN_ID, sender: account, signer: owner(), callData, nonce: changes.nonce,
      factory: changes.firstOne ? { address: factory, owner: owner().address } : undefined,
    });

  beforeAll(async () => {
    account = await simpleAccountAddress(bundler(), factory, owner().address);
    await depositAtEntryPoint(bundler(), entryPoint, account, parseEther("1"));
    // The counterfactual account holds the value its call passes on.
    await receiptOf(await bundler().sendTransaction({ to: account, value: parseEther("0.01") }));
    const first = await userOperation(encodeExecute({ target: target(), value, data: callData() }), { firstOne: true });
    userOpHash = first.hash;
    txHash = await handleOps(bundler(), entryPoint, [first.userOperation]);
    claim = {
      mode: "erc4337", chainId: CHAIN_ID, txHash, targetAddress: target(), callData: callData(), nativeValueWei: value,
      actorAddress: owner().address, smartAccountAddress: account, entryPointAddress: entryPoint, userOpHash,
    };
  });

  it("verifies the SimpleAccount's user operation (created by it), at its actualGasCost, for the owner", async () => {
    const [event] = await userOperationEvents(chain.publicClient, txHash);
    expect(event?.args).toMatchObject({ sender: account, success: true, userOpHash });
    expect(await verifySponsoredTransaction(chain.publicClient, claim, options)).toEqual({
      ok: true,
      cost: event!.args.actualGasCost,
      usageActor: owner().address,
      blockNumber: (await receiptOf(txHash)).blockNumber,
      userOpHash,
    });
    // The hash is optional.
    expect(await verifySponsoredTransaction(chain.publicClient, { ...claim, userOpHash: undefined }, options)).toMatchObject({ ok: true, userOpHash });
  });

  it("refuses an unknown EntryPoint, even one that really ran the operation elsewhere; an extra one is accepted", async () => {
    const elsewhere = { ...claim, entryPointAddress: otherEntryPoint };
    expect(await verifySponsoredTransaction(chain.publicClient, elsewhere, options))
      .toMatchObject({ ok: false, code: "unknown_entry_point", pending: false });
    expect(await verifySponsoredTransaction(chain.publicClient, elsewhere, { ...options, extraEntryPoints: [otherEntryPoint] }))
      .toMatchObject({ ok: false, code: "wrong_target" });
  });

  it("refuses another sender or hash, another owner, another wrapped call, an incomplete claim", async () => {
    const verify = (changes: Partial<SponsoredTransactionClaim>) =>
      verifySponsoredTransaction(chain.publicClient, { ...claim, ...changes }, options);
    expect(await verify({ smartAccountAddress: accounts()[6]!.address })).toMatchObject({ ok: false, code: "user_operation_not_found" });
    expect(await verify({ userOpHash: `0x${"cd".repeat(32)}` })).toMatchObject({ ok: false, code: "user_operation_not_found" });
    expect(await verify({ actorAddress: accounts()[1]!.address })).toMatchObject({ ok: false, code: "wrong_owner" });
    expect(await verify({ callData: callData(accounts()[8]!.address) })).toMatchObject({ ok: false, code: "wrong_wrapped_call" });
    expect(await verify({ smartAccountAddress: undefined })).toMatchObject({ ok: false, code: "invalid_claim" });
  });

  // Uses the user operation the EIP-7702 block above ran for accounts[7] (vitest runs a file in order).
  it("refuses a smart account without owner(): the 7702 EOA's operation as erc4337", async () => {
    const eoa = accounts()[7]!;
    const [event] = parseEventLogs({
      abi: entryPoint08Abi,
      eventName: "UserOperationEvent",
      logs: await chain.publicClient.getLogs({ address: entryPoint, fromBlock: 0n }),
      args: { sender: eoa.address },
    });
    expect(event).toBeDefined();
    const result = await verifySponsoredTransaction(chain.publicClient, {
      ...claim, txHash: event!.transactionHash, smartAccountAddress: eoa.address, actorAddress: eoa.address, userOpHash: undefined,
    }, options);
    expect(result).toMatchObject({ ok: false, code: "wrong_owner" });
  });

  it("refuses a failed user operation, and two of the account's operations in one bundle unless the hash picks one", async () => {
    // The inner call reverts (createAccount answers only the SenderCreator): the operation fails, handleOps succeeds.
    const reverting = encodeExecute({
      target: factory, value: 0n,
      data: encodeFunctionData({ abi: aaArtifact("SimpleAccountFactory").abi, functionName: "createAccount", args: [zeroAddress, 1n] }),
    });
    const failed = await userOperation(reverting);
    const failedTx = await handleOps(bundler(), entryPoint, [failed.userOperation]);
    expect((await userOperationEvents(chain.publicClient, failedTx))[0]?.args.success).toBe(false);
    expect(await verifySponsoredTransaction(chain.publicClient, {
      ...claim, txHash: failedTx, userOpHash: failed.hash, targetAddress: factory, nativeValueWei: 0n,
    }, options)).toMatchObject({ ok: false, code: "user_operation_failed" });

    const call = encodeExecute({ target: target(), value, data: callData() });
    const a = await userOperation(call);
    const b = await userOperation(call, { nonce: a.userOperation.nonce + 1n });
    const bundle = await handleOps(bundler(), entryPoint, [a.userOperation, b.userOperation]);
    const both = { ...claim, txHash: bundle };
    expect(await verifySponsoredTransaction(chain.publicClient, { ...both, userOpHash: undefined }, options))
      .toMatchObject({ ok: false, code: "user_operations_ambiguous" });
    expect(await verifySponsoredTransaction(chain.publicClient, { ...both, userOpHash: b.hash }, options))
      .toMatchObject({ ok: true, userOpHash: b.hash });
  });

  it("the helpers deploy EntryPoint 0.8 at its canonical address", () => {
    expect(entryPoint).toBe(CANONICAL_ENTRY_POINT_08);
  });
});

describe("verifyDeposit", () => {
  const sponsor = () => accounts()[2]!;
  const vault = () => accounts()[9]!.address;
  const send = async (from = sponsor(), to = vault(), amount = parseEther("1.5")) => {
    const hash = await chain.wallet(from).sendTransaction({ to, value: amount });
    await receiptOf(hash);
    return hash;
  };
  const verify = (txHash: Hex) => verifyDeposit(chain.publicClient, { txHash, sponsor: sponsor().address, vault: vault(), confirmations: 1 });

  it("credits the sponsor's native transfer to the vault", async () => {
    const hash = await send();
    expect(await verify(hash)).toEqual({
      ok: true,
      amount: parseEther("1.5"),
      from: sponsor().address,
      to: vault(),
      blockNumber: (await receiptOf(hash)).blockNumber,
    });
  });

  it("refuses a transfer from someone else, to another address, or of nothing; an unknown hash is pending", async () => {
    expect(await verify(await send(accounts()[1]!))).toMatchObject({ ok: false, code: "wrong_sender", pending: false });
    expect(await verify(await send(sponsor(), accounts()[8]!.address))).toMatchObject({ ok: false, code: "not_a_deposit", pending: false });
    expect(await verify(await send(sponsor(), vault(), 0n))).toMatchObject({ ok: false, code: "not_a_deposit" });
    expect(await verify(`0x${"ef".repeat(32)}`)).toMatchObject({ ok: false, code: "receipt_not_found", pending: true });
  });

  it("waits for confirmations", async () => {
    const hash = await send();
    const input = { txHash: hash, sponsor: sponsor().address, vault: vault(), confirmations: 2 };
    expect(await verifyDeposit(chain.publicClient, input)).toMatchObject({ ok: false, code: "not_enough_confirmations", pending: true });
    await chain.testClient.mine({ blocks: 1 });
    expect(await verifyDeposit(chain.publicClient, input)).toMatchObject({ ok: true });
  });
});
