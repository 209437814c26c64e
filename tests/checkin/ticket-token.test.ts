// QR tickets verify only when one of the configured keys signed them, unaltered, as a ticket; a new
// key signs while the old one still verifies; scanners can verify offline with a standard library.
import { createLocalJWKSet, importJWK, jwtVerify, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  generateTicketSigningKey,
  parseTicketSigningKeys,
  publicJwks,
  signTicket,
  type TicketSigningKeys,
  TicketTokenError,
  verifyTicket,
} from "../../supabase/functions/_shared/checkin/ticket-token.ts";

const ticket = { reservationId: "65f1c0a2b3d4e5f601234567", eventId: "65f1c0a2b3d4e5f60123abcd", version: 3 };

const newKeys = async (kid?: string) => parseTicketSigningKeys(await generateTicketSigningKey(kid));

async function refusal(keys: TicketSigningKeys, token: string, now?: Date): Promise<string> {
  const error = await verifyTicket(keys, token, { now }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TicketTokenError);
  return (error as TicketTokenError).code;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const privateJwkOf = async (kid: string) => JSON.parse(await generateTicketSigningKey(kid)) as Record<string, string>;

describe("ticket tokens", () => {
  it("verify what they signed, with the signing key's kid", async () => {
    const keys = await newKeys("2025-01");
    const token = await signTicket(keys, ticket);
    expect(await verifyTicket(keys, token)).toEqual({ ...ticket, kid: "2025-01" });
    const [header, payload] = token.split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part, "base64url").toString()));
    expect(header).toEqual({ alg: "EdDSA", kid: "2025-01", typ: "ticket+jwt" });
    expect(Object.keys(payload)).toEqual(["t", "e", "v", "iat"]);
  });

  it("refuse a tampered payload or signature", async () => {
    const keys = await newKeys();
    const [header, payload, signature] = (await signTicket(keys, ticket)).split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const otherReservation = encode({ ...claims, t: "65f1c0a2b3d4e5f601234568" });
    expect(await refusal(keys, `${header}.${otherReservation}.${signature}`)).toBe("ticket_signature_invalid");
    const flipped = Buffer.from(signature, "base64url");
    flipped[10]! ^= 1;
    expect(await refusal(keys, `${header}.${payload}.${flipped.toString("base64url")}`)).toBe("ticket_signature_invalid");
  });

  it("refuse alg none and HS256, even under a known kid", async () => {
    const keys = await newKeys("k1");
    const claims = { t: ticket.reservationId, e: ticket.eventId, v: ticket.version, iat: 1_700_000_000 };
    const unsigned = `${encode({ alg: "none", kid: "k1", typ: "ticket+jwt" })}.${encode(claims)}.`;
    expect(await refusal(keys, unsigned)).toBe("ticket_signature_invalid");
    // The classic confusion: an HMAC keyed with the public key, which anyone has.
    const publicKeyBytes = Buffer.from(publicJwks(keys).keys[0]!.x, "base64url");
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: "k1", typ: "ticket+jwt" }).sign(publicKeyBytes);
    expect(await refusal(keys, hs256)).toBe("ticket_signature_invalid");
  });

  it("refuse an unknown kid, and a known kid on another key", async () => {
    const issuer = await newKeys("k1");
    const token = await signTicket(issuer, ticket);
    expect(await refusal(await newKeys("k2"), token)).toBe("ticket_unknown_key");
    expect(await refusal(await newKeys("k1"), token)).toBe("ticket_signature_invalid");
  });

  it("expire only when given an expiry", async () => {
    const keys = await newKeys();
    const expiresAt = new Date(Date.now() + 60_000);
    const token = await signTicket(keys, ticket, { expiresAt });
    expect((await verifyTicket(keys, token)).reservationId).toBe(ticket.reservationId);
    expect(await refusal(keys, token, new Date(expiresAt.getTime() + 1_000))).toBe("ticket_expired");
    const lasting = await signTicket(keys, ticket);
    expect((await verifyTicket(keys, lasting, { now: new Date(Date.now() + 10 * 365 * 86_400_000) })).version).toBe(3);
  });

  it("refuse a token of another type, bad claims and what is not a token", async () => {
    const jwk = await privateJwkOf("k1");
    const keys = parseTicketSigningKeys(JSON.stringify(jwk));
    const privateKey = await importJWK(jwk, "EdDSA");
    const claims = { t: ticket.reservationId, e: ticket.eventId, v: 1 };
    const plainJwt = await new SignJWT(claims).setProtectedHeader({ alg: "EdDSA", kid: "k1", typ: "JWT" }).setIssuedAt().sign(privateKey);
    expect(await refusal(keys, plainJwt)).toBe("ticket_malformed");
    for (const bad of [{ ...claims, t: "65F1C0A2B3D4E5F601234567" }, { ...claims, e: undefined }, { ...claims, v: 0 }, { ...claims, v: "1" }]) {
      const token = await new SignJWT(bad).setProtectedHeader({ alg: "EdDSA", kid: "k1", typ: "ticket+jwt" }).sign(privateKey);
      expect(await refusal(keys, token)).toBe("ticket_malformed");
    }
    for (const notAToken of ["", "abc", "a.b.c", `${encode({ alg: "EdDSA", typ: "ticket+jwt" })}.e30.`, "x".repeat(5_000)]) {
      expect(await refusal(keys, notAToken)).toBe("ticket_malformed");
    }
  });

  it("refuse to sign what is not a ticket", async () => {
    const keys = await newKeys();
    await expect(signTicket(keys, { ...ticket, reservationId: "r1" })).rejects.toThrow(RangeError);
    await expect(signTicket(keys, { ...ticket, version: 0 })).rejects.toThrow(RangeError);
    await expect(signTicket(keys, { ...ticket, version: 1.5 })).rejects.toThrow(RangeError);
  });
});

