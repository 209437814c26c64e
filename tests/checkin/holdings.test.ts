// Reading an access rule's holdings for check-in, through the real clients: viem on anvil (reached
// through a proxy that records every JSON-RPC method, so the test sees one block number and one
// eth_call per multicall), and SuiGrpcClient on the Sui stand-in node.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Address, encodeFunctionData, getAddress, type Hex, parseAbi, zeroAddress } from "viem";
import type { HDAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/gateway-process.ts";
import { deployAccessPass1155, deployAccessPass721, deployCollection, deployTestToken } from "../../scripts/lib/contracts.ts";
import { TOKENS_LISTED_PER_OWNER } from "../../supabase/functions/_shared/chain/holdings.ts";
import { HoldingsUnavailable, type HoldingsRule, readHoldings } from "../../supabase/functions/_shared/checkin/holdings.ts";
import { checkoutCollectionAbi } from "../../supabase/functions/_shared/collections/contract.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";
import { newCheckoutRef, startChain } from "../chain/chain-fixtures.ts";
import { randomAddress, type Sui, startSui } from "../sui/sui-fixtures.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

const pass721Abi = parseAbi(["function mint(address to) returns (uint256)", "function transferFrom(address from, address to, uint256 tokenId)"]);
const pass1155Abi = parseAbi([
  "function mint(address to, uint256 id, uint256 amount)",
  "function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)",
]);
const tokenAbi = parseAbi(["function mint(address to, uint256 amount)"]);

/** A JSON-RPC proxy in front of anvil: the methods it saw, and a switch that fails one method with HTTP 503. */
async function startRecordingProxy(target: string) {
  const methods: string[] = [];
  let failing: string | null = null;
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const calls = [JSON.parse(body)].flat() as Array<{ method: string }>;
    methods.push(...calls.map((call) => call.method));
    if (calls.some((call) => call.method === failing)) {
      response.writeHead(503).end();
      return;
    }
    const answer = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    response.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
  });
  await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    failMethod(method: string | null) {
      failing = method;
    },
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

const configWith = (settings: { EVM_CHAINS?: unknown; SUI_NETWORKS?: unknown }) =>
  loadConfig({
    GATEWAY_DATABASE_URL: "postgres://unused@127.0.0.1:1/unused",
    EVM_CHAINS: JSON.stringify(settings.EVM_CHAINS ?? []),
    SUI_NETWORKS: JSON.stringify(settings.SUI_NETWORKS ?? []),
  });

let chain: Awaited<ReturnType<typeof startChain>>;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let sui: Sui;
let config: ReturnType<typeof loadConfig>;
let organiser: HDAccount;
let aliceWallet: HDAccount;
let aliceOtherWallet: HDAccount;
let bob: HDAccount;

beforeAll(async () => {
  chain = await startChain();
  proxy = await startRecordingProxy(chain.anvil.rpcUrl);
  sui = await startSui();
  config = configWith({ EVM_CHAINS: [{ chainId: chain.anvil.chainId, rpcUrl: proxy.url }], SUI_NETWORKS: [sui.network] });
  const [first, second, third, fourth] = chain.anvil.accounts;
  [organiser, aliceWallet, aliceOtherWallet, bob] = [first!, second!, third!, fourth!];
});
afterAll(async () => {
  await proxy?.close();
  await chain?.anvil.stop();
  await sui?.node.close();
});

const send = (from: HDAccount, to: Address, data: Hex) => chain.send(from, to, data);

const evmRule = (collection: Address, extra: Partial<HoldingsRule> = {}): HoldingsRule =>
  ({ chain: "evm", chainId: chain.anvil.chainId, collection, minBalance: 1, ...extra });
const latestBlock = async () => String(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));

/** Reads `rule` for `owners` and returns the evidence with the JSON-RPC methods the read used. */
async function readCounted(rule: HoldingsRule, owners: string[]) {
  proxy.methods.length = 0;
  const evidence = await readHoldings(config, rule, owners);
  return { evidence, methods: [...proxy.methods] };
}

