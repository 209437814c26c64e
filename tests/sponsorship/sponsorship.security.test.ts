// What the sponsorship routes refuse: the verifier without its secret, usage/record without
// sponsorship:write or from a browser, complete with fields other than those verified or a
// transaction charged already, cancel carrying a transaction, actors the caller cannot speak for,
// deposits that are not the sponsor's, and more checks than the rate limit allows.
import { type Hex, type LocalAccount, parseEther } from "viem";
import { deployTestToken } from "../../scripts/lib/contracts.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, startOfRateLimitWindow } from "../setup/test-context.ts";
import { CLIENT_ID, type SponsorshipWorld, startSponsorshipWorld } from "./sponsorship-fixtures.ts";

let w: SponsorshipWorld;
beforeAll(async () => {
  w = await startSponsorshipWorld({ SPONSORSHIP_RATE_LIMITS: JSON.stringify({ check: 5, depositsRecord: 2, usageRecord: 3 }) });
});
afterAll(() => w.close());

const HOLD = "10000000000000000";

/** A funded sponsor and a signed-in actor with a verified reservation for a check-in. */
async function verifiedReservation(actorOf?: { actor: LocalAccount; token: string }) {
  const { user, sponsor } = await w.fundedSponsor(await w.newAccount());
  const actor = actorOf?.actor ?? await w.newAccount();
  const token = actorOf?.token ?? await w.sessionToken(await w.userWithWallet(actor));
  const callData = w.checkInCall(actor);
  const call = { clientId: CLIENT_ID, targetAddress: w.target, callData, nativeValueWei: "0" };
  const checked = await (await w.post("check", { ...sponsor, operationType: "check_in", ...call, actorAddress: actor.address, maxCostWei: HOLD }, { token })).json();
  expect(checked.eligible).toBe(true);
  expect(await (await w.providerVerify(w.verifyRequest(actor, callData))).json()).toEqual({ isAllowed: true, reason: "approved" });
  return { sponsorUser: user, sponsor, actor, token, call, reservationId: checked.reservationId as string };
}

describe("provider/verify", () => {
  it("refuses a missing or wrong secret before anything else (401), and approves nothing unreserved", async () => {
    const actor = await w.newAccount();
    const request = w.verifyRequest(actor, w.checkInCall(actor));
    await expectErrorBody(await w.providerVerify(request, null), 401, "invalid_verifier_secret");
    await expectErrorBody(await w.providerVerify(request, "verifier-secret-0123456789-0123456789-abcdeF"), 401, "invalid_verifier_secret");
    await expectErrorBody(await w.providerVerify({ not: "even valid" }, "wrong"), 401, "invalid_verifier_secret");
    expect(await (await w.providerVerify(request)).json()).toEqual({ isAllowed: false, reason: "no_matching_reservation" });
  });

  it("accepts both secrets during a rotation", async () => {
    const { createApiApp } = await import("../../supabase/functions/api/app.ts");
    const rotating = createApiApp({ db: w.t.db, config: { ...w.t.config, SPONSORSHIP_VERIFIER_SECRETS: ["new-secret-0123456789-0123456789-0123456789", "verifier-secret-0123456789-0123456789-abcdef"] } });
    const actor = await w.newAccount();
    for (const secret of ["new-secret-0123456789-0123456789-0123456789", "verifier-secret-0123456789-0123456789-abcdef"]) {
      const response = await rotating.request("/api/v3/sponsorship/provider/verify", {
        method: "POST", headers: { "content-type": "application/json", "x-service-provider-verifier-secret": secret },
        body: JSON.stringify(w.verifyRequest(actor, w.checkInCall(actor))),
      });
      expect(response.status).toBe(200);
    }
  });

  it("refuses a gas cost above the hold and batches", async () => {
    const { sponsor } = await w.fundedSponsor(await w.newAccount());
    const actor = await w.newAccount();
    const token = await w.sessionToken(await w.userWithWallet(actor));
    const call = { clientId: CLIENT_ID, targetAddress: w.target, callData: w.checkInCall(actor), nativeValueWei: "0" };
    expect((await (await w.post("check", { ...sponsor, operationType: "check_in", ...call, actorAddress: actor.address, maxCostWei: HOLD }, { token })).json()).eligible).toBe(true);
    // 10^7 gas at 100 gwei is 1 ETH: far above the 0.01 ETH hold.
    const expensive = w.verifyRequest(actor, call.callData, { gasLimit: "10000000", gasPrice: "100000000000" });
    expect(await (await w.providerVerify(expensive)).json()).toEqual({ isAllowed: false, reason: "gas_cost_exceeds_hold" });
    const batch = w.verifyRequest(actor, call.callData);
    batch.userOp.data.targets.push(w.target);
    batch.userOp.data.callDatas.push(call.callData);
    expect(await (await w.providerVerify(batch)).json()).toEqual({ isAllowed: false, reason: "batch_not_supported" });
    const [recorded] = await w.t.owner<{ reasons: string[] }[]>`
      select array_agg(reason order by id) as reasons from sponsorship.verifications where sender = ${actor.address.toLowerCase()}`;
    expect(recorded!.reasons).toEqual(["gas_cost_exceeds_hold", "batch_not_supported"]);
  });
});

