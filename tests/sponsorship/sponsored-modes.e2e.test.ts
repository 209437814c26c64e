// "Each flow end to end on anvil", through the REST API, for the two account-abstraction
// modes (the direct EOA is sponsorship.happy.test.ts): one sponsor funds
//   - erc4337: an actor's SimpleAccount (created by its first user operation's initCode), run by a
//     bundler's handleOps at the canonical EntryPoint 0.8;
//   - eip7702: an actor EOA delegated to Simple7702Account, reached by a relayer's type-4 handleOps
//     carrying the EOA's authorization. Not the EOA's own type-4 call: that one the EOA pays for
//     (nothing sponsored), and Simple7702Account takes execute only from the EOA itself or the
//     EntryPoint, so the EntryPoint is the one way a relayer gets in (chain-verification.ts).
// Each: check → provider verify → mined → complete charges the user operation's actualGasCost →
// usage; the sponsor's balance then agrees with the sum of the charges.
import { type Address, type Hex, isAddressEqual, type LocalAccount, parseAbi, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CANONICAL_ENTRY_POINT_08,
  deployCanonicalEntryPoint,
  deploySimple7702Account,
  deploySimpleAccountFactory,
  depositAtEntryPoint,
  encodeExecute,
  handleOps,
  signedUserOperation,
  simpleAccountAddress,
  userOperationEvents,
} from "../../scripts/lib/account-abstraction.ts";
import { expectErrorBody } from "../setup/test-context.ts";
import { CLIENT_ID, type SponsorshipWorld, startSponsorshipWorld } from "./sponsorship-fixtures.ts";

let w: SponsorshipWorld;
let factory: Address;
let delegate: Address;
let sponsor: { walletAddress: Address; chainId: number };
let sponsorKey: string;

const HOLD = parseEther("0.05"); // generous: handleOps' actualGasCost at these fees is well below it
const DEPOSIT = parseEther("1");
const balanceOfAbi = parseAbi(["function balanceOf(address) view returns (uint256)"]);

beforeAll(async () => {
  w = await startSponsorshipWorld();
  const deployer = w.chain.wallet(w.anvil.accounts[0]!);
  expect(await deployCanonicalEntryPoint(deployer)).toBe(CANONICAL_ENTRY_POINT_08);
  factory = await deploySimpleAccountFactory(deployer, CANONICAL_ENTRY_POINT_08);
  delegate = await deploySimple7702Account(deployer);
  const funded = await w.fundedSponsor(await w.newAccount(), { allowedTargets: [w.target] }, DEPOSIT);
  sponsor = funded.sponsor;
  sponsorKey = funded.user.key;
});
afterAll(() => w?.close());

/** An actor of the check-in app: a funded EOA linked to a user, with that user's session token. */
async function actor() {
  const account = await w.newAccount();
  return { account, token: await w.sessionToken(await w.userWithWallet(account)) };
}

/** The check-in call of `actor` as check, complete and cancel name it. */
const callOf = (account: LocalAccount) => ({ clientId: CLIENT_ID, targetAddress: w.target, callData: w.checkInCall(account), nativeValueWei: "0" });

/** check → eligible; the reservation's id. */
async function reserve(token: string, body: Record<string, unknown>): Promise<string> {
  const checked = await w.post("check", { ...sponsor, operationType: "check_in", maxCostWei: HOLD.toString(), ...body }, { token });
  expect(checked.status).toBe(200);
  const decision = await checked.json();
  expect(decision).toMatchObject({ eligible: true, reason: "eligible" });
  return decision.reservationId;
}

/** The provider's verify for `sender` (thirdweb's body) sending the check-in of `account`. */
async function providerVerify(account: LocalAccount, sender: Address) {
  const request = w.verifyRequest(account, w.checkInCall(account));
  return (await w.providerVerify({ ...request, userOp: { ...request.userOp, sender } })).json();
}

/** The check-in token's balance of `holder` (the sponsored call really ran). */
const checkIns = (holder: Address) => w.chain.publicClient.readContract({ address: w.target, abi: balanceOfAbi, functionName: "balanceOf", args: [holder] });

