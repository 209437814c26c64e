// Gasless relays on anvil through the REST API: 20 concurrent relays with one
// relayer key get nonces n..n+19 exactly, all mined and each charged once; a second relayer
// instance after a "crash" (signed rows never broadcast) neither reuses nor skips a nonce; a stuck
// transaction is replaced with higher fees and charged once; refusals happen before anything is
// signed; a free collection mints gasless; the key never shows in logs or error bodies.
import { type Hex, parseAbi, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "../../supabase/functions/api/app.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { relayOnce } from "../../supabase/functions/_shared/relays/relayer.ts";
import { deployCollection } from "../../scripts/lib/contracts.ts";
import { createTestContext, expectErrorBody, TEST_JWT_SECRET } from "../setup/test-context.ts";
import { captured, leaksOf, type RelayWorld, rpcLosingBroadcasts, startRelayWorld } from "./relays-fixtures.ts";

let w: RelayWorld;
const bodies: string[] = [];
beforeAll(async () => {
  w = await startRelayWorld();
});
afterAll(() => w.close());

async function text(response: Response) {
  const body = await response.clone().text();
  bodies.push(body);
  return body;
}

/** Every usage and receipt agree: each relay charged once, gasUsed × effectiveGasPrice of its mined transaction. */
async function expectChargedOnce(relayIds: string[]) {
  const rows = await w.t.owner<{ id: string; status: string; mined_tx_hash: string; cost: string; amount: string; mode: string; n: string }[]>`
    select r.id, r.status, r.mined_tx_hash, r.cost::text, u.amount::text, u.mode,
           (select count(*)::text from sponsorship.usage x where x.reservation_id = r.reservation_id) as n
    from relays.relays r join sponsorship.usage u on u.id = r.usage_id where r.id = any(${relayIds}::text[])`;
  expect(rows).toHaveLength(relayIds.length);
  for (const row of rows) {
    expect(row).toMatchObject({ status: "mined", mode: "relayed", n: "1" });
    const receipt = await w.chain.publicClient.getTransactionReceipt({ hash: row.mined_tx_hash as Hex });
    expect(receipt.status).toBe("success");
    expect(row.amount).toBe((receipt.gasUsed * receipt.effectiveGasPrice).toString());
  }
  return rows.reduce((sum, row) => sum + BigInt(row.amount), 0n);
}

describe("nonces under concurrency", () => {
  it("20 concurrent relays with one relayer key: nonces n..n+19, all mined, each charged once, the balance consistent", async () => {
    const sponsor = await w.venueSponsor();
    const actor = await w.actor();
    const start = BigInt(await w.chain.publicClient.getTransactionCount({ address: w.relayer.address, blockTag: "pending" }));
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      w.relayVenue({ ...sponsor.sponsor, targetAddress: w.target, callData: w.checkInCall(actor.account.address, BigInt(i + 1)), actorAddress: actor.account.address }, actor.key)));
    const accepted = [];
    for (const response of responses) {
      expect(response.status, await text(response)).toBe(202);
      accepted.push(await response.json());
    }
    const nonces = accepted.map((a) => BigInt(a.nonce)).sort((a, b) => (a < b ? -1 : 1));
    expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => start + BigInt(i)));
    expect(accepted.map((a) => a.status)).toEqual(Array(20).fill("submitted"));
    expect(accepted.every((a) => a.relayerAddress === w.relayer.address)).toBe(true);
    expect(new Set(accepted.map((a) => a.txHash)).size).toBe(20);
    expect(await w.nextNonce()).toBe(start + 20n);

    await w.settle(Number(start) + 20);
    expect(await w.minedNonce()).toBe(Number(start) + 20);
    const charged = await expectChargedOnce(accepted.map((a) => a.relayId));
    // Every transaction on-chain is one of ours, with the nonce the table gave it.
    for (const a of accepted) {
      const tx = await w.chain.publicClient.getTransaction({ hash: a.txHash });
      expect(BigInt(tx.nonce)).toBe(BigInt(a.nonce));
    }
    const balance = await (await w.get("balance", sponsor.sponsor, { key: sponsor.user.key })).json();
    expect(balance).toMatchObject({ spentWei: charged.toString(), heldWei: "0", activeReservations: 0, availableWei: (parseEther("1") - charged).toString() });
    // A pass again charges nothing twice.
    expect((await w.pass()).completed).toBe(0);
    const [usage] = await w.t.owner<{ n: string; total: string }[]>`
      select count(*)::text as n, sum(amount)::text as total from sponsorship.usage u join sponsorship.sponsors s on s.id = u.sponsor_id
      where s.wallet_address = ${sponsor.sponsor.walletAddress.toLowerCase()}`;
    expect(usage).toEqual({ n: "20", total: charged.toString() });

    // The status read shows the mined relay and its charge.
    const read = await w.t.call(`/api/v3/crypto/evm/venue-gasless/${accepted[0].relayId}`, { key: actor.key });
    expect(read.status, await text(read)).toBe(200);
    expect(await read.json()).toMatchObject({ relayId: accepted[0].relayId, status: "mined", attempts: 1, reverted: false, chargedWei: expect.stringMatching(/^\d+$/) });
    // Nobody else's.
    const stranger = await w.actor();
    await expectErrorBody(await w.t.call(`/api/v3/crypto/evm/venue-gasless/${accepted[0].relayId}`, { key: stranger.key }), 404, "relay_not_found");
  });

  it("a restart between signing and broadcasting: the second instance neither reuses nor skips a nonce", async () => {
    const sponsor = await w.venueSponsor();
    const actor = await w.actor();
    const start = BigInt(await w.nextNonce() ?? 0n);
    // An instance of its own: configuration, relayer and chain client (fresh caches), the same key and database.
    const instanceConfig = (chains: typeof w.t.config.EVM_CHAINS) => loadConfig({
      GATEWAY_DATABASE_URL: w.t.config.GATEWAY_DATABASE_URL, APP_ENV: "test", JWT_SECRET: TEST_JWT_SECRET,
      SECRETS_ENCRYPTION_KEY: w.t.config.SECRETS_ENCRYPTION_KEY!, EVM_CHAINS: JSON.stringify(chains), RELAYER_PRIVATE_KEY: w.relayerKey,
    });
    const relayThrough = (app: ReturnType<typeof createApiApp>, json: unknown) => app.request("/api/v3/crypto/evm/venue-gasless", {
      method: "POST", body: JSON.stringify(json), headers: { "content-type": "application/json", "x-api-key": actor.key } });
    // The first instance "crashes" after committing each signed transaction, before it reaches the node.
    const losing = await rpcLosingBroadcasts(w.t.config.EVM_CHAINS[0]!.rpcUrl);
    const db = new Database(connect(w.t.config.GATEWAY_DATABASE_URL, { max: 3, prepare: true }));
    try {
      const crashing = createApiApp({ config: instanceConfig(w.t.config.EVM_CHAINS.map((chain) => ({ ...chain, rpcUrl: losing.url }))), db: w.t.db });
      const first = await Promise.all([1n, 2n, 3n].map((amount) =>
        relayThrough(crashing, { ...sponsor.sponsor, targetAddress: w.target, callData: w.checkInCall(actor.account.address, amount), actorAddress: actor.account.address })));
      for (const response of first) expect(response.status, await text(response)).toBe(202);
      const crashed = await Promise.all(first.map((r) => r.json()));
      expect(crashed.map((a) => a.status)).toEqual(["signed", "signed", "signed"]);
      expect(crashed.map((a) => BigInt(a.nonce)).sort()).toEqual([start, start + 1n, start + 2n]);
      expect(await w.minedNonce()).toBe(Number(start)); // nothing reached the chain

      // A second instance, with its own pool too.
      const config = instanceConfig(w.t.config.EVM_CHAINS);
      const second = createApiApp({ config, db });
      const call = (json: unknown) => relayThrough(second, json);
      // New relays through the second instance first: the chain's pending nonce is still `start`,
      // the table's is start + 3, and the table wins.
      const later = await Promise.all([4n, 5n].map((amount) =>
        call({ ...sponsor.sponsor, targetAddress: w.target, callData: w.checkInCall(actor.account.address, amount), actorAddress: actor.account.address })));
      for (const response of later) expect(response.status, await text(response)).toBe(202);
      const laterBodies = await Promise.all(later.map((r) => r.json()));
      expect(laterBodies.map((a) => BigInt(a.nonce)).sort()).toEqual([start + 3n, start + 4n]);
      // Its recovery pass broadcasts the crashed instance's signed transactions: the gap closes.
      const outcome = await relayOnce({ config, db });
      expect(outcome.rebroadcast).toBeGreaterThanOrEqual(3);
      for (let i = 0; i < 100 && (await w.minedNonce()) < Number(start) + 5; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await w.minedNonce()).toBe(Number(start) + 5);
      const settled = await relayOnce({ config, db });
      expect(outcome.completed + settled.completed).toBe(5); // the queued later ones may settle in the first pass already
      await expectChargedOnce([...crashed, ...laterBodies].map((a) => a.relayId));
      const rows = (await w.relays()).filter((r) => BigInt(r.nonce) >= start);
      expect(rows.map((r) => BigInt(r.nonce))).toEqual([0n, 1n, 2n, 3n, 4n].map((i) => start + i));
    } finally {
      await db.close();
      await losing.close();
    }
  });
});