describe("provider/complete", () => {
  it("refuses fields other than those verified, naming the field (409), and a transaction charged already", async () => {
    const first = await verifiedReservation();
    // The actor sends another call than the reserved one: its own transaction, honestly reported.
    const otherData = w.checkInCall(first.actor, 2n);
    const otherTx = await w.sendCall(first.actor, otherData);
    const mismatch = await w.post("provider/complete", {
      reservationId: first.reservationId, ...first.call, callData: otherData, txHash: otherTx, mode: "eoa", actorAddress: first.actor.address,
    }, { token: first.token });
    const body = await expectErrorBody(mismatch, 409, "reservation_mismatch");
    expect(body.details).toEqual({ field: "callData" });

    // The reserved call, mined and completed; then the same hash for another reservation.
    const paid = await w.sendCall(first.actor, first.call.callData);
    const ok = await w.post("provider/complete", { reservationId: first.reservationId, ...first.call, txHash: paid, mode: "eoa", actorAddress: first.actor.address }, { token: first.token });
    expect(ok.status).toBe(200);
    const second = await verifiedReservation(first);
    const reused = await w.post("provider/complete", { reservationId: second.reservationId, ...second.call, txHash: paid, mode: "eoa", actorAddress: second.actor.address }, { token: second.token });
    await expectErrorBody(reused, 409, "transaction_already_charged");
  });

  it("refuses a clientId, targetAddress or nativeValueWei other than verified, naming the field (409), charging nothing", async () => {
    // Each transaction below is mined and is what the completion says it is (the chain check passes):
    // only the reservation's verified fields tell it apart.
    type Reserved = { reservationId: string; call: Record<string, string>; actor: LocalAccount; token: string };
    const complete = (r: Reserved, changes: Record<string, unknown>) =>
      w.post("provider/complete", { reservationId: r.reservationId, ...r.call, mode: "eoa", actorAddress: r.actor.address, ...changes }, { token: r.token });
    const refusedField = async (response: Response) => (await expectErrorBody(response, 409, "reservation_mismatch")).details;

    const byClient = await verifiedReservation();
    const paid = await w.sendCall(byClient.actor, byClient.call.callData);
    expect(await refusedField(await complete(byClient, { txHash: paid, clientId: "another-client" }))).toEqual({ field: "clientId" });

    // The reserved call data sent to another contract with the same mint function.
    const byTarget = await verifiedReservation();
    const otherTarget = await deployTestToken(w.chain.wallet(w.anvil.accounts[0]!), { name: "Other", symbol: "OTH", decimals: 0 });
    const elsewhere = await w.sendCall(byTarget.actor, byTarget.call.callData, otherTarget);
    expect(await refusedField(await complete(byTarget, { txHash: elsewhere, targetAddress: otherTarget }))).toEqual({ field: "targetAddress" });

    // A plain transfer reserved and verified without value, sent with 5 wei.
    const { user, sponsor } = await w.fundedSponsor(await w.newAccount());
    const actor = await w.newAccount();
    const token = await w.sessionToken(await w.userWithWallet(actor));
    const payee = (await w.newAccount()).address;
    const transfer = { clientId: CLIENT_ID, targetAddress: payee, callData: "0x" as Hex, nativeValueWei: "0" };
    const checked = await (await w.post("check", { ...sponsor, operationType: "check_in", ...transfer, actorAddress: actor.address, maxCostWei: HOLD }, { token })).json();
    const request = w.verifyRequest(actor, "0x");
    const verified = await w.providerVerify({ ...request, userOp: { ...request.userOp, targets: [payee], data: { targets: [payee], callDatas: ["0x"], values: ["0"] } } });
    expect(await verified.json()).toEqual({ isAllowed: true, reason: "approved" });
    const withValue = await w.sendCall(actor, "0x", payee, 5n);
    const byValue = { reservationId: checked.reservationId as string, call: transfer, actor, token };
    expect(await refusedField(await complete(byValue, { txHash: withValue, nativeValueWei: "5" }))).toEqual({ field: "nativeValueWei" });
    expect(await (await w.get("balance", sponsor, { key: user.key })).json()).toMatchObject({ spentWei: "0", heldWei: HOLD });

    // Refused, nothing was used up: the verified fields complete the first reservation.
    expect((await complete(byClient, { txHash: paid })).status).toBe(200);
    const [charged] = await w.t.owner<{ n: number }[]>`
      select count(*)::int as n from sponsorship.usage where reservation_id = any(${[byTarget.reservationId, byValue.reservationId]}::text[])`;
    expect(charged!.n).toBe(0);
  });

  it("answers 202 for a transaction not mined, 400 for one that is not the reserved call, 404 for another's reservation", async () => {
    const r = await verifiedReservation();
    const pending = await w.post("provider/complete", { reservationId: r.reservationId, ...r.call, txHash: `0x${"12".repeat(32)}`, mode: "eoa", actorAddress: r.actor.address }, { token: r.token });
    expect(pending.status).toBe(202);
    expect(await pending.json()).toMatchObject({ status: "pending", reason: "receipt_not_found" });
    const deposit = await w.sendDeposit(r.actor, 1n);
    const wrong = await w.post("provider/complete", { reservationId: r.reservationId, ...r.call, txHash: deposit, mode: "eoa", actorAddress: r.actor.address }, { token: r.token });
    await expectErrorBody(wrong, 400, "wrong_target");
    await expectErrorBody(await w.post("provider/complete", { reservationId: r.reservationId, ...r.call, txHash: deposit, mode: "eoa", actorAddress: r.actor.address }, { key: r.sponsorUser.key }), 404, "reservation_not_found");
  });
});