/** The sponsor's usage rows, newest first. */
const usage = async () => (await (await w.get("usage", sponsor, { key: sponsorKey })).json()).items as Record<string, unknown>[];

/** What complete charged, in order. */
const charges: bigint[] = [];

/** complete → 200 charging `cost` (the hold's rest released); the newest usage row is this charge. */
async function completeCharging(
  token: string,
  completion: { reservationId: string; txHash: Hex; mode: string },
  expected: { cost: bigint; actor: Address; userOpHash: Hex },
) {
  const { reservationId, txHash, mode } = completion;
  const completed = await w.post("provider/complete", completion, { token });
  expect(completed.status, await completed.clone().text()).toBe(200);
  const result = await completed.json();
  expect(result).toEqual({
    reservationId, usageId: expect.stringMatching(/^\d+$/), chargedWei: expected.cost.toString(),
    releasedWei: (HOLD - expected.cost).toString(), replayed: false,
  });
  charges.push(expected.cost);
  expect((await usage())[0]).toEqual({
    id: result.usageId, chainId: w.anvil.chainId, operationType: "check_in", actorAddress: expected.actor, mode,
    txHash, userOpHash: expected.userOpHash, amountWei: expected.cost.toString(), reservationId, createdAt: expect.any(String),
  });
  return result;
}

