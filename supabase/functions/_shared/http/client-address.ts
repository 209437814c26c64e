// The client's address, for per-IP limits. The connection's peer is the one address a client cannot
// choose. Only when that peer is one of TRUSTED_PROXIES is X-Forwarded-For read, from the right (the
// entry the nearest proxy wrote) leftwards past the other trusted proxies: the first address not
// trusted is the client. Entries further left are whatever the client sent.
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { formatIpAddress, type IpGroups, inIpRange, type IpRange, parseIpAddress } from "../net/ip-address.ts";

/** A request the app was handed without its connection (in-process calls) has no peer. */
export const NO_PEER = "unknown";

let warnedUnspecifiedPeer = false;

/** The client's address of a request whose connection's peer is `peer`. */
export function clientAddressOf(peer: string | undefined, forwardedFor: string | undefined, trusted: readonly IpRange[]): string {
  if (!peer) return NO_PEER;
  let nearest = parseIpAddress(peer);
  if (!nearest) return peer.slice(0, 64);
  const isTrusted = (address: IpGroups) => trusted.some((range) => inIpRange(address, range));
  if (!isTrusted(nearest)) {
    if (nearest.every((x) => x === 0) && !warnedUnspecifiedPeer) {
      warnedUnspecifiedPeer = true;
      console.warn(`[client-address] the server reports ${peer} as the peer of requests (Supabase's Edge Runtime does for all of them): ` +
        "per-IP limits share one count until TRUSTED_PROXIES names it (docs/deployment.md)");
    }
    return formatIpAddress(nearest);
  }
  const hops = (forwardedFor ?? "").split(",").map((hop) => hop.trim()).filter(Boolean);
  for (const hop of hops.reverse()) {
    const address = parseIpAddress(withoutPort(hop));
    // Not an address where a trusted proxy writes one: the nearest address it vouched for stands.
    if (!address) break;
    nearest = address;
    if (!isTrusted(address)) break;
  }
  return formatIpAddress(nearest);
}

/** Some proxies forward `192.0.2.1:51234` or `[2001:db8::1]:51234`. */
function withoutPort(hop: string): string {
  return /^\[([^\]]+)\](?::\d+)?$/.exec(hop)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop)?.[1] ?? hop;
}

/** The client's address of this request: its peer is what the server handed the app as `c.env`. */
export function clientAddress(c: Context<AppEnv>): string {
  return clientAddressOf(c.env?.remoteAddr?.hostname, c.req.header("x-forwarded-for"), c.get("config").TRUSTED_PROXIES);
}
