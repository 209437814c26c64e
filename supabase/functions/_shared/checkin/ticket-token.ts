// QR tickets: a compact JWS (EdDSA over Ed25519) naming a reservation, its event and the
// reservation's version. The signature proves the service issued the ticket; whether it still admits
// anyone is the database's call (the version changes when the reservation does), so tickets carry no
// expiry unless the caller asks for one. Claim names are one letter to keep the QR code small.
//
// Keys come from configuration as JWKs. The first private key signs and every key verifies, so a new
// key can take over signing while tickets already handed out under the old one still scan. Scanners
// verify offline with the public half (`publicJwks`) and any JOSE library.
//
// jose signs. The door verifies with node:crypto's synchronous Ed25519 (a fifth of Web Crypto's cost
// per scan, the largest part of a scan's CPU): the algorithm, type and key are fixed, so what is left
// of JWS is a base64url split and one signature over `header.payload`.
import { createPrivateKey, createPublicKey, type KeyObject, verify } from "node:crypto";
import { calculateJwkThumbprint, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";

const ALG = "EdDSA";
const TYP = "ticket+jwt";
const OBJECT_ID = /^[0-9a-f]{24}$/;
/** Far above a real ticket (about 320 characters): longer input is refused before any parsing. */
const MAX_TOKEN_LENGTH = 1024;
/** A JWS part: unpadded base64url, strictly (Buffer would skip other characters silently). */
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface Ticket {
  reservationId: string;
  eventId: string;
  /** The reservation's version when the ticket was issued: a positive integer. */
  version: number;
}

export interface VerifiedTicket extends Ticket {
  /** The key that signed it, for logs and for knowing when an old key can be retired. */
  kid: string;
}

export interface TicketPublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: typeof ALG;
  use: "sig";
}

interface TicketKey {
  publicJwk: TicketPublicJwk;
  /** The private scalar, base64url, when this key can sign. */
  d?: string;
}

export interface TicketSigningKeys {
  readonly signingKid: string;
  readonly keys: readonly TicketKey[];
}

export type TicketTokenErrorCode = "ticket_malformed" | "ticket_signature_invalid" | "ticket_unknown_key" | "ticket_expired";

export class TicketTokenError extends Error {
  constructor(readonly code: TicketTokenErrorCode, message: string) {
    super(message);
    this.name = "TicketTokenError";
  }
}

/**
 * The key set in `value`: one private Ed25519 JWK, or an array of them in which the first private key
 * signs and the others, public or private, only verify. Every key needs a distinct `kid`.
 */
export function parseTicketSigningKeys(value: string): TicketSigningKeys {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new RangeError("ticket signing keys: not JSON (expected a JWK or an array of JWKs)");
  }
  const entries = Array.isArray(parsed) ? parsed : [parsed];
  if (entries.length === 0) throw new RangeError("ticket signing keys: the array is empty");
  const keys = entries.map((entry, index) => parseKey(entry, entries.length === 1 ? "the key" : `key ${index + 1}`));
  const kids = new Set<string>();
  for (const { publicJwk } of keys) {
    if (kids.has(publicJwk.kid)) throw new RangeError(`ticket signing keys: kid "${publicJwk.kid}" is used twice`);
    kids.add(publicJwk.kid);
  }
  const signing = keys.find((key) => key.d !== undefined);
  if (!signing) throw new RangeError("ticket signing keys: no private key (with \"d\") to sign with");
  return Object.freeze({ signingKid: signing.publicJwk.kid, keys: Object.freeze(keys) });
}

function parseKey(entry: unknown, name: string): TicketKey {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) throw new RangeError(`ticket signing keys: ${name} is not a JWK object`);
  const jwk = entry as Record<string, unknown>;
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519") throw new RangeError(`ticket signing keys: ${name} is not an Ed25519 key (kty "OKP", crv "Ed25519")`);
  if (typeof jwk.kid !== "string" || jwk.kid === "") throw new RangeError(`ticket signing keys: ${name} has no kid`);
  const label = `${name} (kid "${jwk.kid}")`;
  if (jwk.alg !== undefined && jwk.alg !== ALG && jwk.alg !== "Ed25519") throw new RangeError(`ticket signing keys: ${label} has alg "${String(jwk.alg)}", not EdDSA`);
  if (jwk.use !== undefined && jwk.use !== "sig") throw new RangeError(`ticket signing keys: ${label} has use "${String(jwk.use)}", not sig`);
  if (!isBase64url32Bytes(jwk.x)) throw new RangeError(`ticket signing keys: ${label} has no valid x (32 bytes, base64url)`);
  const publicJwk: TicketPublicJwk = { kty: "OKP", crv: "Ed25519", x: jwk.x, kid: jwk.kid, alg: ALG, use: "sig" };
  if (jwk.d === undefined) return { publicJwk };
  if (!isBase64url32Bytes(jwk.d)) throw new RangeError(`ticket signing keys: ${label} has an invalid d (32 bytes, base64url)`);
  // A d pasted beside another key's x would sign tickets that no scanner can verify.
  const derivedX = createPublicKey(createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x, d: jwk.d }, format: "jwk" })).export({ format: "jwk" }).x;
  if (derivedX !== jwk.x) throw new RangeError(`ticket signing keys: ${label} has a d that does not match its x`);
  return { publicJwk, d: jwk.d };
}

function isBase64url32Bytes(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value) && Buffer.from(value, "base64url").toString("base64url") === value;
}

