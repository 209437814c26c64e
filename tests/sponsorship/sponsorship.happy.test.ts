// The sponsored-gas ledger through the REST API on anvil: a sponsor deposits and records it, sets
// its rules; an actor of the check-in app (session token) checks, the provider verifies, the actor's
// transaction is mined, complete charges its real cost; reads show every step.
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody } from "../setup/test-context.ts";
import { CLIENT_ID, type SponsorshipWorld, startSponsorshipWorld, VAULT } from "./sponsorship-fixtures.ts";

let w: SponsorshipWorld;
beforeAll(async () => {
  w = await startSponsorshipWorld();
});
afterAll(() => w.close());

const HOLD = "10000000000000000"; // 0.01 ETH

describe("a sponsored check-in from deposit to usage", () => {
  it("deposit → record → balance; check → verify → complete → usage; every read agrees", async () => {
    const sponsorAccount = await w.newAccount();
    const sponsorUser = await w.userWithWallet(sponsorAccount);
    const sponsor = { walletAddress: sponsorAccount.address, chainId: w.anvil.chainId };

    // Deposit: verified on-chain, recorded once.
    const txHash = await w.sendDeposit(sponsorAccount, parseEther("1"));
    const recorded = await w.post("deposits/record", { ...sponsor, txHash }, { key: sponsorUser.key });
    expect(recorded.status).toBe(201);
    const deposit = await recorded.json();
    expect(deposit).toMatchObject({ txHash, amountWei: parseEther("1").toString(), fromAddress: sponsorAccount.address, toAddress: VAULT, chainId: w.anvil.chainId });
    const again = await w.post("deposits/record", { ...sponsor, txHash }, { key: sponsorUser.key });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(deposit);
    expect(await (await w.get("balance", sponsor, { key: sponsorUser.key })).json()).toEqual({
      ...sponsor, depositedWei: parseEther("1").toString(), spentWei: "0", heldWei: "0", availableWei: parseEther("1").toString(), activeReservations: 0,
    });

    // Settings: check-ins only, on the target contract, at most 0.01 ETH a transaction.
    const saved = await w.post("settings", { ...sponsor, enabledOperations: ["check_in"], maxCostPerTxWei: HOLD, allowedTargets: [w.target] }, { key: sponsorUser.key });
    expect(saved.status).toBe(200);
    expect(await (await w.get("settings", sponsor, { key: sponsorUser.key })).json()).toMatchObject({
      enabledOperations: ["check_in"], maxCostPerTxWei: HOLD, allowedTargets: [w.target], allowedSelectors: [], actorDailyCount: null,
    });

    // The actor, signed in to the check-in app, asks for sponsorship of their own check-in.
    const actor = await w.newAccount();
    const actorUser = await w.userWithWallet(actor);
    const token = await w.sessionToken(actorUser);
    const callData = w.checkInCall(actor);
    const call = { clientId: CLIENT_ID, targetAddress: w.target, callData, nativeValueWei: "0" };
    const checked = await w.post("check", { ...sponsor, operationType: "check_in", ...call, actorAddress: actor.address, maxCostWei: HOLD }, { token });
    expect(checked.status).toBe(200);
    const decision = await checked.json();
    expect(decision).toMatchObject({ eligible: true, reason: "eligible", reservationId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(BigInt(decision.availableWei)).toBe(parseEther("1") - BigInt(HOLD));
    expect(await (await w.get("balance", sponsor, { key: sponsorUser.key })).json()).toMatchObject({ heldWei: HOLD, activeReservations: 1 });

    // The provider asks the verifier before it sponsors.
    const verified = await w.providerVerify(w.verifyRequest(actor, callData));
    expect(verified.status).toBe(200);
    expect(await verified.json()).toEqual({ isAllowed: true, reason: "approved" });

    // The transaction is mined; complete charges what it really cost.
    const sent = await w.sendCall(actor, callData);
    const receipt = await w.chain.publicClient.getTransactionReceipt({ hash: sent });
    const cost = receipt.gasUsed * receipt.effectiveGasPrice;
    const completion = { reservationId: decision.reservationId, ...call, txHash: sent, mode: "eoa", actorAddress: actor.address };
    const completed = await w.post("provider/complete", completion, { token });
    expect(completed.status, await completed.clone().text()).toBe(200);
    const result = await completed.json();
    expect(result).toEqual({
      reservationId: decision.reservationId, usageId: expect.stringMatching(/^\d+$/), chargedWei: cost.toString(),
      releasedWei: (BigInt(HOLD) - cost).toString(), replayed: false,
    });
    // The same completion again: the first result, nothing charged twice.
    const replay = await w.post("provider/complete", completion, { token });
    expect(await replay.json()).toEqual({ ...result, replayed: true });

    expect(await (await w.get("balance", sponsor, { key: sponsorUser.key })).json()).toMatchObject({
      depositedWei: parseEther("1").toString(), spentWei: cost.toString(), heldWei: "0",
      availableWei: (parseEther("1") - cost).toString(), activeReservations: 0,
    });
    const usage = await (await w.get("usage", sponsor, { key: sponsorUser.key })).json();
    expect(usage).toMatchObject({ take: 20, page: 1, hasMore: false, nextCursor: null });
    expect(usage.items).toEqual([{
      id: result.usageId, chainId: w.anvil.chainId, operationType: "check_in", actorAddress: actor.address, mode: "eoa",
      txHash: sent, userOpHash: null, amountWei: cost.toString(), reservationId: decision.reservationId, createdAt: expect.any(String),
    }]);
    const searched = async (path: string, search: string) => (await (await w.get(path, { ...sponsor, search }, { key: sponsorUser.key })).json()).items.length;
    expect(await searched("usage", sent.slice(10, 30).toUpperCase())).toBe(1);
    expect(await searched("usage", "check_in")).toBe(1);
    expect(await searched("usage", "nft_mint")).toBe(0);
    expect(await searched("deposits", txHash.slice(2, 20))).toBe(1);
    const deposits = await (await w.get("deposits", sponsor, { key: sponsorUser.key })).json();
    expect(deposits.items).toEqual([deposit]);
  });

  it("the sponsor's owner reads by session too; nobody else reads the sponsor (404)", async () => {
    const { user, sponsor } = await w.fundedSponsor(await w.newAccount());
    const ownerSession = await w.sessionToken(user);
    expect((await w.get("balance", sponsor, { token: ownerSession })).status).toBe(200);
    const stranger = await w.userWithWallet(await w.newAccount());
    for (const path of ["balance", "usage", "deposits", "settings"]) {
      await expectErrorBody(await w.get(path, sponsor, { key: stranger.key }), 404, "sponsor_not_found");
    }
    await expectErrorBody(await w.post("settings", { ...sponsor, enabledOperations: ["nft_mint"] }, { key: stranger.key }), 404, "sponsor_not_found");
  });

  it("a direct EOA's completion may name the EOA as ownerAddress: the usage is recorded against that EOA (SPEC 4.5 rule 4)", async () => {
    const { user, sponsor } = await w.fundedSponsor(await w.newAccount());
    const actor = await w.newAccount();
    const token = await w.sessionToken(await w.userWithWallet(actor));
    const call = { clientId: CLIENT_ID, targetAddress: w.target, callData: w.checkInCall(actor), nativeValueWei: "0" };
    const { reservationId } = await (await w.post("check", { ...sponsor, operationType: "check_in", ...call, actorAddress: actor.address, maxCostWei: HOLD }, { token })).json();
    expect(await (await w.providerVerify(w.verifyRequest(actor, call.callData))).json()).toEqual({ isAllowed: true, reason: "approved" });
    const txHash = await w.sendCall(actor, call.callData);
    const completed = await w.post("provider/complete", { reservationId, ...call, txHash, mode: "eoa", ownerAddress: actor.address }, { token });
    expect(completed.status, await completed.clone().text()).toBe(200);
    const usage = await (await w.get("usage", sponsor, { key: user.key })).json();
    expect(usage.items).toEqual([expect.objectContaining({ reservationId, mode: "eoa", actorAddress: actor.address, txHash })]);
  });

  it("settings enable the promoter-payments distribution (SPEC 4.5), and checks of that operation are then eligible", async () => {
    const operations = ["check_in", "nft_mint", "venue_gasless", "promoter_reward_withdrawal", "promoter_payments_distribution"];
    const { user, sponsor } = await w.fundedSponsor(await w.newAccount(), { enabledOperations: ["check_in"] });
    const actor = await w.newAccount();
    const token = await w.sessionToken(await w.userWithWallet(actor));
    const distribution = {
      ...sponsor, operationType: "promoter_payments_distribution", clientId: CLIENT_ID, targetAddress: w.target, callData: w.checkInCall(actor),
      nativeValueWei: "0", actorAddress: actor.address, maxCostWei: HOLD,
    };
    expect(await (await w.post("check", distribution, { token })).json()).toMatchObject({ eligible: false, reason: "operation_not_enabled" });

    const saved = await w.post("settings", { ...sponsor, enabledOperations: operations }, { key: user.key });
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect((await (await w.get("settings", sponsor, { key: user.key })).json()).enabledOperations).toEqual(operations);
    expect(await (await w.post("check", distribution, { token })).json()).toMatchObject({ eligible: true, reason: "eligible" });
  });

  it("cancel releases the hold the provider denied; the balance is whole again", async () => {
    const { user, sponsor } = await w.fundedSponsor(await w.newAccount());
    const actor = await w.newAccount();
    const token = await w.sessionToken(await w.userWithWallet(actor));
    const call = { clientId: CLIENT_ID, targetAddress: w.target, callData: w.checkInCall(actor), nativeValueWei: "0" };
    const { reservationId } = await (await w.post("check", { ...sponsor, operationType: "check_in", ...call, actorAddress: actor.address, maxCostWei: HOLD }, { token })).json();
    const cancelled = await w.post("provider/cancel", { reservationId, ...call }, { token });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({ reservationId, releasedWei: HOLD });
    expect(await (await w.get("balance", sponsor, { key: user.key })).json()).toMatchObject({ heldWei: "0", availableWei: parseEther("1").toString() });
    await expectErrorBody(await w.post("provider/cancel", { reservationId, ...call }, { token }), 409, "reservation_not_active");
  });
});
