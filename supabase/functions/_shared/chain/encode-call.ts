// ABI-encoding a contract call from a human-readable signature: the callData a sponsorship check or
// a relay names. Computes only; reads and sends nothing.
import { type AbiFunction, encodeFunctionData, parseAbiItem, toFunctionSelector } from "viem";
import { ApiError } from "../http/errors.ts";
import { ok, operation } from "../operations/operation.ts";

/** JSON has no bigint: uint and int arguments come as decimal strings (or numbers) and are encoded as such. */
function abiArguments(inputs: AbiFunction["inputs"], args: unknown[]): unknown[] {
  return inputs.map((input, i) => {
    const value = args[i];
    if (/^u?int\d*$/.test(input.type) && (typeof value === "string" || typeof value === "number")) {
      try {
        return BigInt(value);
      } catch {
        throw new ApiError(400, "validation_failed", `args[${i}] must be an integer for ${input.type}.`);
      }
    }
    return value;
  });
}

export const encodeContractCall = operation({
  name: "chain.encode_call",
  async run(_, { signature, args }: { signature: string; args: unknown[] }) {
    let item: AbiFunction;
    try {
      const parsed = parseAbiItem(signature);
      if (parsed.type !== "function") throw new Error("not a function");
      item = parsed;
    } catch {
      throw new ApiError(400, "invalid_signature", "signature must be a human-readable ABI function, e.g. `function mint(address to, bytes32 ref)`.");
    }
    if (args.length !== item.inputs.length) {
      throw new ApiError(400, "validation_failed", `${item.name} takes ${item.inputs.length} arguments, not ${args.length}.`);
    }
    try {
      const callData = encodeFunctionData({ abi: [item], functionName: item.name, args: abiArguments(item.inputs, args) as never });
      return ok({ callData, selector: toFunctionSelector(item) });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(400, "validation_failed", `The arguments do not fit ${item.name}: ${(error as Error).message.split("\n")[0]}`);
    }
  },
});
