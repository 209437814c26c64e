// The one SSRF guard of the service's outbound requests to URLs a stranger chose (the webhook
// dispatcher, the OAuth client ID metadata document fetch): in production such a request may reach
// only public unicast addresses (the rules: webhooks/address-policy.ts).
//
// The check runs inside the connection's own DNS lookup (the `lookup` option of node:http(s) and
// node:net), so the address checked is the address connected to: a DNS answer that changes between
// a check and the connection (DNS rebinding) cannot slip a private address through. fetch has no
// such hook, which is why both callers send with node:http(s) (Deno and Node both honour `lookup`).
// An address literal is never looked up, so a caller checks it first with refusedAddressLiteral.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { refusedAddressReason } from "../webhooks/address-policy.ts";

/** Every address of a name (node:dns lookup with `all: true` by default; a test may inject its own). */
export type ResolveAll = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** A refused host: the first of its addresses that is not public, and why. */
export interface AddressRefusal {
  hostname: string;
  address: string;
  reason: string;
}

export interface PublicAddressLookupOptions {
  /** The refusal's error message; by default `refused <hostname> (<address>): <reason>`. */
  describe?: (refusal: AddressRefusal) => string;
  resolveAll?: ResolveAll;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type PublicAddressLookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;

const resolveAllWithDns: ResolveAll = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

const defaultDescribe = ({ hostname, address, reason }: AddressRefusal) => `refused ${hostname} (${address}): ${reason}`;

/**
 * A lookup hook for node:http(s) that resolves every address of the host and refuses the host
 * (error code EREFUSEDADDRESS) when any of them is not public; otherwise it answers as node's own
 * lookup does (the first address, or all of them when asked for `all`). A name with no address
 * fails with ENOTFOUND.
 */
export function publicAddressLookup({ describe = defaultDescribe, resolveAll = resolveAllWithDns }: PublicAddressLookupOptions = {}): PublicAddressLookup {
  return (hostname, options, callback) => {
    resolveAll(hostname, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const reason = refusedAddressReason(address);
        if (reason) return callback(Object.assign(new Error(describe({ hostname, address, reason })), { code: "EREFUSEDADDRESS" }), []);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** A URL's host as node:http(s) takes it: an IPv6 literal without its brackets. */
export function requestHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * Why `hostname` (as requestHostname gives it) may not be reached when it is an address literal,
 * which no lookup sees; null for a public address and for a name (the lookup checks those).
 */
export function refusedAddressLiteral(hostname: string): string | null {
  return isIP(hostname) ? refusedAddressReason(hostname) : null;
}
