// Sign-In with Ethereum (EIP-4361) messages, and the same message for a Sui account (CAIP-122, "Sign
// in with X": `... with your Sui account:`, a 0x + 64 hex address, `Chain ID: sui:testnet`), read
// and checked by the service itself. viem's parseSiweMessage turns a time it cannot read into an
// Invalid Date (which every comparison lets through), a chain id into a lossy Number and ignores
// text around the fields; here every field is read as written and checked as written.
import { ApiError } from "../http/errors.ts";
import { SUI_NETWORKS } from "../sui/network.ts";

/** The accounts a message can sign in with: Ethereum (any EVM chain) or Sui. */
export type SignInChain = "ethereum" | "sui";

/** A message's fields exactly as they appear in its text. */
interface SiweFields {
  chain: SignInChain;
  scheme?: string;
  domain: string;
  address: string;
  statement?: string;
  uri: string;
  version: string;
  chainId: string;
  nonce: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/** What a checked message lets the service link: the signature over its text is checked next. */
export interface SiweClaims {
  chain: SignInChain;
  address: string;
  chainId: string;
  nonce: string;
}

/** How far in the future `Issued At` may be: the signer's clock may run ahead of ours. */
export const SIWE_CLOCK_SKEW_SECONDS = 60;
/** Chain ids are answered as JSON numbers, so they stay below 2^53 to be exact in every client. */
export const SIWE_MAX_CHAIN_ID = BigInt(Number.MAX_SAFE_INTEGER);

const siweError = (code: string, message: string, details?: unknown) => new ApiError(400, code, message, details);
const malformed = (what: string) => siweError("siwe_message_invalid", `The SIWE message does not follow EIP-4361: ${what}.`);

const HEADER = /^(?:(?<scheme>[A-Za-z][A-Za-z0-9+.-]*):\/\/)?(?<domain>\S+) wants you to sign in with your (?<chain>Ethereum|Sui) account:$/;
const ADDRESS: Record<SignInChain, RegExp> = { ethereum: /^0x[0-9a-fA-F]{40}$/, sui: /^0x[0-9a-fA-F]{64}$/ };

/**
 * Reads the fields of an EIP-4361 message line by line, in the order its ABNF fixes, and refuses
 * anything else (missing required lines, fields out of order, extra lines, CR LF line ends). The
 * address line is 0x and 40 hex digits in any case (a checksum is not required).
 * `Issued At` is required too, but its absence is reported by checkSiweMessage, with the times.
 */
function readSiweFields(text: string): SiweFields {
  const lines = text.split("\n");
  const header = HEADER.exec(lines[0] ?? "");
  if (!header?.groups) throw malformed("the first line must be `<domain> wants you to sign in with your Ethereum account:` (or `Sui account:`)");
  const chain = header.groups.chain === "Sui" ? "sui" : "ethereum";
  const address = lines[1] ?? "";
  if (!ADDRESS[chain].test(address)) throw malformed(`the second line must be the address (${chain === "sui" ? "0x and 64 hex digits" : "0x and 40 hex digits"})`);
  if (lines[2] !== "") throw malformed("an empty line must follow the address");
  // `[ statement LF ] LF`: either an empty line, or the statement and then an empty line.
  let next = 3;
  let statement: string | undefined;
  if (lines[next] !== "") statement = lines[next++];
  if (lines[next++] !== "") throw malformed("an empty line must precede `URI:`");

  const field = (label: string, required: boolean): string | undefined => {
    const line = lines[next];
    if (line?.startsWith(`${label}: `)) {
      next++;
      return line.slice(label.length + 2);
    }
    if (required) throw malformed(`\`${label}:\` is missing or out of order`);
    return undefined;
  };
  const fields: SiweFields = {
    chain,
    scheme: header.groups.scheme,
    domain: header.groups.domain!,
    address,
    statement,
    uri: field("URI", true)!,
    version: field("Version", true)!,
    chainId: field("Chain ID", true)!,
    nonce: field("Nonce", true)!,
    issuedAt: field("Issued At", false),
    expirationTime: field("Expiration Time", false),
    notBefore: field("Not Before", false),
    requestId: field("Request ID", false),
  };
  if (lines[next] === "Resources:") {
    next++;
    fields.resources = [];
    while (lines[next]?.startsWith("- ")) fields.resources.push(lines[next++]!.slice(2));
  }
  if (next !== lines.length) throw malformed(`unexpected text on line ${next + 1}`);
  return fields;
}

// RFC 3339 date-time, the format EIP-4361 prescribes: full date, "T", time with optional fraction,
// and a zone ("Z" or ±hh:mm). RFC 3339 lets "T" and "Z" be lower case.
const DATE_TIME =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})[Tt](?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})(?:\.(?<fraction>\d+))?(?:[Zz]|(?<sign>[+-])(?<offsetHour>\d{2}):(?<offsetMinute>\d{2}))$/;

/**
 * The instant an RFC 3339 date-time names, or undefined when the text is not one or names no real
 * time. Every part is range-checked on the text: Date would roll 2021-02-30 over to March 2nd.
 * Leap seconds (:60) are not accepted.
 */