describe("an ERC-721 collection", () => {
  let enumerable: Address;
  let plain: Address;

  beforeAll(async () => {
    enumerable = await deployAccessPass721(chain.wallet(organiser), { name: "Door Pass", symbol: "DOOR", owner: organiser.address });
    // Ids 1, 2 to alice's first wallet, 3 to her second, 4 to bob.
    for (const to of [aliceWallet, aliceWallet, aliceOtherWallet, bob]) {
      await send(organiser, enumerable, encodeFunctionData({ abi: pass721Abi, functionName: "mint", args: [to.address] }));
    }
    // The service's own checkout collection: a plain OpenZeppelin ERC-721, not enumerable (free mints here).
    plain = await deployCollection(chain.wallet(organiser), { name: "Plain", symbol: "PLN", owner: organiser.address, pricing: "static", staticPrice: 0n });
    for (const to of [aliceWallet, aliceOtherWallet, aliceOtherWallet]) {
      await send(organiser, plain, encodeFunctionData({ abi: checkoutCollectionAbi, functionName: "mint", args: [to.address, newCheckoutRef()] }));
    }
  });

  it("sums the balance over the linked addresses, per owner, names the token ids, and reports the block", async () => {
    const rule = evmRule(enumerable, { minBalance: 3 });
    const { evidence, methods } = await readCounted(rule, [aliceWallet.address.toLowerCase(), aliceOtherWallet.address]);
    expect(evidence).toEqual({
      chain: "evm",
      chainId: chain.anvil.chainId,
      collection: enumerable,
      tokenId: null,
      balance: 3,
      // Keys as the chain writes addresses: checksummed, whatever spelling came in.
      perOwner: { [aliceWallet.address]: 2, [aliceOtherWallet.address]: 1 },
      tokens: ["1", "2", "3"],
      block: await latestBlock(),
      checkpoint: null,
      readAt: expect.any(String),
      satisfied: true,
    });
    expect(Date.now() - Date.parse(evidence.readAt)).toBeLessThan(10_000);
    // One block number, then one eth_call for interfaces and balances, one for the token ids.
    expect(methods).toEqual(["eth_blockNumber", "eth_call", "eth_call"]);
  });

  it("is not satisfied below minBalance; an owner named twice counts once", async () => {
    const { evidence } = await readCounted(evmRule(enumerable, { minBalance: 4 }), [aliceWallet.address, aliceWallet.address, aliceOtherWallet.address]);
    expect(evidence).toMatchObject({ balance: 3, satisfied: false });
    expect(Object.keys(evidence.perOwner)).toHaveLength(2);
  });

  it("reads the chain again on every call: a transfer shows at once", async () => {
    const before = await readHoldings(config, evmRule(enumerable), [aliceWallet.address, aliceOtherWallet.address]);
    await send(aliceWallet, enumerable, encodeFunctionData({ abi: pass721Abi, functionName: "transferFrom", args: [aliceWallet.address, bob.address, 1n] }));
    const after = await readHoldings(config, evmRule(enumerable), [aliceWallet.address, aliceOtherWallet.address]);
    expect(after).toMatchObject({ balance: 2, perOwner: { [aliceWallet.address]: 1, [aliceOtherWallet.address]: 1 }, block: await latestBlock() });
    expect([...after.tokens!].sort()).toEqual(["2", "3"]);
    expect(BigInt(after.block!)).toBeGreaterThan(BigInt(before.block!));
    const bobs = await readHoldings(config, evmRule(enumerable), [bob.address]);
    expect(bobs).toMatchObject({ balance: 2, perOwner: { [bob.address]: 2 } });
    expect([...bobs.tokens!].sort()).toEqual(["1", "4"]);
  });

  it("names no tokens of a collection that is not enumerable, in one eth_call", async () => {
    const { evidence, methods } = await readCounted(evmRule(plain, { minBalance: 3 }), [aliceWallet.address, aliceOtherWallet.address]);
    expect(evidence).toMatchObject({ balance: 3, perOwner: { [aliceWallet.address]: 1, [aliceOtherWallet.address]: 2 }, tokens: null, satisfied: true });
    expect(methods).toEqual(["eth_blockNumber", "eth_call"]);
  });

  it("names no tokens of a contract without ERC-165, and still reads its balanceOf(address)", async () => {
    const token = await deployTestToken(chain.wallet(organiser), { name: "Points", symbol: "PTS", decimals: 0 });
    await send(organiser, token, encodeFunctionData({ abi: tokenAbi, functionName: "mint", args: [aliceWallet.address, 5n] }));
    const { evidence } = await readCounted(evmRule(token), [aliceWallet.address]);
    expect(evidence).toMatchObject({ balance: 5, tokens: null });
  });

  it("names the tokens of holders who hold none as an empty list", async () => {
    const { evidence, methods } = await readCounted(evmRule(enumerable), [organiser.address]);
    expect(evidence).toMatchObject({ balance: 0, perOwner: { [organiser.address]: 0 }, tokens: [], satisfied: false });
    expect(methods).toEqual(["eth_blockNumber", "eth_call"]);
  });

  it(`names at most ${TOKENS_LISTED_PER_OWNER} tokens per owner, and counts them all`, async () => {
    const collector = chain.anvil.accounts[4]!;
    const many = await deployAccessPass721(chain.wallet(organiser), { name: "Many", symbol: "MNY", owner: organiser.address });
    const mint = encodeFunctionData({ abi: pass721Abi, functionName: "mint", args: [collector.address] });
    for (let i = 0; i < TOKENS_LISTED_PER_OWNER + 2; i++) await send(organiser, many, mint);
    await send(organiser, many, encodeFunctionData({ abi: pass721Abi, functionName: "mint", args: [aliceWallet.address] }));
    const { evidence, methods } = await readCounted(evmRule(many), [collector.address, aliceWallet.address]);
    expect(evidence.balance).toBe(TOKENS_LISTED_PER_OWNER + 3);
    const listedIds = Array.from({ length: TOKENS_LISTED_PER_OWNER }, (_, i) => String(i + 1));
    expect(evidence.tokens).toEqual([...listedIds, String(TOKENS_LISTED_PER_OWNER + 3)]);
    expect(methods).toEqual(["eth_blockNumber", "eth_call", "eth_call"]);
  });

  it("answers 422 collection_unreadable for an address that is no collection", async () => {
    const error = await readHoldings(config, evmRule(getAddress(`0x${"ab".repeat(20)}`)), [aliceWallet.address]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422, code: "collection_unreadable" });
  });
});