/** A new private JWK (JSON text) for configuration; the kid defaults to the key's RFC 7638 thumbprint. */
export async function generateTicketSigningKey(kid?: string): Promise<string> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const { x, d } = await exportJWK(privateKey);
  if (!x || !d) throw new Error("the generated key did not export as an Ed25519 JWK");
  const keyId = kid ?? (await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x }));
  return JSON.stringify({ kty: "OKP", crv: "Ed25519", x, d, kid: keyId, alg: ALG, use: "sig" });
}

/** What scanners download to verify tickets offline: the public keys only. */
export function publicJwks(keys: TicketSigningKeys): { keys: TicketPublicJwk[] } {
  return { keys: keys.keys.map(({ publicJwk }) => ({ ...publicJwk })) };
}

interface ImportedKeys {
  signing: CryptoKey;
  verifying: Map<string, KeyObject>;
}

// Imported once per key set: importing costs more than a verification.
const importedKeySets = new WeakMap<TicketSigningKeys, Promise<ImportedKeys>>();

function importedKeysOf(keys: TicketSigningKeys): Promise<ImportedKeys> {
  let imported = importedKeySets.get(keys);
  if (!imported) {
    imported = importKeys(keys);
    importedKeySets.set(keys, imported);
    imported.catch(() => importedKeySets.delete(keys));
  }
  return imported;
}

async function importKeys(keys: TicketSigningKeys): Promise<ImportedKeys> {
  const verifying = new Map<string, KeyObject>();
  let signing: CryptoKey | undefined;
  for (const { publicJwk, d } of keys.keys) {
    const { kty, crv, x, kid } = publicJwk;
    verifying.set(kid, createPublicKey({ key: { kty, crv, x }, format: "jwk" }));
    if (kid === keys.signingKid) signing = (await importJWK({ kty, crv, x, d }, ALG)) as CryptoKey;
  }
  if (!signing) throw new Error(`no private key with kid "${keys.signingKid}" in the set`);
  return { signing, verifying };
}

export interface SignTicketOptions {
  /** Tickets do not expire unless given this; the reservation's version is what revokes them. */
  expiresAt?: Date;
}

export async function signTicket(keys: TicketSigningKeys, ticket: Ticket, options: SignTicketOptions = {}): Promise<string> {
  if (!OBJECT_ID.test(ticket.reservationId)) throw new RangeError(`not a reservation id: ${ticket.reservationId}`);
  if (!OBJECT_ID.test(ticket.eventId)) throw new RangeError(`not an event id: ${ticket.eventId}`);
  if (!isTicketVersion(ticket.version)) throw new RangeError(`a ticket version is a positive integer, not ${ticket.version}`);
  const { signing } = await importedKeysOf(keys);
  const jwt = new SignJWT({ t: ticket.reservationId, e: ticket.eventId, v: ticket.version })
    .setProtectedHeader({ alg: ALG, kid: keys.signingKid, typ: TYP })
    .setIssuedAt();
  if (options.expiresAt) jwt.setExpirationTime(options.expiresAt);
  return jwt.sign(signing);
}

/**
 * The ticket in `token` when one of `keys` signed it and it has not expired (at `now`, by default the
 * current time). Whether its version is still the reservation's is for the caller to check.
 */
export async function verifyTicket(keys: TicketSigningKeys, token: string, options: { now?: Date } = {}): Promise<VerifiedTicket> {
  if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH) throw new TicketTokenError("ticket_malformed", "not a ticket token");
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new TicketTokenError("ticket_malformed", "not a ticket token");
  }
  // The algorithm is fixed, never taken from the token: "none" or HS256 keyed with a public key are refused here.
  if (header.alg !== ALG) throw new TicketTokenError("ticket_signature_invalid", `tickets are signed with ${ALG}, not ${String(header.alg)}`);
  if (header.typ !== TYP) throw new TicketTokenError("ticket_malformed", `not a ticket token (typ ${String(header.typ)})`);
  if (typeof header.kid !== "string") throw new TicketTokenError("ticket_malformed", "the ticket names no key (kid)");
  const key = (await importedKeysOf(keys)).verifying.get(header.kid);
  if (!key) throw new TicketTokenError("ticket_unknown_key", `no ticket key has kid "${header.kid}"`);

  const parts = token.split(".");
  if (parts.length !== 3) throw new TicketTokenError("ticket_malformed", "not a ticket token");
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const signature = BASE64URL.test(encodedSignature) ? Buffer.from(encodedSignature, "base64url") : null;
  if (!signature || signature.length !== 64 || !verify(null, Buffer.from(`${encodedHeader}.${encodedPayload}`), key, signature)) {
    throw new TicketTokenError("ticket_signature_invalid", "the ticket's signature is not valid");
  }
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(Buffer.from(encodedPayload, "base64url").toString("utf8"));
  } catch {
    throw new TicketTokenError("ticket_malformed", "not a ticket token");
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) throw new TicketTokenError("ticket_malformed", "not a ticket token");
  if (payload.exp !== undefined) {
    if (typeof payload.exp !== "number" || !Number.isFinite(payload.exp)) throw new TicketTokenError("ticket_malformed", "the ticket's exp is not a time");
    if (payload.exp <= Math.floor((options.now ?? new Date()).getTime() / 1000)) throw new TicketTokenError("ticket_expired", "the ticket has expired");
  }
  const { t, e, v } = payload;
  if (typeof t !== "string" || !OBJECT_ID.test(t) || typeof e !== "string" || !OBJECT_ID.test(e) || !isTicketVersion(v)) {
    throw new TicketTokenError("ticket_malformed", "the ticket's claims are not a reservation, an event and a version");
  }
  return { reservationId: t, eventId: e, version: v, kid: header.kid };
}

function isTicketVersion(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}
