// A stand-in Sui node per test file, the service's network entry, client and signer for it.
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import { type SuiNode, startSuiNode } from "../../scripts/lib/sui-node.ts";
import { suiClientFor } from "../../supabase/functions/_shared/sui/client.ts";
import { suiNetworkConfigSchema } from "../../supabase/functions/_shared/sui/network.ts";
import { suiSignerFromKey } from "../../supabase/functions/_shared/sui/signer.ts";

export const randomAddress = () => normalizeSuiAddress(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`);

export async function startSui(options: { referenceGasPrice?: bigint; maxPageSize?: number } = {}) {
  const packageId = randomAddress();
  const node: SuiNode = await startSuiNode({ packageId, ...options });
  const network = suiNetworkConfigSchema.parse({ network: node.network, grpcUrl: node.url, packageId });
  const client = suiClientFor(network);
  const serviceKey = new Ed25519Keypair();
  const signer = suiSignerFromKey(serviceKey.getSecretKey());
  return { node, network, client, packageId, serviceKey, signer };
}

export type Sui = Awaited<ReturnType<typeof startSui>>;