describe("an ERC-1155 collection", () => {
  let passes: Address;

  beforeAll(async () => {
    passes = await deployAccessPass1155(chain.wallet(organiser), { uri: "https://passes.example/{id}.json", owner: organiser.address });
    const mints: Array<[HDAccount, bigint, bigint]> = [[aliceWallet, 7n, 2n], [aliceOtherWallet, 7n, 1n], [aliceWallet, 8n, 5n], [bob, 7n, 4n]];
    for (const [to, id, amount] of mints) {
      await send(organiser, passes, encodeFunctionData({ abi: pass1155Abi, functionName: "mint", args: [to.address, id, amount] }));
    }
  });

  it("counts the units of the rule's token id only, names none, in one eth_call", async () => {
    const owners = [aliceWallet.address, aliceOtherWallet.address];
    const { evidence, methods } = await readCounted(evmRule(passes, { tokenId: "7", minBalance: 3 }), owners);
    expect(evidence).toMatchObject({
      tokenId: "7",
      balance: 3,
      perOwner: { [aliceWallet.address]: 2, [aliceOtherWallet.address]: 1 },
      tokens: null,
      block: await latestBlock(),
      checkpoint: null,
      satisfied: true,
    });
    expect(methods).toEqual(["eth_blockNumber", "eth_call"]);
    expect((await readHoldings(config, evmRule(passes, { tokenId: "8", minBalance: 6 }), owners))).toMatchObject({
      balance: 5, perOwner: { [aliceWallet.address]: 5, [aliceOtherWallet.address]: 0 }, satisfied: false,
    });
    const largest = String(2n ** 256n - 1n);
    expect(await readHoldings(config, evmRule(passes, { tokenId: largest }), owners)).toMatchObject({ tokenId: largest, balance: 0 });
  });

  it("shows a transfer of units", async () => {
    const transfer = encodeFunctionData({ abi: pass1155Abi, functionName: "safeTransferFrom", args: [bob.address, aliceOtherWallet.address, 7n, 3n, "0x"] });
    await send(bob, passes, transfer);
    const evidence = await readHoldings(config, evmRule(passes, { tokenId: "7" }), [aliceWallet.address, aliceOtherWallet.address]);
    expect(evidence).toMatchObject({ balance: 6, perOwner: { [aliceWallet.address]: 2, [aliceOtherWallet.address]: 4 } });
  });
});

describe("reading nothing", () => {
  it("asks no chain when the person has no address on it: balance 0, not satisfied", async () => {
    proxy.methods.length = 0;
    const evidence = await readHoldings(config, evmRule(zeroAddress), []);
    expect(evidence).toMatchObject({ balance: 0, perOwner: {}, tokens: [], block: null, checkpoint: null, satisfied: false });
    expect(await readHoldings(config, evmRule(zeroAddress, { tokenId: "1" }), [])).toMatchObject({ balance: 0, tokens: null });
    expect(proxy.methods).toEqual([]);
  });
});

