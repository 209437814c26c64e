// How many tokens of an EVM collection a set of addresses hold, which ones when the contract can
// name them, and at which block. ERC-721: balanceOf(owner); ERC-1155 (a token id given):
// balanceOf(owner, id). The block number is read first and every call is pinned to it; all the
// calls of one step go in one eth_call, viem's deployless multicall (Multicall3's code runs inside
// the eth_call itself, so no chain needs it deployed: anvil has none).
//
// Naming the tokens: an ERC-721 that declares ERC721Enumerable (ERC-165, probed in the same first
// call) lists its ids through tokenOfOwnerByIndex, a second eth_call at the same block, at most
// TOKENS_LISTED_PER_OWNER per owner. Any other ERC-721 gives tokens null, and so does ERC-1155:
// units of one id carry no identity, so "one token admits one person" cannot be checked there.
import {
  type Address,
  BaseError,
  CallExecutionError,
  type ContractFunctionParameters,
  getAddress,
  isAddress,
  type MulticallResponse,
  parseAbi,
} from "viem";
import { ApiError } from "../http/errors.ts";
import type { Holdings, HoldingsReader } from "../sui/holdings.ts";
import type { ChainClient } from "./clients.ts";

/** An EVM collection: an ERC-721 contract, or an ERC-1155 contract and the id whose units count. */
export type EvmCollectionRef = { address: Address; tokenId?: bigint };

/**
 * Token ids listed per owner at most: one eth_call stays small, and a gate needs a few. An owner
 * holding more still counts every token in the balance; only the first ones (by index) are named.
 */
export const TOKENS_LISTED_PER_OWNER = 100;

const erc721Abi = parseAbi([
  "function balanceOf(address owner) view returns (uint256)",
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function tokenOfOwnerByIndex(address owner, uint256 index) view returns (uint256)",
]);
const erc1155Abi = parseAbi(["function balanceOf(address owner, uint256 id) view returns (uint256)"]);

// ERC-165's detection: a contract implements ERC-165 when it answers true for its id and false
// for 0xffffffff (a fallback that answers true to everything is not taken for a declaration);
// then it declares ERC721Enumerable by answering true for 0x780e9d63.
const ENUMERABLE_PROBES = [
  { interfaceId: "0x01ffc9a7", declared: true },
  { interfaceId: "0xffffffff", declared: false },
  { interfaceId: "0x780e9d63", declared: true },
] as const;

type CallResult = MulticallResponse<unknown>;

/** `contracts` in one eth_call at `blockNumber`; a call that did not run (transport, node) throws. */
async function multicallAt(client: ChainClient, contracts: ContractFunctionParameters[], blockNumber: bigint): Promise<CallResult[]> {
  // batchSize 0: never split into several eth_calls (viem splits past 1 KiB of calldata by default).
  const results: CallResult[] = await client.multicall({ contracts, blockNumber, deployless: true, batchSize: 0, allowFailure: true });
  for (const result of results) if (result.status === "failure" && !ranTheCall(result.error)) throw result.error;
  return results;
}

/**
 * Whether a failed result comes from a call that ran: a contract's own failure (a revert, an
 * empty answer) fails one result; the eth_call itself failing (node, transport, the node's gas
 * cap) fails every result with the CallExecutionError.
 */
function ranTheCall(error: Error): boolean {
  return error instanceof BaseError && error.walk((cause) => cause instanceof CallExecutionError) === null;
}

/** A balance as a JSON number: past 2^53 - 1 (no NFT, only a fungible token passed as one) it is reported as that. */
function toCount(balance: bigint): number {
  return balance > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(balance);
}

/** The owners as checksummed addresses, each once; a string that is not an address is a RangeError. */
function distinctOwners(owners: readonly string[]): Address[] {
  const wrong = owners.find((owner) => !isAddress(owner, { strict: false }));
  if (wrong !== undefined) throw new RangeError(`owner is not an EVM address: ${wrong}`);
  const distinct = [...new Set(owners.map((owner) => getAddress(owner)))];
  if (distinct.length === 0) throw new RangeError("at least one owner is required");
  return distinct;
}

/** The HoldingsReader of one EVM chain: two eth_calls at most (one for ERC-1155), plus the block number. */
export function evmHoldingsReader(client: ChainClient): HoldingsReader<EvmCollectionRef> {
  return {
    async holdings(ownerList, collection): Promise<Holdings> {
      const owners = distinctOwners(ownerList);
      const { address, tokenId } = collection;
      const blockNumber = await client.getBlockNumber({ cacheTime: 0 });
      const erc721 = tokenId === undefined;
      const probes = erc721 ? ENUMERABLE_PROBES : [];
      const calls: ContractFunctionParameters[] = [
        ...probes.map(({ interfaceId }) => ({ address, abi: erc721Abi, functionName: "supportsInterface", args: [interfaceId] })),
        ...owners.map((owner) =>
          erc721
            ? { address, abi: erc721Abi, functionName: "balanceOf", args: [owner] }
            : { address, abi: erc1155Abi, functionName: "balanceOf", args: [owner, tokenId] }
        ),
      ];
      const results = await multicallAt(client, calls, blockNumber);

      const balances = results.slice(probes.length).map((result) => {
        if (result.status !== "success" || typeof result.result !== "bigint") {
          const call = erc721 ? "balanceOf(address) (ERC-721)" : "balanceOf(address, uint256) (ERC-1155)";
          throw new ApiError(422, "collection_unreadable", `The collection ${address} did not answer ${call} at block ${blockNumber}.`, {
            collection: address,
            block: String(blockNumber),
          });
        }
        return result.result;
      });

      const enumerable = erc721 && probes.every(({ declared }, i) => results[i]?.status === "success" && results[i].result === declared);
      const tokens = enumerable ? await listTokens(client, address, owners, balances, blockNumber) : null;
      return {
        count: toCount(balances.reduce((sum, balance) => sum + balance, 0n)),
        perOwner: Object.fromEntries(owners.map((owner, i) => [owner, toCount(balances[i]!)])),
        tokens,
        block: String(blockNumber),
        readAt: new Date().toISOString(),
      };
    },
  };
}

/**
 * The ids of an ERC721Enumerable's tokens held by `owners` at `blockNumber`, up to
 * TOKENS_LISTED_PER_OWNER each (decimal strings); null when the contract does not list what it
 * declared (its ids cannot be trusted to name the tokens).
 */
async function listTokens(
  client: ChainClient,
  address: Address,
  owners: Address[],
  balances: bigint[],
  blockNumber: bigint,
): Promise<string[] | null> {
  const calls: ContractFunctionParameters[] = owners.flatMap((owner, i) => {
    const listed = balances[i]! < BigInt(TOKENS_LISTED_PER_OWNER) ? Number(balances[i]) : TOKENS_LISTED_PER_OWNER;
    return Array.from({ length: listed }, (_, index) => ({ address, abi: erc721Abi, functionName: "tokenOfOwnerByIndex", args: [owner, BigInt(index)] }));
  });
  if (calls.length === 0) return [];
  const results = await multicallAt(client, calls, blockNumber);
  if (!results.every((result) => result.status === "success" && typeof result.result === "bigint")) return null;
  return results.map((result) => String(result.result));
}
