// The client's address for per-IP limits (http/client-address.ts): the connection's peer, and
// X-Forwarded-For only as far as trusted proxies wrote it; and the IP parsing underneath.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { clientAddressOf, NO_PEER } from "../../supabase/functions/_shared/http/client-address.ts";
import { formatIpAddress, inIpRange, type IpRange, parseIpAddress, parseIpRange } from "../../supabase/functions/_shared/net/ip-address.ts";

const GATEWAY_DATABASE_URL = "postgres://postgres:postgres@127.0.0.1:54322/postgres";

const ranges = (text: string) => loadConfig({ GATEWAY_DATABASE_URL, TRUSTED_PROXIES: text }).TRUSTED_PROXIES;
const range = (text: string) => parseIpRange(text) as IpRange;
const contains = (cidr: string, address: string) => inIpRange(parseIpAddress(address)!, range(cidr));

describe("IP addresses and ranges", () => {
  it("writes each address one way: dotted IPv4 (also IPv4-mapped IPv6), RFC 5952 IPv6", () => {
    const spellings: Array<[string, string]> = [
      ["192.0.2.1", "192.0.2.1"],
      ["::ffff:192.0.2.1", "192.0.2.1"],
      ["::FFFF:c000:0201", "192.0.2.1"],
      ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
      ["fe80::1%eth0", "fe80::1"],
      ["::", "::"],
      ["::1", "::1"],
    ];
    for (const [written, canonical] of spellings) expect(formatIpAddress(parseIpAddress(written)!), written).toBe(canonical);
    for (const notAnAddress of ["", "unknown", "192.0.2", "192.0.2.256", "01.2.3.4", " 192.0.2.1", "192.0.2.1:80", "[::1]", "1::2::3", "2001:db8::g"]) {
      expect(parseIpAddress(notAnAddress), notAnAddress).toBeNull();
    }
  });

  it("matches CIDR ranges of both families; an IPv4 range covers the IPv4-mapped spelling", () => {
    expect(contains("10.0.0.0/8", "10.255.0.1")).toBe(true);
    expect(contains("10.0.0.0/8", "11.0.0.1")).toBe(false);
    expect(contains("10.0.0.0/8", "::ffff:10.1.2.3")).toBe(true);
    expect(contains("172.16.0.0/12", "172.31.255.255")).toBe(true);
    expect(contains("172.16.0.0/12", "172.32.0.0")).toBe(false);
    expect(contains("192.0.2.7", "192.0.2.7")).toBe(true);
    expect(contains("192.0.2.7", "192.0.2.8")).toBe(false);
    expect(contains("0.0.0.0/0", "203.0.113.9")).toBe(true);
    expect(contains("0.0.0.0/0", "2001:db8::1")).toBe(false);
    expect(contains("2001:db8::/33", "2001:db8:7fff::1")).toBe(true);
    expect(contains("2001:db8::/33", "2001:db8:8000::1")).toBe(false);
    expect(contains("::/0", "2001:db8::1")).toBe(true);
  });

  it("TRUSTED_PROXIES is empty by default and refuses what is not an address or a range, saying which", () => {
    expect(loadConfig({ GATEWAY_DATABASE_URL }).TRUSTED_PROXIES).toEqual([]);
    expect(ranges(" 10.0.0.0/8 , 2001:db8::/32,192.0.2.1 ")).toHaveLength(3);
    const refusals: Array<[string, RegExp]> = [
      ["10.0.0.0/33", /TRUSTED_PROXIES: "10.0.0.0\/33": the prefix length is 0 to 32/],
      ["2001:db8::/129", /the prefix length is 0 to 128/],
      ["10.0.0.0/-1", /the prefix length/],
      ["10.0.0.1/8", /"10.0.0.1\/8" has bits set past its prefix; did you mean 10.0.0.0\/8\?/],
      ["proxy.example", /"proxy.example" is not an IP address or CIDR range/],
      ["10.0.0.0/8/8", /is not an IP address or CIDR range/],
      ["192.0.2.1, 10.0.0.256", /"10.0.0.256" is not an IP address/],
    ];
    for (const [text, message] of refusals) expect(() => ranges(text), text).toThrow(message);
  });
});

