// Which addresses a production webhook may reach (SSRF): only public unicast ones. A store chooses
// its webhook URL, so without this rule it could make the service POST into our own network
// (metadata endpoints, the database, admin ports). Checked on the address the connection is
// actually made to (see dispatcher.ts), so DNS cannot answer "public" to the check and "private"
// to the connection.
import { isIP } from "node:net";
import { ipv4ToNumber, parseIpv6 } from "../net/ip-address.ts";

/** Why the address may not be reached, or null when it may. */
export function refusedAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return refusedIpv4(ipv4ToNumber(address));
  if (family === 6) {
    const groups = parseIpv6(address);
    return groups ? refusedIpv6(groups) : "not an IPv6 address";
  }
  return "not an IP address";
}

// [first address, prefix length, why]
const REFUSED_IPV4: ReadonlyArray<readonly [string, number, string]> = [
  ["0.0.0.0", 8, "unspecified ('this network')"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved or broadcast"],
];

function refusedIpv4(ip: number): string | null {
  for (const [first, bits, why] of REFUSED_IPV4) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if (((ip & mask) >>> 0) === ipv4ToNumber(first)) return `${why} IPv4 address`;
  }
  return null;
}

function refusedIpv6(g: readonly number[]): string | null {
  const allZeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embeddedIpv4 = (hi: number, lo: number) => ((hi << 16) >>> 0) + lo;
  if (allZeroUpTo(8)) return "unspecified IPv6 address";
  if (allZeroUpTo(7) && g[7] === 1) return "loopback IPv6 address";
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
  if (allZeroUpTo(5) && g[5] === 0xffff) return refusedIpv4(embeddedIpv4(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return refusedIpv4(embeddedIpv4(g[6]!, g[7]!));
  // 6to4 (2002:a.b.c.d::/48) likewise.
  if (g[0] === 0x2002) return refusedIpv4(embeddedIpv4(g[1]!, g[2]!));
  if (allZeroUpTo(6)) return "IPv4-compatible IPv6 address (deprecated)";
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local IPv6 address";
  if ((g[0]! & 0xffc0) === 0xfec0) return "site-local IPv6 address (deprecated)";
  if ((g[0]! & 0xfe00) === 0xfc00) return "unique-local IPv6 address";
  if ((g[0]! & 0xff00) === 0xff00) return "multicast IPv6 address";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "documentation IPv6 address";
  return null;
}
