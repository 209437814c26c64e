// The local auth server's signing key: one private ES256 (P-256) JWK, the kind of asymmetric key a
// Supabase project signs its sessions with. Access tokens carry its `kid`; its public half is the
// JWKS the server publishes, and what the gateway verifies them against.
import { createECDH } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";

export const LOCAL_AUTH_ALG = "ES256";

export interface LocalAuthPublicJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  alg: typeof LOCAL_AUTH_ALG;
  use: "sig";
}

export interface LocalAuthSigningKey {
  readonly kid: string;
  readonly publicJwk: LocalAuthPublicJwk;
  /** The public JWK and its private scalar `d`. */
  readonly privateJwk: LocalAuthPublicJwk & { d: string };
}

const coordinate = (value: unknown): value is string => typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);

/** The key in `text` (LOCAL_AUTH_SIGNING_KEY): `{"kty":"EC","crv":"P-256","x","y","d","kid"}`. */
export function parseLocalAuthSigningKey(text: string): LocalAuthSigningKey {
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw new RangeError("not JSON (expected a private ES256 JWK)");
  }
  if (jwk === null || typeof jwk !== "object" || Array.isArray(jwk)) throw new RangeError("not a JWK object");
  if (jwk.kty !== "EC" || jwk.crv !== "P-256") throw new RangeError('not a P-256 key (kty "EC", crv "P-256")');
  if (jwk.alg !== undefined && jwk.alg !== LOCAL_AUTH_ALG) throw new RangeError(`alg "${String(jwk.alg)}", not ES256`);
  if (typeof jwk.kid !== "string" || !/^[\x21-\x7e]{1,100}$/.test(jwk.kid)) throw new RangeError("no kid (1 to 100 printable characters)");
  if (!coordinate(jwk.x) || !coordinate(jwk.y) || !coordinate(jwk.d)) throw new RangeError("x, y and d must be 32 bytes each, base64url");
  const publicJwk: LocalAuthPublicJwk = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, kid: jwk.kid, alg: LOCAL_AUTH_ALG, use: "sig" };
  // A d pasted beside another key's x and y would sign tokens that nobody can verify. (A KeyObject
  // made from the JWK keeps the x and y it was given, so the point is computed from d.)
  let point: Buffer;
  try {
    const ecdh = createECDH("prime256v1");
    ecdh.setPrivateKey(Buffer.from(jwk.d, "base64url"));
    point = ecdh.getPublicKey();
  } catch {
    throw new RangeError("d is not a valid P-256 private key");
  }
  if (point.subarray(1, 33).toString("base64url") !== jwk.x || point.subarray(33).toString("base64url") !== jwk.y) {
    throw new RangeError("d does not match x and y");
  }
  return Object.freeze({ kid: jwk.kid, publicJwk, privateJwk: { ...publicJwk, d: jwk.d } });
}

/** A new key (JSON text) for LOCAL_AUTH_SIGNING_KEY; its kid is its RFC 7638 thumbprint. */
export async function generateLocalAuthSigningKey(): Promise<string> {
  const { privateKey } = await generateKeyPair(LOCAL_AUTH_ALG, { extractable: true });
  const { x, y, d } = await exportJWK(privateKey);
  if (!x || !y || !d) throw new Error("the generated key did not export as a P-256 JWK");
  const kid = await calculateJwkThumbprint({ kty: "EC", crv: "P-256", x, y });
  return JSON.stringify({ kty: "EC", crv: "P-256", x, y, d, kid, alg: LOCAL_AUTH_ALG, use: "sig" });
}
