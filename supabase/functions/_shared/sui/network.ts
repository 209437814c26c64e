// The Sui networks the service talks to: each a full node's gRPC URL and the deployed event_pass
// package. Names are wallet-standard chain ids (`sui:testnet`), the form wallets hand to dapps.
import { isValidSuiAddress, normalizeSuiAddress } from "@mysten/sui/utils";
import { z } from "zod";

export const SUI_NETWORKS = ["sui:mainnet", "sui:testnet", "sui:devnet", "sui:localnet"] as const;
export type SuiNetwork = (typeof SUI_NETWORKS)[number];

/** A Sui address or object id: 0x and 64 hex digits, lower-cased (the form nodes answer with). */
export const suiAddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits")
  .transform((value) => normalizeSuiAddress(value));

export const suiNetworkConfigSchema = z.object({
  network: z.enum(SUI_NETWORKS),
  // gRPC-web endpoint of a full node, e.g. https://fullnode.testnet.sui.io:443.
  grpcUrl: z.url({ protocol: /^https?$/, error: "an http(s) URL" }),
  packageId: suiAddressSchema,
}).strict();

export type SuiNetworkConfig = z.infer<typeof suiNetworkConfigSchema>;

/** SUI_NETWORKS: at most one entry per network, so a network name picks one node and package. */
export const suiNetworksSchema = z.array(suiNetworkConfigSchema).max(4).refine(
  (entries) => new Set(entries.map((e) => e.network)).size === entries.length,
  "each network at most once",
);

/** The name SuiGrpcClient wants (`testnet`): the chain id without its `sui:` namespace. */
export function clientNetworkName(network: SuiNetwork): string {
  return network.slice("sui:".length);
}

/** `value` as a normalised Sui address, or a RangeError (never the SDK's silent padding of junk). */
export function parseSuiAddress(value: string, what = "address"): string {
  const normalized = normalizeSuiAddress(value);
  if (!/^0x[0-9a-fA-F]+$/.test(value) || !isValidSuiAddress(normalized)) throw new RangeError(`${what} is not a Sui address: ${value}`);
  return normalized;
}
