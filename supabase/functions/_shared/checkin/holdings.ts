// The one chain read behind an event's NFT access rules: how many tokens of a rule's collection a
// person's linked addresses hold on the rule's chain, with the evidence to keep beside the decision
// (per address, which tokens when the chain can name them, the block or checkpoint read at).
// Stateless: every call reads the chain, the database keeps the evidence. A read that fails never
// admits: it is 503 holdings_unavailable, and the caller may retry.
//
// The readers: EVM in chain/holdings.ts (one multicall pinned to a block), Sui in sui/holdings.ts
// (owned objects at a checkpoint).
import { getAddress } from "viem";
import { chainNotSupported, publicClientFor } from "../chain/clients.ts";
import { evmHoldingsReader } from "../chain/holdings.ts";
import type { Config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { suiClientFor } from "../sui/client.ts";
import { type Holdings, suiHoldingsReader } from "../sui/holdings.ts";

/** What readHoldings needs of an access rule (events/schemas.ts AccessRule). */
export interface HoldingsRule {
  chain: "evm" | "sui";
  /** EVM: the numeric chain id; Sui: the network (`sui:testnet`). */
  chainId: number | string;
  /** EVM: the contract address; Sui: a collection object id or a Move type (`0x…::module::Type`). */
  collection: string;
  /** EVM only: the ERC-1155 id, in decimal; absent for an ERC-721. */
  tokenId?: string;
  minBalance: number;
}

/** What was read for one rule and one person, as kept with the decision. */
export interface HoldingEvidence {
  chain: "evm" | "sui";
  chainId: number | string;
  collection: string;
  tokenId: string | null;
  /** Tokens held, summed over the owners (ERC-1155: units of tokenId). */
  balance: number;
  /** By owner as the chain writes it: EVM checksummed, Sui 0x + 64 lower-case hex. */
  perOwner: Record<string, number>;
  /**
   * The tokens counted, by identity, so one token admits one person per event: Sui object ids,
   * ERC721Enumerable token ids (decimal, at most TOKENS_LISTED_PER_OWNER per owner). null where the
   * chain cannot name them: an ERC-721 that is not enumerable, any ERC-1155.
   */
  tokens: string[] | null;
  /** The EVM block every call was pinned to (decimal); null on Sui or when nothing was read. */
  block: string | null;
  /** The lowest Sui checkpoint among the node's answers; null on EVM or when nothing was read. */
  checkpoint: string | null;
  /** When the service read it (ISO 8601). */
  readAt: string;
  /** balance >= the rule's minBalance. */
  satisfied: boolean;
}

/** The chain's node or RPC endpoint did not answer: nothing is known, so nothing is granted. */
export class HoldingsUnavailable extends ApiError {
  constructor(rule: HoldingsRule, cause: unknown) {
    const where = rule.chain === "evm" ? `EVM chain ${rule.chainId}` : rule.chainId;
    // The cause stays off the message: viem's name the RPC URL, which may carry a provider key.
    super(503, "holdings_unavailable", `Holdings on ${where} could not be read: the chain did not answer. Try again shortly.`,
      { chain: rule.chain, chainId: rule.chainId }, { "Retry-After": "5" });
    this.name = "HoldingsUnavailable";
    this.cause = cause;
  }
}

type HoldingsRead = (owners: readonly string[]) => Promise<Holdings>;

/** The read of `rule`'s chain, or 400 chain_not_supported when the service is not configured for it. */
function readerFor(config: Config, rule: HoldingsRule): HoldingsRead {
  if (rule.chain === "evm") {
    if (typeof rule.chainId !== "number") throw new RangeError(`an EVM rule's chainId is a number: ${rule.chainId}`);
    const reader = evmHoldingsReader(publicClientFor(config, rule.chainId));
    const collection = { address: getAddress(rule.collection), tokenId: rule.tokenId === undefined ? undefined : BigInt(rule.tokenId) };
    return (owners) => reader.holdings(owners, collection);
  }
  if (rule.tokenId !== undefined) throw new RangeError("a Sui rule has no tokenId");
  const network = config.SUI_NETWORKS.find((entry) => entry.network === rule.chainId);
  if (!network) throw chainNotSupported(rule.chainId, config.SUI_NETWORKS.map((entry) => entry.network));
  const reader = suiHoldingsReader(suiClientFor(network), network.packageId);
  const collection = rule.collection.includes("::") ? { type: rule.collection } : { objectId: rule.collection };
  return (owners) => reader.holdings(owners, collection);
}

/**
 * How many tokens of `rule`'s collection `owners` hold (the person's linked addresses on the
 * rule's chain), and whether that meets minBalance. No owners: nothing is read, the balance is 0.
 * Throws HoldingsUnavailable (503) when the chain does not answer, 400 chain_not_supported for a
 * chain the service is not configured with, 422 collection_unreadable for an EVM collection that
 * does not answer balanceOf.
 */
export async function readHoldings(config: Config, rule: HoldingsRule, owners: readonly string[]): Promise<HoldingEvidence> {
  const read = readerFor(config, rule);
  const evidence = (found: Omit<HoldingEvidence, "chain" | "chainId" | "collection" | "tokenId" | "satisfied">): HoldingEvidence => ({
    chain: rule.chain,
    chainId: rule.chainId,
    collection: rule.collection,
    tokenId: rule.tokenId ?? null,
    ...found,
    satisfied: found.balance >= rule.minBalance,
  });
  if (owners.length === 0) {
    // Nothing counted, so no token to name; ERC-1155 units never have names.
    const tokens = rule.tokenId === undefined ? [] : null;
    return evidence({ balance: 0, perOwner: {}, tokens, block: null, checkpoint: null, readAt: new Date().toISOString() });
  }
  let holdings: Holdings;
  try {
    holdings = await read(owners);
  } catch (error) {
    // Our own refusals (a collection that is no collection, input that is not an address) stay what they are.
    if (error instanceof ApiError || error instanceof RangeError) throw error;
    throw new HoldingsUnavailable(rule, error);
  }
  return evidence({
    balance: holdings.count,
    perOwner: holdings.perOwner,
    tokens: holdings.tokens,
    block: "block" in holdings ? holdings.block : null,
    checkpoint: "checkpoint" in holdings ? holdings.checkpoint : null,
    readAt: holdings.readAt,
  });
}