describe("cancel", () => {
  it("refuses a body with a sponsor, a transaction or a receipt (400 cancel_field_not_allowed), and other fields than reserved", async () => {
    const { sponsor } = await w.fundedSponsor(await w.newAccount());
    const actor = await w.newAccount();
    const token = await w.sessionToken(await w.userWithWallet(actor));
    const call = { clientId: CLIENT_ID, targetAddress: w.target, callData: w.checkInCall(actor), nativeValueWei: "0" };
    const { reservationId } = await (await w.post("check", { ...sponsor, operationType: "check_in", ...call, actorAddress: actor.address, maxCostWei: HOLD }, { token })).json();
    for (const extra of [{ sponsorAddress: sponsor.walletAddress }, { txHash: `0x${"ab".repeat(32)}` }, { receipt: {} }]) {
      const response = await w.post("provider/cancel", { reservationId, ...call, ...extra }, { token });
      await expectErrorBody(response, 400, "cancel_field_not_allowed");
    }
    const mismatch = await w.post("provider/cancel", { reservationId, ...call, clientId: "another-client" }, { token });
    expect((await expectErrorBody(mismatch, 409, "reservation_mismatch")).details).toEqual({ field: "clientId" });
  });

  it("refuses a reservation the provider approved: it completes or expires (409 reservation_verified)", async () => {
    const r = await verifiedReservation();
    await expectErrorBody(await w.post("provider/cancel", { reservationId: r.reservationId, ...r.call }, { token: r.token }), 409, "reservation_verified");
  });
});

