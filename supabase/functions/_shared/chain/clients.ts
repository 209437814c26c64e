// viem public clients for the EVM chains the service is configured with (EVM_CHAINS). One client per
// chain and configuration, so requests share its HTTP connections and viem's caches.
import { createPublicClient, http } from "viem";
import type { Config } from "../config.ts";
import { ApiError } from "../http/errors.ts";

export type ChainClient = ReturnType<typeof createPublicClient>;

// A local chain (anvil) mines at once: viem's default polling (4 s) would make every wait take
// seconds (DESIGN, Known facts). Remote chains keep viem's default, sized for real block times.
const LOOPBACK_POLLING_INTERVAL_MS = 50;

/** Loopback as the URL parser writes hosts: `localhost` and its subdomains, 127.0.0.0/8, [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(hostname);
}

const clientsByConfig = new WeakMap<Config, Map<number, ChainClient>>();

/** 400 `chain_not_supported`: `chainId` is not among the chains (EVM or Sui) this service is configured with. */
export function chainNotSupported(chainId: number | string, supportedChainIds: Array<number | string>): ApiError {
  return new ApiError(400, "chain_not_supported",
    `Chain ${chainId} is not supported here; supported chain ids: ${supportedChainIds.join(", ") || "none"}.`,
    { chainId, supportedChainIds });
}

/** The public client of `chainId`, or 400 `chain_not_supported` naming the configured chain ids. */
export function publicClientFor(config: Config, chainId: number): ChainClient {
  let clients = clientsByConfig.get(config);
  if (!clients) clientsByConfig.set(config, clients = new Map());
  const cached = clients.get(chainId);
  if (cached) return cached;

  const chain = config.EVM_CHAINS.find((c) => c.chainId === chainId);
  if (!chain) throw chainNotSupported(chainId, config.EVM_CHAINS.map((c) => c.chainId));
  const loopback = isLoopbackHost(new URL(chain.rpcUrl).hostname);
  const client = createPublicClient({
    transport: http(chain.rpcUrl),
    ...(loopback ? { pollingInterval: LOOPBACK_POLLING_INTERVAL_MS } : {}),
  });
  clients.set(chainId, client);
  return client;
}

/**
 * Awaits a chain read; an RPC failure (viem throws those) is a 502 `chain_unavailable`, as the
 * request may succeed later. Our own ApiErrors (chain_not_supported, ...) pass as they are.
 */
export async function fromChain<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(502, "chain_unavailable", "The chain's RPC endpoint did not answer; try again.");
  }
}