describe("sponsored account-abstraction flows end to end", () => {
  it("erc4337: a SimpleAccount's user operation through handleOps is charged its actualGasCost, against the owner", async () => {
    const { account: owner, token } = await actor();
    const bundler = w.chain.wallet(await w.newAccount());
    const smartAccount = await simpleAccountAddress(bundler, factory, owner.address);
    // The account's gas at the EntryPoint (what the provider's paymaster would otherwise cover).
    await depositAtEntryPoint(bundler, CANONICAL_ENTRY_POINT_08, smartAccount, parseEther("0.1"));
    const call = callOf(owner);

    const reservationId = await reserve(token, { ...call, actorAddress: owner.address, smartAccountAddress: smartAccount });
    // The reservation names the smart account: the provider's sender must be it, not the owner.
    expect(await providerVerify(owner, owner.address)).toEqual({ isAllowed: false, reason: "no_matching_reservation" });
    expect(await providerVerify(owner, smartAccount)).toEqual({ isAllowed: true, reason: "approved" });

    const { userOperation, hash: userOpHash } = await signedUserOperation(bundler, {
      entryPoint: CANONICAL_ENTRY_POINT_08, chainId: w.anvil.chainId, sender: smartAccount, signer: owner,
      callData: encodeExecute({ target: w.target, value: 0n, data: call.callData }),
      factory: { address: factory, owner: owner.address },
    });
    const txHash = await handleOps(bundler, CANONICAL_ENTRY_POINT_08, [userOperation]);
    const [event] = await userOperationEvents(w.chain.publicClient, txHash);
    expect(event?.args).toMatchObject({ sender: smartAccount, userOpHash, success: true });
    expect(await checkIns(owner.address)).toBe(1n);
    const cost = event!.args.actualGasCost;

    const completion = {
      reservationId, ...call, txHash, mode: "erc4337", ownerAddress: owner.address, smartAccountAddress: smartAccount,
      entryPointAddress: CANONICAL_ENTRY_POINT_08, userOpHash,
    };
    // SPEC 4.5 rule 5: without its smart account or its EntryPoint the completion is refused, and
    // with an EntryPoint the service does not know (the factory here); nothing is charged.
    for (const field of ["smartAccountAddress", "entryPointAddress"] as const) {
      const { [field]: _left, ...without } = completion;
      const refused = await expectErrorBody(await w.post("provider/complete", without, { token }), 400, "validation_failed");
      expect(JSON.stringify(refused.details), field).toContain(field);
    }
    await expectErrorBody(await w.post("provider/complete", { ...completion, entryPointAddress: factory }, { token }), 400, "unknown_entry_point");
    expect(await usage()).toEqual([]);
    const result = await completeCharging(token, completion, { cost, actor: owner.address, userOpHash });
    expect(await usage()).toHaveLength(1);
    // The same completion again answers the first result; nothing is charged twice.
    const replay = await w.post("provider/complete", completion, { token });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ ...result, replayed: true });
    // Another smart account of the same owner: the transaction ran no operation of it.
    const otherAccount = await simpleAccountAddress(bundler, factory, owner.address, 1n);
    await expectErrorBody(await w.post("provider/complete", { ...completion, smartAccountAddress: otherAccount }, { token }), 400, "user_operation_not_found");
    expect(await usage()).toHaveLength(1);
  });

  // The EOA signs the delegation and its user operation; a relayer sends both and pays the gas.
  const relayed = {} as { eoa: LocalAccount; token: string; reservationId: string; txHash: Hex; userOpHash: Hex; cost: bigint };

  it("eip7702: the provider approves the EOA; a relayer's type-4 handleOps runs the EOA's user operation", async () => {
    const { account: eoa, token } = await actor();
    const relayer = w.chain.wallet(await w.newAccount());
    await depositAtEntryPoint(relayer, CANONICAL_ENTRY_POINT_08, eoa.address, parseEther("0.1"));
    const call = callOf(eoa);

    const reservationId = await reserve(token, { ...call, actorAddress: eoa.address });
    expect(await providerVerify(eoa, eoa.address)).toEqual({ isAllowed: true, reason: "approved" });

    const authorization = await relayer.signAuthorization({ account: eoa, contractAddress: delegate });
    const { userOperation, hash: userOpHash } = await signedUserOperation(relayer, {
      entryPoint: CANONICAL_ENTRY_POINT_08, chainId: w.anvil.chainId, sender: eoa.address, signer: eoa,
      callData: encodeExecute({ target: w.target, value: 0n, data: call.callData }),
    });
    const txHash = await handleOps(relayer, CANONICAL_ENTRY_POINT_08, [userOperation], [authorization]);
    const receipt = await w.chain.publicClient.getTransactionReceipt({ hash: txHash });
    expect(receipt.type).toBe("eip7702");
    expect(isAddressEqual(receipt.from, relayer.account.address)).toBe(true);
    expect(await w.chain.publicClient.getCode({ address: eoa.address })).toBe(`0xef0100${delegate.slice(2).toLowerCase()}`);
    const [event] = await userOperationEvents(w.chain.publicClient, txHash);
    expect(event?.args).toMatchObject({ sender: eoa.address, userOpHash, success: true });
    expect(await checkIns(eoa.address)).toBe(1n);
    Object.assign(relayed, { eoa, token, reservationId, txHash, userOpHash, cost: event!.args.actualGasCost });
  });

  // Through the EntryPoint the operation has a userOpHash: the usage row keeps it (charged once by it).
  it("eip7702: complete charges the operation's actualGasCost against the EOA; usage shows mode eip7702", async () => {
    const { eoa, token, reservationId, txHash, userOpHash, cost } = relayed;
    const completion = { reservationId, ...callOf(eoa), txHash, mode: "eip7702", actorAddress: eoa.address };
    await completeCharging(token, completion, { cost, actor: eoa.address, userOpHash });
  });

  it("the balance after both: both charged, no hold left; deposited − spent = available; spent = the sum of the charges", async () => {
    // Both flows above completed (each charge recorded by completeCharging): nothing is still held.
    expect(charges).toHaveLength(2);
    const spent = charges.reduce((sum, charge) => sum + charge, 0n);
    const balance = await (await w.get("balance", sponsor, { key: sponsorKey })).json();
    expect(balance).toEqual({
      ...sponsor, depositedWei: DEPOSIT.toString(), spentWei: spent.toString(), heldWei: "0",
      availableWei: (DEPOSIT - spent).toString(), activeReservations: 0,
    });
    const items = await usage();
    expect(items.map((item) => item.mode)).toEqual(["eip7702", "erc4337"]); // newest first
    expect(items.map((item) => BigInt(item.amountWei as string))).toEqual([...charges].reverse());
  });
});