describe("clientAddressOf", () => {
  const trusted = ranges("10.0.0.0/8, fd00::/8");

  it("without a trusted proxy, is the peer, whatever X-Forwarded-For says", () => {
    expect(clientAddressOf("198.51.100.1", undefined, [])).toBe("198.51.100.1");
    expect(clientAddressOf("198.51.100.1", "203.0.113.9", [])).toBe("198.51.100.1");
    expect(clientAddressOf("198.51.100.1", "203.0.113.9", trusted)).toBe("198.51.100.1");
    expect(clientAddressOf("::ffff:198.51.100.1", "203.0.113.9", trusted)).toBe("198.51.100.1");
    expect(clientAddressOf("2001:DB8::0:1", undefined, trusted)).toBe("2001:db8::1");
  });

  it("from a trusted peer, walks X-Forwarded-For from the right past trusted proxies to the first other address", () => {
    expect(clientAddressOf("10.0.0.1", "203.0.113.9", trusted)).toBe("203.0.113.9");
    // Entries left of the client's are the client's own writing.
    expect(clientAddressOf("10.0.0.1", "192.0.2.66, 203.0.113.9", trusted)).toBe("203.0.113.9");
    expect(clientAddressOf("10.0.0.1", "10.0.0.2, 203.0.113.9", trusted)).toBe("203.0.113.9");
    // Through more trusted hops, IPv6 and IPv4-mapped ones too.
    expect(clientAddressOf("10.0.0.1", "192.0.2.66, 203.0.113.9, fd00::5, ::ffff:10.3.3.3", trusted)).toBe("203.0.113.9");
    expect(clientAddressOf("fd00::1", "2001:db8:0::7", trusted)).toBe("2001:db8::7");
    expect(clientAddressOf("10.0.0.1", "::ffff:203.0.113.9", trusted)).toBe("203.0.113.9");
    // Headers sent twice arrive joined with ", ".
    expect(clientAddressOf("10.0.0.1", "192.0.2.66, 203.0.113.9, 10.0.0.3", trusted)).toBe("203.0.113.9");
    // Ports some proxies add.
    expect(clientAddressOf("10.0.0.1", "203.0.113.9:51234", trusted)).toBe("203.0.113.9");
    expect(clientAddressOf("10.0.0.1", "[2001:db8::7]:51234", trusted)).toBe("2001:db8::7");
  });

  it("stops at the nearest address a trusted proxy vouched for when the header says nothing better", () => {
    expect(clientAddressOf("10.0.0.1", undefined, trusted)).toBe("10.0.0.1");
    expect(clientAddressOf("10.0.0.1", "", trusted)).toBe("10.0.0.1");
    expect(clientAddressOf("10.0.0.1", "10.0.0.2, 10.0.0.3", trusted)).toBe("10.0.0.2");
    // Not an address where the proxy writes one: the client cannot choose its bucket with it.
    expect(clientAddressOf("10.0.0.1", "203.0.113.9, unknown", trusted)).toBe("10.0.0.1");
    expect(clientAddressOf("10.0.0.1", "203.0.113.9, not-an-ip, 10.0.0.4", trusted)).toBe("10.0.0.4");
    expect(clientAddressOf("10.0.0.1", `${"9".repeat(5000)}`, trusted)).toBe("10.0.0.1");
  });

  it("is NO_PEER only without a peer; a peer that is not an address is kept, shortened", () => {
    expect(clientAddressOf(undefined, "203.0.113.9", trusted)).toBe(NO_PEER);
    expect(clientAddressOf("", "203.0.113.9", trusted)).toBe(NO_PEER);
    expect(clientAddressOf("x".repeat(100), undefined, trusted)).toBe("x".repeat(64));
  });

  it("on Supabase's Edge Runtime (every peer 0.0.0.0), TRUSTED_PROXIES=0.0.0.0 reads the gateway's entry", () => {
    expect(clientAddressOf("0.0.0.0", "192.0.2.66, 203.0.113.9", ranges("0.0.0.0"))).toBe("203.0.113.9");
    expect(clientAddressOf("0.0.0.0", "192.0.2.66, 203.0.113.9", [])).toBe("0.0.0.0");
  });
});
