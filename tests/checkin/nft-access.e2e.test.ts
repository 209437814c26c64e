// NFT access enforced, through REST on real chains: anvil with the project's ERC-721 (enumerable) and
// ERC-1155 pass contracts read by viem, and the Sui stand-in read by SuiGrpcClient. A holder registers
// and is admitted; a non-holder is refused; a token moved away after reserving is refused at the
// door; one token admits one person; a chain that cannot be read never admits; `view` rules list the
// event only for people whose wallets satisfied them.
import { type Address, encodeFunctionData, type Hex, parseAbi } from "viem";
import { generatePrivateKey, type HDAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { deployAccessPass1155, deployAccessPass721 } from "../../scripts/lib/contracts.ts";
import { freePort } from "../../scripts/lib/gateway-process.ts";
import { startChain } from "../chain/chain-fixtures.ts";
import { expectErrorBody, type UserWithKey } from "../setup/test-context.ts";
import { randomAddress, type Sui, startSui } from "../sui/sui-fixtures.ts";
import { type CheckIn, startCheckIn } from "./checkin-fixtures.ts";

const pass721 = parseAbi(["function mint(address to) returns (uint256)", "function transferFrom(address from, address to, uint256 tokenId)"]);
const pass1155 = parseAbi(["function mint(address to, uint256 id, uint256 amount)"]);
const DEAD_CHAIN_ID = 31_999;

let chain: Awaited<ReturnType<typeof startChain>>;
let sui: Sui;
let c: CheckIn;
let minter: HDAccount;
let pass: Address;
let multi: Address;
const wallets: HDAccount[] = [];

beforeAll(async () => {
  chain = await startChain();
  sui = await startSui();
  c = await startCheckIn({
    EVM_CHAINS: JSON.stringify([
      { chainId: chain.anvil.chainId, rpcUrl: chain.anvil.rpcUrl },
      { chainId: DEAD_CHAIN_ID, rpcUrl: `http://127.0.0.1:${await freePort()}` },
    ]),
    SUI_NETWORKS: JSON.stringify([sui.network]),
  });
  minter = chain.anvil.accounts[0]!;
  wallets.push(...chain.anvil.accounts.slice(1, 7));
  pass = await deployAccessPass721(chain.wallet(minter), { name: "Door Pass", symbol: "DOOR", owner: minter.address });
  multi = await deployAccessPass1155(chain.wallet(minter), { uri: "https://example.com/{id}.json", owner: minter.address });
});
afterAll(async () => {
  await c?.t.close();
  await chain?.anvil.stop();
  await sui?.node.close();
});

const send = (from: HDAccount, to: Address, data: Hex) => chain.send(from, to, data);
const mint721 = (to: { address: Address }) => send(minter, pass, encodeFunctionData({ abi: pass721, functionName: "mint", args: [to.address] }));
const transfer721 = (from: HDAccount, to: HDAccount, tokenId: bigint) =>
  send(from, pass, encodeFunctionData({ abi: pass721, functionName: "transferFrom", args: [from.address, to.address, tokenId] }));
const tokenCount = async () => Number(await chain.publicClient.readContract({ address: pass, abi: parseAbi(["function totalSupply() view returns (uint256)"]), functionName: "totalSupply" }));

/** A wallet that only receives (no gas needed): a new address per person, as a wallet belongs to one person. */
const receiver = () => privateKeyToAccount(generatePrivateKey());

/** A person with `wallet` linked on anvil. */
async function person(wallet?: { address: Address }): Promise<UserWithKey> {
  const user = await c.t.userWithKey();
  if (wallet) await linkAddress(c.t.adminDb, { userId: user.id, address: wallet.address, chainId: String(chain.anvil.chainId), connector: "injected" });
  return user;
}

const rule = (grants: string[], extra: Record<string, unknown> = {}) =>
  ({ chain: "evm", chainId: chain.anvil.chainId, collection: pass, minBalance: 1, grants, ...extra });

describe("an ERC-721 rule", () => {
  it("a holder registers and is admitted with the read as evidence; a non-holder is refused at registration", async () => {
    const holderWallet = receiver();
    await mint721(holderWallet);
    const tokenId = String(await tokenCount());
    const eventId = await c.event(undefined, { accessRules: [rule(["register", "checkIn"])] });
    const holder = await person(holderWallet);
    const reserved = await c.call(holder, "POST", `/api/v3/events/${eventId}/reservations`);
    expect(reserved.status).toBe(201);
    expect(reserved.body.accessEvidence).toMatchObject({ satisfied: true, balance: 1, tokens: [tokenId], rule: { collection: pass } });
    expect(Number(reserved.body.accessEvidence.block)).toBeGreaterThan(0);

    const stranger = await person(receiver());
    const refused = await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations`, { method: "POST", key: stranger.key }), 403, "access_denied");
    expect(refused.details.evidence[0]).toMatchObject({ satisfied: false, balance: 0 });
    const walletless = await person();
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations`, { method: "POST", key: walletless.key }), 403, "access_denied");

    const scan = await c.scan(c.host, eventId, { method: "manual", reservationId: reserved.body.id });
    expect(scan).toMatchObject({ result: "admitted", evidence: { satisfied: true, tokens: [tokenId] } });
  });

  it("a token transferred away after reserving is refused at the door", async () => {
    const [sellerWallet, buyerWallet] = [wallets[2]!, wallets[3]!];
    await mint721(sellerWallet);
    const tokenId = BigInt(await tokenCount());
    const eventId = await c.event(undefined, { accessRules: [rule(["register", "checkIn"])] });
    const seller = await person(sellerWallet);
    const reservation = await c.reserve(seller, eventId);
    await transfer721(sellerWallet, buyerWallet, tokenId);
    expect((await c.scan(c.host, eventId, { method: "manual", reservationId: reservation.id })).result).toBe("access_denied");
  });

  it("one token admits one person: passed to someone else after entering, it does not admit them", async () => {
    const [firstWallet, secondWallet] = [wallets[4]!, wallets[5]!];
    await mint721(firstWallet);
    const tokenId = BigInt(await tokenCount());
    const eventId = await c.event(undefined, { accessRules: [rule(["checkIn"])] });
    const [first, second] = [await person(firstWallet), await person(secondWallet)];
    const [firstReservation, secondReservation] = [await c.reserve(first, eventId), await c.reserve(second, eventId)];
    expect((await c.scan(c.host, eventId, { method: "manual", reservationId: firstReservation.id })).result).toBe("admitted");
    await transfer721(firstWallet, secondWallet, tokenId);
    expect((await c.scan(c.host, eventId, { method: "manual", reservationId: secondReservation.id })).result).toBe("token_already_used");
  });

  it("view rules list the event only for holders with a recent read (GET /access reads it)", async () => {
    const holderWallet = receiver();
    await mint721(holderWallet);
    const eventId = await c.event(undefined, { accessRules: [rule(["view"])] });
    const [holder, stranger] = [await person(holderWallet), await person(receiver())];
    const listed = async (who: UserWithKey) =>
      (await c.call(who, "GET", "/api/v3/events?take=100")).body.items.some((event: { id: string }) => event.id === eventId);
    expect(await listed(holder)).toBe(false);
    const access = await c.call(holder, "GET", `/api/v3/events/${eventId}/access`);
    expect(access.body).toMatchObject({ view: true, register: true, checkIn: true });
    expect(await listed(holder)).toBe(true);
    expect((await c.call(stranger, "GET", `/api/v3/events/${eventId}/access`)).body.view).toBe(false);
    expect(await listed(stranger)).toBe(false);
    expect(await listed(c.host)).toBe(true);
    expect((await c.call(stranger, "GET", `/api/v3/events/${eventId}`)).status).toBe(200);
  });
});