describe("with the check-in app's session", () => {
  it("relays a check-in and reads its progress with an app session token instead of an API key", async () => {
    const sponsor = await w.venueSponsor();
    const actor = await w.actor();
    const token = await w.sessionToken(actor.user);
    const call = { ...sponsor.sponsor, targetAddress: w.target, callData: w.checkInCall(actor.account.address, 7n), actorAddress: actor.account.address };
    const accepted = await w.t.call("/api/v3/crypto/evm/venue-gasless", { method: "POST", json: call, headers: { authorization: `Bearer ${token}` } });
    expect(accepted.status, await text(accepted)).toBe(202);
    const { relayId } = await accepted.json();
    const read = await w.t.call(`/api/v3/crypto/evm/venue-gasless/${relayId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.status, await text(read)).toBe(200);
    expect(await read.json()).toMatchObject({ relayId });
    // Another person's session sees no such relay.
    const stranger = await w.actor();
    await expectErrorBody(await w.t.call(`/api/v3/crypto/evm/venue-gasless/${relayId}`, { headers: { authorization: `Bearer ${await w.sessionToken(stranger.user)}` } }),
      404, "relay_not_found");
  });
});

describe("stuck transactions", () => {
  it("a transaction not mined is replaced with fees +12.5 % or more, and the relay is charged once for the one mined", async () => {
    const sponsor = await w.venueSponsor();
    const actor = await w.actor();
    await w.chain.testClient.setAutomine(false);
    try {
      const response = await w.relayVenue({ ...sponsor.sponsor, targetAddress: w.target, callData: w.checkInCall(actor.account.address, 7n), actorAddress: actor.account.address }, actor.key);
      expect(response.status, await text(response)).toBe(202);
      const accepted = await response.json();
      // Not stuck yet: the pass only broadcasts it again.
      expect(await w.pass()).toMatchObject({ replaced: 0, completed: 0 });
      // Stuck: replaced.
      expect(await w.pass({ replaceAfterMs: 0 })).toMatchObject({ replaced: 1 });
      const attempts = await w.t.owner<{ tx_hash: string; max_fee_per_gas: string; max_priority_fee_per_gas: string }[]>`
        select tx_hash, max_fee_per_gas::text, max_priority_fee_per_gas::text from relays.attempts where relay_id = ${accepted.relayId} order by attempt`;
      expect(attempts).toHaveLength(2);
      expect(attempts[0]!.tx_hash).toBe(accepted.txHash);
      expect(BigInt(attempts[1]!.max_fee_per_gas) * 8n).toBeGreaterThanOrEqual(BigInt(attempts[0]!.max_fee_per_gas) * 9n);
      expect(BigInt(attempts[1]!.max_priority_fee_per_gas) * 8n).toBeGreaterThanOrEqual(BigInt(attempts[0]!.max_priority_fee_per_gas) * 9n);
      await w.chain.testClient.mine({ blocks: 1 });
      expect(await w.pass()).toMatchObject({ completed: 1 });
      expect(await w.pass()).toMatchObject({ completed: 0 });
      const [relay] = (await w.relays()).filter((r) => r.id === accepted.relayId);
      expect(relay!.mined_tx_hash).toBe(attempts[1]!.tx_hash); // the replacement, not the original
      await expectChargedOnce([accepted.relayId]);
      const read = await (await w.t.call(`/api/v3/crypto/evm/venue-gasless/${accepted.relayId}`, { key: actor.key })).json();
      expect(read).toMatchObject({ status: "mined", attempts: 2, txHash: attempts[1]!.tx_hash });
    } finally {
      await w.chain.testClient.setAutomine(true);
    }
  });
});

describe("refused before anything is signed", () => {
  it("not-allowed targets, an empty allowlist, insufficient balance, a disabled operation, a reverting call, a low maxCostWei", async () => {
    const actor = await w.actor();
    const before = { relays: (await w.relays()).length, next: await w.nextNonce(), pending: await w.chain.publicClient.getTransactionCount({ address: w.relayer.address, blockTag: "pending" }) };
    const call = (sponsor: { walletAddress: string; chainId: number }, extra: Record<string, unknown> = {}) =>
      w.relayVenue({ ...sponsor, targetAddress: w.target, callData: w.checkInCall(actor.account.address), actorAddress: actor.account.address, ...extra }, actor.key);

    const other = await w.venueSponsor({ allowedTargets: ["0x000000000000000000000000000000000000dEaD"] });
    let r = await call(other.sponsor);
    await text(r);
    await expectErrorBody(r, 409, "target_not_allowed");
    const anyTarget = await w.venueSponsor({ allowedTargets: [] });
    r = await call(anyTarget.sponsor);
    await text(r);
    await expectErrorBody(r, 409, "target_not_allowed");
    const poor = await w.venueSponsor({}, 1000n);
    r = await call(poor.sponsor);
    await text(r);
    expect((await expectErrorBody(r, 409, "insufficient_balance")).details).toMatchObject({ reason: "insufficient_balance" });
    const checkInOnly = await w.venueSponsor({ enabledOperations: ["check_in"] });
    r = await call(checkInOnly.sponsor);
    await text(r);
    await expectErrorBody(r, 409, "operation_not_enabled");
    const rich = await w.venueSponsor();
    r = await call(rich.sponsor, { callData: "0xdeadbeef" });
    await text(r);
    await expectErrorBody(r, 422, "relay_would_revert");
    r = await call(rich.sponsor, { maxCostWei: "1" });
    await text(r);
    await expectErrorBody(r, 409, "max_cost_too_low");
    r = await call({ ...rich.sponsor, chainId: 999 });
    await text(r);
    await expectErrorBody(r, 400, "chain_not_supported");

    expect((await w.relays()).length).toBe(before.relays);
    expect(await w.nextNonce()).toBe(before.next);
    expect(await w.chain.publicClient.getTransactionCount({ address: w.relayer.address, blockTag: "pending" })).toBe(before.pending);
    for (const s of [other, anyTarget, poor, checkInOnly, rich]) {
      expect(await (await w.get("balance", s.sponsor, { key: s.user.key })).json()).toMatchObject({ heldWei: "0", spentWei: "0" });
    }
  });

  it("without RELAYER_PRIVATE_KEY both routes answer 503 relayer_not_configured", async () => {
    const t = await createTestContext({});
    try {
      const user = await t.userWithKey();
      const json = { walletAddress: w.relayer.address, chainId: 1, targetAddress: w.target, callData: "0x40c10f19", actorAddress: w.relayer.address };
      await expectErrorBody(await t.call("/api/v3/crypto/evm/venue-gasless", { method: "POST", key: user.key, json }), 503, "relayer_not_configured");
      await expectErrorBody(await t.call("/api/v3/nft-collection/65f1c0a2b3d4e5f601234567/gasless", { method: "POST", key: user.key,
        json: { sponsorWalletAddress: w.relayer.address, to: w.relayer.address } }), 503, "relayer_not_configured");
    } finally {
      await t.close();
    }
  });
});

describe("gasless mints", () => {
  const nftAbi = parseAbi(["function balanceOf(address owner) view returns (uint256)"]);

  async function registered(staticPrice: bigint) {
    const ownerAccount = await w.newAccount();
    const owner = await w.userWithWallet(ownerAccount);
    const address = await deployCollection(w.chain.wallet(w.anvil.accounts[0]!), { name: "Free", symbol: "FREE", owner: ownerAccount.address, pricing: "static", staticPrice });
    const response = await w.t.call("/api/v3/nft-collection", { method: "POST", key: owner.key,
      json: { chainId: w.anvil.chainId, address, pricing: "static", mintPrice: staticPrice.toString(), paymentToken: null } });
    expect(response.status, await response.clone().text()).toBe(201);
    return { address, id: (await response.json()).id as string };
  }

  it("a free collection mints to the caller, gas paid by the sponsor and charged once; a priced one is refused", async () => {
    const collection = await registered(0n);
    const sponsor = await w.fundedSponsor(await w.newAccount(), { enabledOperations: ["nft_mint"] });
    const actor = await w.actor();
    const post = (id: string, json: unknown) => w.t.call(`/api/v3/nft-collection/${id}/gasless`, { method: "POST", json, key: actor.key });
    const expected = (await w.minedNonce()) + 1;
    const response = await post(collection.id, { sponsorWalletAddress: sponsor.sponsor.walletAddress, to: actor.account.address });
    expect(response.status, await text(response)).toBe(202);
    const accepted = await response.json();
    await w.settle(expected);
    await expectChargedOnce([accepted.relayId]);
    expect(await w.chain.publicClient.readContract({ address: collection.address, abi: nftAbi, functionName: "balanceOf", args: [actor.account.address] })).toBe(1n);
    const read = await w.t.call(`/api/v3/nft-collection/${collection.id}/gasless/${accepted.relayId}`, { key: actor.key });
    expect(await read.json()).toMatchObject({ kind: "nft_mint", collectionId: collection.id, status: "mined" });

    const priced = await registered(1000n);
    const refused = await post(priced.id, { sponsorWalletAddress: sponsor.sponsor.walletAddress, to: actor.account.address });
    await text(refused);
    await expectErrorBody(refused, 409, "mint_not_free");
    const unknown = await post("65f1c0a2b3d4e5f601234567", { sponsorWalletAddress: sponsor.sponsor.walletAddress, to: actor.account.address });
    await text(unknown);
    await expectErrorBody(unknown, 404, "collection_not_found");
  });
});

describe("the relayer's key", () => {
  it("never appears in a log line, the process output or an error body", () => {
    expect(captured.some((line) => line.includes("[relayer]"))).toBe(true); // the crash above was logged
    expect(bodies.length).toBeGreaterThan(10);
    expect(leaksOf(w.relayerKey, captured)).toEqual([]);
    expect(leaksOf(w.relayerKey, bodies)).toEqual([]);
  });
});
