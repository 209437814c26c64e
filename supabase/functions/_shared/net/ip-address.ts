// IP addresses and ranges (CIDR), IPv4 and IPv6 alike. An IPv4 address is held in its IPv4-mapped
// IPv6 form, so 192.0.2.1 and ::ffff:192.0.2.1 (how a dual-stack socket reports it) are one address,
// and one list of ranges covers both families.
import { isIP } from "node:net";

/** Eight 16-bit groups. */
export type IpGroups = readonly number[];

/** An address and how many of its leading bits (of 128) a member shares. */
export interface IpRange {
  readonly groups: IpGroups;
  readonly bits: number;
}

export function ipv4ToNumber(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** Eight 16-bit groups, or null; accepts `::` and a dotted IPv4 tail. Lenient: check isIP first. */
export function parseIpv6(address: string): number[] | null {
  let text = address.split("%")[0]!; // a zone id (fe80::1%eth0) names an interface, not an address
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = ipv4ToNumber(tail[1]!);
    text = text.slice(0, -tail[1]!.length) + `${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part ? part.split(":").map((h) => parseInt(h, 16)) : []);
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  return groups.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? groups : null;
}

/** An IPv4 or IPv6 address as written (no brackets, no port); null for anything else. */
export function parseIpAddress(text: string): IpGroups | null {
  const family = isIP(text);
  if (family === 4) {
    const v4 = ipv4ToNumber(text);
    return [0, 0, 0, 0, 0, 0xffff, v4 >>> 16, v4 & 0xffff];
  }
  return family === 6 ? parseIpv6(text) : null;
}

const isIpv4Mapped = (g: IpGroups) => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;

/** One spelling per address: dotted IPv4 for IPv4 (mapped or not), RFC 5952 for IPv6. */
export function formatIpAddress(g: IpGroups): string {
  if (isIpv4Mapped(g)) return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join(".");
  // RFC 5952: the longest run of two or more zero groups (the first of equals) becomes "::".
  let run = { start: -1, length: 1 };
  for (let i = 0; i < 8;) {
    let end = i;
    while (end < 8 && g[end] === 0) end++;
    if (end - i > run.length) run = { start: i, length: end - i };
    i = Math.max(end, i + 1);
  }
  const hex = g.map((x) => x.toString(16));
  if (run.start < 0) return hex.join(":");
  return `${hex.slice(0, run.start).join(":")}::${hex.slice(run.start + run.length).join(":")}`;
}

/** The mask of group `index` when the first `bits` of 128 count. */
const groupMask = (bits: number, index: number) => {
  const own = Math.min(16, Math.max(0, bits - 16 * index));
  return own === 0 ? 0 : (0xffff << (16 - own)) & 0xffff;
};

/**
 * `192.0.2.1`, `192.0.2.0/24`, `2001:db8::1` or `2001:db8::/32`; otherwise a message saying what is
 * wrong. A range with bits set past its prefix is refused: it is more likely a typo than meant.
 */
export function parseIpRange(text: string): IpRange | string {
  const [address, prefix, ...extra] = text.split("/");
  const groups = parseIpAddress(address!);
  if (!groups || extra.length > 0) return `"${text}" is not an IP address or CIDR range`;
  const ipv4 = isIP(address!) === 4;
  const max = ipv4 ? 32 : 128;
  if (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max)) return `"${text}": the prefix length is 0 to ${max}`;
  const bits = (prefix === undefined ? max : Number(prefix)) + (ipv4 ? 96 : 0);
  const masked = groups.map((x, i) => x & groupMask(bits, i));
  if (masked.some((x, i) => x !== groups[i])) return `"${text}" has bits set past its prefix; did you mean ${formatIpAddress(masked)}/${prefix}?`;
  return { groups, bits };
}

export function inIpRange(address: IpGroups, range: IpRange): boolean {
  return address.every((x, i) => (x & groupMask(range.bits, i)) === range.groups[i]);
}
