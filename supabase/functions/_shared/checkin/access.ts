// NFT access at the gateway's side: the database names what to read (`needs`: the event's rules with
// a grant and the person's linked addresses by chain), this reads each rule's holdings over those
// addresses, one read per rule at once, and hands the evidence back. A read that fails is evidence
// too ({rule, unavailable}): the database never admits on it.
import type { Config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { type HoldingEvidence, readHoldings } from "./holdings.ts";

export interface AccessRule {
  chain: "evm" | "sui";
  chainId: number | string;
  collection: string;
  tokenId?: string;
  minBalance: number;
  grants: string[];
  index?: number;
}

/** What the database asks for before deciding a grant. */
export interface HoldingsNeeded {
  grant: string;
  rules: AccessRule[];
  /** Linked addresses by chain id as core.crypto_addresses writes it ('31337', 'sui:testnet'). */
  addresses: Record<string, string[]>;
}

export type Evidence = (HoldingEvidence & { rule: AccessRule }) | { rule: AccessRule; unavailable: true; code: string; message: string };

/** The reads `needs` asks for, one per rule, made at once. */
export function readEvidence(config: Config, needs: HoldingsNeeded): Promise<Evidence[]> {
  return Promise.all(needs.rules.map(async (rule): Promise<Evidence> => {
    const owners = needs.addresses[String(rule.chainId)] ?? [];
    try {
      return { ...(await readHoldings(config, rule, owners)), rule };
    } catch (error) {
      if (error instanceof ApiError && error.status >= 500) return { rule, unavailable: true, code: error.code, message: error.message };
      throw error;
    }
  }));
}
