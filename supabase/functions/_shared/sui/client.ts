// One SuiGrpcClient per configured network, so requests share its connections and the SDK's
// caches. gRPC-web over fetch: runs the same under Deno and Node, no HTTP/2 client needed.
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { clientNetworkName, type SuiNetworkConfig } from "./network.ts";

// A node that stops answering must become a 503 rather than hold the request open. The
// transport's own `timeout` only sends grpc-timeout and never aborts the fetch, so the bound is a
// signal on each fetch. Execution waits for finality (seconds on mainnet): the bound is generous.
export const SUI_CALL_TIMEOUT_MS = 20_000;

const clients = new WeakMap<SuiNetworkConfig, SuiGrpcClient>();

/** The client of `network` (created once per configuration entry). */
export function suiClientFor(network: SuiNetworkConfig): SuiGrpcClient {
  let client = clients.get(network);
  if (!client) clients.set(network, client = createSuiClient(network));
  return client;
}

/** A new client of `network`, each call given up after `timeoutMs`. */
export function createSuiClient(network: SuiNetworkConfig, options: { timeoutMs?: number } = {}): SuiGrpcClient {
  return new SuiGrpcClient({
    network: clientNetworkName(network.network),
    baseUrl: network.grpcUrl,
    fetch: boundedFetch(options.timeoutMs ?? SUI_CALL_TIMEOUT_MS),
  });
}

/** fetch, aborted after `ms` (and by the caller's signal, when there is one). */
export function boundedFetch(ms: number): typeof fetch {
  return (input, init) => {
    const timeout = AbortSignal.timeout(ms);
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
  };
}
