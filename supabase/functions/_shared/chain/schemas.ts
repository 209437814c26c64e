// EVM values as every surface takes them (collections, checkout, sponsorship, relays, confirmations).
import { z } from "@hono/zod-openapi";
import { isAddress } from "viem";

/** An EVM address: all lower case, all upper case, or with a valid EIP-55 checksum (a mixed-case typo is refused). */
export const EvmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an EVM address: 0x and 40 hex digits")
  .refine((address) => isAddress(address), "the EIP-55 checksum of this mixed-case address is wrong")
  .openapi({ example: "0x5FbDB2315678afecb367f032d93F642f64180aa3" })
  .describe("An EVM address: 0x and 40 hex digits, all lower case, all upper case or EIP-55 checksummed");

/** EVM chain ids as the database stores them: exact integers up to 2^53-1. */
export const ChainId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ example: 8453 })
  .describe("An EVM chain id (EIP-155), e.g. 8453 for Base; the chain must be one the service is configured for");

const UINT256_MAX = 2n ** 256n - 1n;

/**
 * An amount in a token's smallest unit (wei for the native currency), a uint256: at most 78 digits
 * and at most 2^256-1, which no chain could hold or send.
 */
export const TokenAmount = z.string().regex(/^(0|[1-9][0-9]{0,77})$/, "a decimal string of the amount in the token's smallest unit")
  // zod runs a refinement even after the pattern failed: only 78 digits are worth comparing.
  .refine((amount) => !/^[0-9]{78}$/.test(amount) || BigInt(amount) <= UINT256_MAX, "at most 2^256-1 (the largest uint256)")
  .openapi({ example: "10000000000000000" })
  .describe("An amount in the token's smallest unit (wei for the native currency) as a decimal string, exact beyond JSON's safe integers");