describe("a chain that does not answer", () => {
  it("is 503 holdings_unavailable naming the chain, never a balance, when the RPC endpoint is down", async () => {
    const closedPort = await freePort();
    const down = configWith({ EVM_CHAINS: [{ chainId: 31337, rpcUrl: `http://127.0.0.1:${closedPort}` }] });
    const error = await readHoldings(down, evmRule(zeroAddress), [aliceWallet.address]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HoldingsUnavailable);
    expect(error).toMatchObject({ status: 503, code: "holdings_unavailable", headers: { "Retry-After": "5" } });
    expect((error as Error).message).toContain("EVM chain 31337");
    // The RPC URL (a provider's may carry its key) is not in what the client sees.
    expect(JSON.stringify({ message: (error as Error).message, details: (error as ApiError).details })).not.toContain(String(closedPort));
  });

  it("is 503 when the block number comes but the multicall's eth_call fails (not a collection_unreadable)", async () => {
    const collection = await deployAccessPass721(chain.wallet(organiser), { name: "Pass", symbol: "P", owner: organiser.address });
    proxy.failMethod("eth_call");
    try {
      const error = await readHoldings(config, evmRule(collection), [aliceWallet.address]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HoldingsUnavailable);
      expect(error).toMatchObject({ status: 503, code: "holdings_unavailable" });
    } finally {
      proxy.failMethod(null);
    }
  });

  it("is 503 holdings_unavailable when the Sui node fails", async () => {
    sui.node.failNext({ kind: "transport", method: "ListOwnedObjects" });
    const rule: HoldingsRule = { chain: "sui", chainId: "sui:localnet", collection: randomAddress(), minBalance: 1 };
    const error = await readHoldings(config, rule, [randomAddress()]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HoldingsUnavailable);
    expect(error).toMatchObject({ status: 503, code: "holdings_unavailable", details: { chain: "sui", chainId: "sui:localnet" } });
    expect((error as Error).message).toContain("sui:localnet");
  });
});

describe("a Sui collection", () => {
  const collection = randomAddress();
  const [alice, aliceOther, carol] = [randomAddress(), randomAddress(), randomAddress()];
  const TICKET = "0xfeed::nft::Ticket";
  const passes: string[] = [];
  const tickets: string[] = [];

  beforeAll(() => {
    passes.push(sui.node.givePass(alice, { collectionId: collection }), sui.node.givePass(alice, { collectionId: collection }));
    passes.push(sui.node.givePass(aliceOther, { collectionId: collection }));
    sui.node.givePass(carol, { collectionId: collection });
    sui.node.givePass(alice, { collectionId: randomAddress() });
    tickets.push(sui.node.giveObject(aliceOther, TICKET));
  });

  it("counts the collection's passes over the linked addresses and names them by object id, at a checkpoint", async () => {
    const rule: HoldingsRule = { chain: "sui", chainId: "sui:localnet", collection, minBalance: 3 };
    const evidence = await readHoldings(config, rule, [alice, aliceOther]);
    expect(evidence).toEqual({
      chain: "sui",
      chainId: "sui:localnet",
      collection,
      tokenId: null,
      balance: 3,
      perOwner: { [alice]: 2, [aliceOther]: 1 },
      tokens: expect.any(Array),
      block: null,
      checkpoint: String(sui.node.ledger.checkpoint),
      readAt: expect.any(String),
      satisfied: true,
    });
    expect([...evidence.tokens!].sort()).toEqual([...passes].sort());
  });

  it("counts every object of a Move type given as the collection", async () => {
    const rule: HoldingsRule = { chain: "sui", chainId: "sui:localnet", collection: TICKET, minBalance: 2 };
    const evidence = await readHoldings(config, rule, [alice, aliceOther]);
    expect(evidence).toMatchObject({ balance: 1, perOwner: { [alice]: 0, [aliceOther]: 1 }, tokens: tickets, satisfied: false });
  });
});

describe("a chain the service is not configured for", () => {
  it.each<[string, HoldingsRule]>([
    ["an EVM chain id", { chain: "evm", chainId: 8453, collection: zeroAddress, minBalance: 1 }],
    ["a Sui network", { chain: "sui", chainId: "sui:testnet", collection: "0x2", minBalance: 1 }],
  ])("is refused with 400 chain_not_supported: %s, even for a person with no address on it", async (_label, rule) => {
    for (const owners of [[], [aliceWallet.address]]) {
      const error = await readHoldings(config, rule, owners).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, code: "chain_not_supported", details: { chainId: rule.chainId } });
    }
  });
});