describe("ticket key rotation", () => {
  it("signs with the new key while tickets of the old one still verify", async () => {
    const oldKey = await privateJwkOf("old");
    const newKey = await privateJwkOf("new");
    const before = parseTicketSigningKeys(JSON.stringify(oldKey));
    const { d: _retired, ...oldPublic } = oldKey;
    const during = parseTicketSigningKeys(JSON.stringify([newKey, oldPublic]));

    const issuedBefore = await signTicket(before, ticket);
    expect((await verifyTicket(during, issuedBefore)).kid).toBe("old");
    const issuedDuring = await signTicket(during, ticket);
    expect((await verifyTicket(during, issuedDuring)).kid).toBe("new");
    expect(await refusal(before, issuedDuring)).toBe("ticket_unknown_key");
  });

  it("signs with the first private key, wherever it is in the array", async () => {
    const { d: _d, ...verifyOnly } = await privateJwkOf("verify-only");
    const keys = parseTicketSigningKeys(JSON.stringify([verifyOnly, await privateJwkOf("second"), await privateJwkOf("third")]));
    expect(keys.signingKid).toBe("second");
  });
});

describe("parseTicketSigningKeys", () => {
  it("refuses with a message what cannot sign tickets", async () => {
    const key = await privateJwkOf("k1");
    const other = await privateJwkOf("k2");
    const { d: _d, ...publicOnly } = key;
    const cases: [string, RegExp][] = [
      ["not json", /not JSON/],
      ["[]", /empty/],
      ["42", /not a JWK object/],
      [JSON.stringify(publicOnly), /no private key/],
      [JSON.stringify([key, { ...other, kid: "k1" }]), /kid "k1" is used twice/],
      [JSON.stringify({ ...key, d: other.d }), /d that does not match its x/],
      [JSON.stringify({ ...key, crv: "P-256" }), /not an Ed25519 key/],
      [JSON.stringify({ ...key, kid: undefined }), /no kid/],
      [JSON.stringify({ ...key, alg: "RS256" }), /alg "RS256"/],
      [JSON.stringify({ ...key, x: "short" }), /no valid x/],
      [JSON.stringify({ ...key, d: `${key.d}A` }), /invalid d/],
    ];
    for (const [value, message] of cases) expect(() => parseTicketSigningKeys(value), value).toThrow(message);
    expect(() => parseTicketSigningKeys("[]")).toThrow(RangeError);
  });
});

describe("publicJwks", () => {
  it("publishes every key without its private part", async () => {
    const keys = parseTicketSigningKeys(JSON.stringify([await privateJwkOf("new"), await privateJwkOf("old")]));
    const { keys: published } = publicJwks(keys);
    expect(published.map((jwk) => jwk.kid)).toEqual(["new", "old"]);
    for (const jwk of published) {
      expect(jwk).not.toHaveProperty("d");
      expect(jwk).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    }
  });

  it("lets a scanner verify a ticket offline with jose's own JWKS support", async () => {
    const keys = await newKeys();
    const token = await signTicket(keys, ticket);
    const jwks = createLocalJWKSet(JSON.parse(JSON.stringify(publicJwks(keys))));
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { algorithms: ["EdDSA"], typ: "ticket+jwt" });
    expect(payload).toMatchObject({ t: ticket.reservationId, e: ticket.eventId, v: ticket.version });
    expect(protectedHeader.kid).toBe(keys.signingKid);
  });
});