describe("usage/record", () => {
  it("needs sponsorship:write (403) and refuses browsers (403 when Origin is sent)", async () => {
    const account = await w.newAccount();
    const withoutPermission = await w.userWithWallet(await w.newAccount());
    const body = { walletAddress: account.address, chainId: w.anvil.chainId, operationType: "check_in", actorAddress: account.address, txHash: `0x${"cd".repeat(32)}`, amountWei: "1000" };
    await expectErrorBody(await w.post("usage/record", body, { key: withoutPermission.key }), 403, "missing_permission");
    const session = await w.sessionToken(withoutPermission);
    await expectErrorBody(await w.post("usage/record", body, { token: session }), 401, "wrong_auth_scheme");

    const trusted = await w.t.userWithKey(["sponsorship:write"]);
    await expectErrorBody(await w.post("usage/record", body, { key: trusted.key, headers: { origin: "https://app.example" } }), 403, "browser_requests_refused");
  });

  it("charges the trusted integration's own sponsor once, never beyond the balance", async () => {
    const account = await w.newAccount();
    const owner = await w.userWithWallet(account, ["sponsorship:write"]);
    const sponsor = { walletAddress: account.address, chainId: w.anvil.chainId };
    await w.post("deposits/record", { ...sponsor, txHash: await w.sendDeposit(account, 5000n) }, { key: owner.key });
    const body = { ...sponsor, operationType: "nft_mint", actorAddress: account.address, txHash: `0x${"ef".repeat(32)}`, amountWei: "3000" };
    const recorded = await w.post("usage/record", body, { key: owner.key });
    expect(recorded.status).toBe(201);
    expect(await recorded.json()).toMatchObject({ mode: "recorded", amountWei: "3000", operationType: "nft_mint" });
    expect((await w.post("usage/record", body, { key: owner.key })).status).toBe(200);
    await expectErrorBody(await w.post("usage/record", { ...body, txHash: `0x${"ee".repeat(32)}` }, { key: owner.key }), 409, "insufficient_balance");
    expect(await (await w.get("balance", sponsor, { key: owner.key })).json()).toMatchObject({ spentWei: "3000", availableWei: "2000" });
  });
});

describe("amounts", () => {
  it("refuses a wei amount above 2^256-1 in settings and checks (400), and takes 2^256-1 itself", async () => {
    const { user, sponsor } = await w.fundedSponsor(await w.newAccount());
    const max = (2n ** 256n - 1n).toString();
    const over = (2n ** 256n).toString();
    expect(over).toHaveLength(78);
    await expectErrorBody(await w.post("settings", { ...sponsor, enabledOperations: ["check_in"], maxCostPerTxWei: over }, { key: user.key }), 400, "validation_failed");
    await expectErrorBody(await w.post("settings", { ...sponsor, enabledOperations: ["check_in"], sponsorDailyAmountWei: "9".repeat(78) }, { key: user.key }), 400, "validation_failed");
    const saved = await w.post("settings", { ...sponsor, enabledOperations: ["check_in"], maxCostPerTxWei: max }, { key: user.key });
    expect(saved.status).toBe(200);
    expect((await saved.json()).maxCostPerTxWei).toBe(max);
    const actor = await w.newAccount();
    const call = { clientId: CLIENT_ID, targetAddress: w.target, callData: w.checkInCall(actor), nativeValueWei: "0" };
    await expectErrorBody(await w.post("check", { ...sponsor, operationType: "check_in", ...call, actorAddress: actor.address, maxCostWei: over }, { key: user.key }), 400, "validation_failed");
  });
});