function parseRfc3339(text: string): Date | undefined {
  const parts = DATE_TIME.exec(text)?.groups;
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = [
    parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second, parts.offsetHour ?? "0", parts.offsetMinute ?? "0",
  ].map(Number) as [number, number, number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || offsetHour > 23 || offsetMinute > 59) return undefined;
  // setUTCFullYear, unlike Date.UTC, takes years 0-99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (day < 1 || date.getUTCMonth() !== month - 1) return undefined; // a day the month does not have
  const fractionMs = parts.fraction ? Math.floor(Number(`0.${parts.fraction}`) * 1000) : 0;
  const offsetMs = (parts.sign === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute) * 60_000;
  return new Date(date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000 + fractionMs - offsetMs);
}

// RFC 3986: an absolute URI has a scheme; its characters are unreserved, reserved or %-escapes.
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const WEB_URI = /^(?<scheme>https?):\/\/(?<authority>[^/?#]*)(?:[/?#]|$)/i;

function checkUri(fields: SiweFields): void {
  const uri = fields.uri;
  const web = WEB_URI.exec(uri)?.groups;
  if (!ABSOLUTE_URI.test(uri) || !web) throw siweError("siwe_uri_invalid", "The SIWE message's URI must be an absolute http or https URI.");
  if (web.authority!.toLowerCase() !== fields.domain.toLowerCase()) {
    throw siweError("siwe_uri_invalid", `The SIWE message's URI must be on its domain (${fields.domain}).`);
  }
  if (fields.scheme && fields.scheme.toLowerCase() !== web.scheme!.toLowerCase()) {
    throw siweError("siwe_uri_invalid", `The SIWE message's URI must use its scheme (${fields.scheme}).`);
  }
  if (fields.resources?.some((resource) => !ABSOLUTE_URI.test(resource))) {
    throw siweError("siwe_uri_invalid", "Every resource of the SIWE message must be an absolute URI.");
  }
}

function checkChainId(chain: SignInChain, chainId: string): void {
  if (chain === "sui") {
    if (!(SUI_NETWORKS as readonly string[]).includes(chainId)) {
      throw siweError("siwe_chain_id_invalid", `A Sui message's chain id must be one of ${SUI_NETWORKS.join(", ")}.`);
    }
    return;
  }
  // Decimal without leading zeros, so the id stored is the text that was signed.
  if (!/^[1-9][0-9]*$/.test(chainId) || BigInt(chainId) > SIWE_MAX_CHAIN_ID) {
    throw siweError("siwe_chain_id_invalid", `The SIWE message's chain id must be an integer from 1 to ${SIWE_MAX_CHAIN_ID}.`);
  }
}

/** Reads a time field; absent stays undefined, present must be a real RFC 3339 date-time. */
function timeOf(fields: SiweFields, field: "issuedAt" | "expirationTime" | "notBefore", label: string): Date | undefined {
  const text = fields[field];
  if (text === undefined) return undefined;
  const time = parseRfc3339(text);
  if (!time) {
    throw siweError("siwe_time_invalid", `The SIWE message's ${label} must be an RFC 3339 date-time with a time zone, such as 2026-01-31T12:00:00Z.`, { field });
  }
  return time;
}

function checkTimes(fields: SiweFields, now: Date): void {
  if (fields.issuedAt === undefined) throw siweError("siwe_time_invalid", "The SIWE message has no Issued At.", { field: "issuedAt" });
  // Every present time is read before any is compared, so a bad one is never hidden by another.
  const issuedAt = timeOf(fields, "issuedAt", "Issued At")!;
  const expirationTime = timeOf(fields, "expirationTime", "Expiration Time");
  const notBefore = timeOf(fields, "notBefore", "Not Before");
  if (issuedAt.getTime() > now.getTime() + SIWE_CLOCK_SKEW_SECONDS * 1000) {
    throw siweError("siwe_issued_in_future", `The SIWE message's Issued At is more than ${SIWE_CLOCK_SKEW_SECONDS} seconds in the future.`);
  }
  if (expirationTime && now >= expirationTime) throw siweError("siwe_expired", "The SIWE message has expired.");
  if (notBefore && now < notBefore) throw siweError("siwe_not_yet_valid", "The SIWE message is not valid yet (Not Before).");
}

/** Checks what the service decides on in a message; the signature over its text is checked after. */
export function checkSiweMessage(text: string, allowedDomains: readonly string[], now: Date): SiweClaims {
  const fields = readSiweFields(text);
  if (!allowedDomains.includes(fields.domain)) {
    throw siweError("siwe_message_invalid", `The SIWE message domain must be one of: ${allowedDomains.join(", ")}.`);
  }
  if (fields.version !== "1") throw siweError("siwe_message_invalid", "The SIWE message version must be 1.");
  if (!/^[A-Za-z0-9]{8,}$/.test(fields.nonce)) throw siweError("siwe_message_invalid", "The SIWE message nonce must be 8 or more letters and digits.");
  checkChainId(fields.chain, fields.chainId);
  checkUri(fields);
  checkTimes(fields, now);
  return { chain: fields.chain, address: fields.address, chainId: fields.chainId, nonce: fields.nonce };
}