describe("an ERC-1155 rule", () => {
  it("counts units of the rule's token id", async () => {
    const [holderWallet, otherWallet] = [receiver(), receiver()];
    await send(minter, multi, encodeFunctionData({ abi: pass1155, functionName: "mint", args: [holderWallet.address, 7n, 2n] }));
    await send(minter, multi, encodeFunctionData({ abi: pass1155, functionName: "mint", args: [otherWallet.address, 8n, 1n] }));
    const eventId = await c.event(undefined, { accessRules: [rule(["register"], { collection: multi, tokenId: "7", minBalance: 2 })] });
    const reserved = await c.call(await person(holderWallet), "POST", `/api/v3/events/${eventId}/reservations`);
    expect(reserved.status).toBe(201);
    expect(reserved.body.accessEvidence).toMatchObject({ balance: 2, tokenId: "7", tokens: null });
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations`, { method: "POST", key: (await person(otherWallet)).key }), 403, "access_denied");
  });
});

describe("a chain that cannot be read", () => {
  it("never admits: 503 at registration, access_unavailable at the door", async () => {
    const eventId = await c.event(undefined, { accessRules: [rule(["register"], { chainId: DEAD_CHAIN_ID })] });
    const wallet = receiver();
    const somebody = await person(wallet);
    await linkAddress(c.t.adminDb, { userId: somebody.id, address: wallet.address, chainId: String(DEAD_CHAIN_ID), connector: "injected" });
    await expectErrorBody(await c.t.call(`/api/v3/events/${eventId}/reservations`, { method: "POST", key: somebody.key }), 503, "holdings_unavailable");

    const door = await c.event(undefined, { accessRules: [rule(["checkIn"], { chainId: DEAD_CHAIN_ID })] });
    const reservation = await c.reserve(somebody, door);
    expect((await c.scan(c.host, door, { method: "manual", reservationId: reservation.id })).result).toBe("access_unavailable");
  });
});

describe("a Sui rule", () => {
  it("a pass holder is admitted; the same pass moved to someone else does not admit them", async () => {
    const collection = randomAddress();
    const [aliceAddress, bobAddress] = [randomAddress(), randomAddress()];
    const passId = sui.node.givePass(aliceAddress, { collectionId: collection });
    const eventId = await c.event(undefined, {
      accessRules: [{ chain: "sui", chainId: sui.network.network, collection, minBalance: 1, grants: ["checkIn"] }],
    });
    const [alice, bob] = [await c.t.userWithKey(), await c.t.userWithKey()];
    await linkAddress(c.t.adminDb, { userId: alice.id, address: aliceAddress, chainId: sui.network.network, connector: "sui-wallet" });
    await linkAddress(c.t.adminDb, { userId: bob.id, address: bobAddress, chainId: sui.network.network, connector: "sui-wallet" });
    const [aliceReservation, bobReservation] = [await c.reserve(alice, eventId), await c.reserve(bob, eventId)];
    expect((await c.scan(c.host, eventId, { method: "manual", reservationId: bobReservation.id })).result).toBe("access_denied");
    const admitted = await c.scan(c.host, eventId, { method: "manual", reservationId: aliceReservation.id });
    expect(admitted).toMatchObject({ result: "admitted", evidence: { tokens: [passId], checkpoint: expect.any(String) } });
    sui.node.ledger.objects.get(passId)!.owner = { address: bobAddress };
    expect((await c.scan(c.host, eventId, { method: "manual", reservationId: bobReservation.id })).result).toBe("token_already_used");
  });
});