describe("check and deposits", () => {
  it("refuses an actor the caller has not linked (403 actor_not_linked)", async () => {
    const { sponsor } = await w.fundedSponsor(await w.newAccount());
    const caller = await w.userWithWallet(await w.newAccount());
    const someoneElse = await w.newAccount();
    const response = await w.post("check", {
      ...sponsor, operationType: "check_in", clientId: CLIENT_ID, targetAddress: w.target, callData: w.checkInCall(someoneElse),
      actorAddress: someoneElse.address, maxCostWei: HOLD,
    }, { key: caller.key });
    await expectErrorBody(response, 403, "actor_not_linked");
  });

  it("records only the sponsor's own transfer to the vault", async () => {
    const sponsorAccount = await w.newAccount();
    const someoneElse = await w.newAccount();
    const user = await w.userWithWallet(sponsorAccount);
    const sponsor = { walletAddress: sponsorAccount.address, chainId: w.anvil.chainId };
    await expectErrorBody(await w.post("deposits/record", { ...sponsor, txHash: await w.sendDeposit(someoneElse, parseEther("1")) }, { key: user.key }), 400, "wrong_sender");
    await expectErrorBody(await w.post("deposits/record", { ...sponsor, txHash: await w.sendDeposit(sponsorAccount, 1n, someoneElse.address) }, { key: user.key }), 400, "not_a_deposit");
  });

  it("limits checks per user and minute (429 with Retry-After)", async () => {
    const { user, sponsor } = await w.fundedSponsor(await w.newAccount());
    const body = { ...sponsor, operationType: "nft_mint", clientId: CLIENT_ID, targetAddress: w.target, callData: "0x", actorAddress: sponsor.walletAddress, maxCostWei: "1" };
    await startOfRateLimitWindow();
    const responses: Response[] = [];
    for (let i = 0; i < 7; i++) responses.push(await w.post("check", body, { key: user.key }));
    // SPONSORSHIP_RATE_LIMITS.check is 5: five answers (not eligible: nft_mint is not enabled), then refusals.
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(Number(responses[5]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await expectErrorBody(responses[5]!, 429, "rate_limited");
  });

  it("limits deposits/record and usage/record per user and minute too (their own limits, 429 with Retry-After)", async () => {
    const txHash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
    // Deposits (depositsRecord 2): counted before the chain is read, so hashes nobody sent (pending, 202) count.
    const depositor = await w.newAccount();
    const depositorUser = await w.userWithWallet(depositor);
    const deposit = { walletAddress: depositor.address, chainId: w.anvil.chainId };
    // Usage (usageRecord 3): a trusted integration's own funded sponsor.
    const integration = await w.newAccount();
    const owner = await w.userWithWallet(integration, ["sponsorship:write"]);
    const sponsor = { walletAddress: integration.address, chainId: w.anvil.chainId };
    expect((await w.post("deposits/record", { ...sponsor, txHash: await w.sendDeposit(integration, 5000n) }, { key: owner.key })).status).toBe(201);

    await startOfRateLimitWindow();
    const deposits: Response[] = [];
    for (let i = 1; i <= 3; i++) deposits.push(await w.post("deposits/record", { ...deposit, txHash: txHash(0xd000 + i) }, { key: depositorUser.key }));
    expect(deposits.map((r) => r.status)).toEqual([202, 202, 429]);
    expect(Number(deposits[2]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await expectErrorBody(deposits[2]!, 429, "rate_limited");

    const usage: Response[] = [];
    for (let i = 1; i <= 4; i++) {
      const body = { ...sponsor, operationType: "nft_mint", actorAddress: integration.address, txHash: txHash(0xe000 + i), amountWei: "1" };
      usage.push(await w.post("usage/record", body, { key: owner.key }));
    }
    expect(usage.map((r) => r.status)).toEqual([201, 201, 201, 429]);
    await expectErrorBody(usage[3]!, 429, "rate_limited");
    expect(await (await w.get("balance", sponsor, { key: owner.key })).json()).toMatchObject({ spentWei: "3" });
  });
});
