// MCP tools that compute chain data (_shared/chain): encode_contract_call makes a call's data.
import { z } from "zod";
import { define } from "../tools.ts";
import { encodeContractCall } from "../../chain/encode-call.ts";
import { Hex, READ } from "./common.ts";

/** The chain tools, by name. */
export const chainTools = {
  encode_contract_call: define({
    name: "encode_contract_call", toolset: "sponsorship", operation: encodeContractCall, title: "Encode a contract call",
    description: "ABI-encodes a call from a human-readable signature, e.g. `function mint(address to, bytes32 ref)` and its " +
      "arguments (uint values as decimal strings): the callData for check_sponsorship_eligibility or a relay. Computes only; sends nothing.",
    input: z.object({
      signature: z.string().min(10).max(1000).describe("`function name(type a, ...)`"),
      args: z.array(z.unknown()).max(50).default([])
        .describe("The call's arguments in the signature's order (at most 50): addresses and bytes as 0x-hex, uint and int values as decimal strings"),
    }).strict(),
    output: z.object({
      callData: Hex.describe("The ABI-encoded call: the selector, then the encoded arguments"),
      selector: z.string().describe("The function's 4-byte selector, 0x and 8 hex digits"),
    }),
    annotations: READ,
  }),
};
