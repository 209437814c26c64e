// What can be done with the caller's identity, for every surface: who they are, their profile, and
// the wallets linked to them. A wallet is linked with a SIWE message signed over a nonce the service
// issued (siwe.ts checks the text; viem the signature of an Ethereum account, @mysten/sui's verifier
// the personal-message signature of a Sui account; core.link_crypto_address spends the nonce).
import type { z } from "@hono/zod-openapi";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import { verifyPersonalMessageSignature } from "@mysten/sui/verify";
import { getAddress, verifyMessage } from "viem";
import { generateSiweNonce } from "viem/siwe";
import { ApiError } from "../http/errors.ts";
import { validationError } from "../http/validation.ts";
import { noContent, ok, operation } from "../operations/operation.ts";
import { type CryptoAddressSchema, type LinkCryptoAddressSchema, type ProfileSchema, SIGNATURE_FORMS } from "./schemas.ts";
import { checkSiweMessage } from "./siwe.ts";

type CryptoAddress = z.output<typeof CryptoAddressSchema>;
type Profile = z.output<typeof ProfileSchema>;

interface CryptoAddressRow {
  address: string;
  chain_id: string;
  connector: string;
  created_at: Date;
}

function toCryptoAddress(row: CryptoAddressRow): CryptoAddress {
  return {
    address: row.address,
    chainId: /^[0-9]+$/.test(row.chain_id) ? Number(row.chain_id) : row.chain_id,
    connector: row.connector,
    createdAt: row.created_at.toISOString(),
  };
}

const WALLET_LINK = ["wallet:link"] as const;

// The request schema takes either form; the message's account decides which one is valid.
const SIGNATURE_FORM_TEXT = {
  ethereum: "An Ethereum account's signature is 0x and 130 hex digits (EIP-191).",
  sui: "A Sui account's signature is the serialized signature in base64.",
} as const;

/** An API key's owner is one statement (core.enter_api_key_scope); a session or a grant names its user. */
export const getSession = operation({
  name: "identity.session",
  ownTransactions: true,
  async run({ principal, database }) {
    if (principal.kind === "anonymous") throw new Error("getSession runs after requireApiKey");
    const id = principal.kind === "api_key" ? await database.apiKeyOwner(principal.scope) : principal.userId;
    return ok({ user: { id } });
  },
});

export const getMe = operation({
  name: "identity.me",
  ownTransactions: true,
  async run({ principal, database }) {
    if (principal.kind !== "api_key") throw new ApiError(401, "missing_api_key", "Send your API key in the x-api-key header.");
    // One statement: the function checks the key and reads the profile under RLS.
    const [row] = await database.apiKeyFunction(principal.scope, (sql, keyHash, required) => sql<{
      id: string; email: string | null; username: string | null; display_name: string | null;
      bio: string | null; avatar_url: string | null; created_at: Date; updated_at: Date;
    }[]>`select * from core.me_by_api_key(${keyHash}, ${required}::text[])`, ([me]) => me?.id);
    if (!row) throw new ApiError(404, "not_found", "The key's owner has no profile.");
    return ok<Profile>({
      id: row.id,
      email: row.email,
      username: row.username,
      displayName: row.display_name,
      bio: row.bio,
      avatarUrl: row.avatar_url,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
  },
});

export const listCryptoAddresses = operation({
  name: "identity.cryptoAddresses.list",
  scopes: WALLET_LINK,
  async run({ db }) {
    const rows = await db.statement((tx) => tx<CryptoAddressRow[]>`
      select address, chain_id, connector, created_at from core.crypto_addresses order by created_at, id`);
    return ok({ items: rows.map(toCryptoAddress) });
  },
});

export const createSiweNonce = operation({
  name: "identity.cryptoAddresses.nonce",
  scopes: WALLET_LINK,
  async run({ db, config }) {
    const nonce = generateSiweNonce();
    const [row] = await db.statement((tx) => tx<{ expires_at: Date }[]>`
      select core.issue_siwe_nonce(${nonce}) as expires_at`);
    return ok({ nonce, expiresAt: row!.expires_at.toISOString(), domains: config.SIWE_DOMAINS }, 201);
  },
});

export const linkCryptoAddress = operation({
  name: "identity.cryptoAddresses.link",
  scopes: WALLET_LINK,
  async run({ db, config }, body: z.output<typeof LinkCryptoAddressSchema>) {
    const claims = checkSiweMessage(body.message, config.SIWE_DOMAINS, new Date());
    if (!SIGNATURE_FORMS[claims.chain].test(body.signature)) {
      throw validationError([{ code: "custom", path: ["signature"], message: SIGNATURE_FORM_TEXT[claims.chain] }]);
    }
    const address = claims.chain === "sui" ? normalizeSuiAddress(claims.address) : getAddress(claims.address);
    const signedByAddress = claims.chain === "sui"
      ? await verifyPersonalMessageSignature(new TextEncoder().encode(body.message), body.signature, { address }).then(() => true, () => false)
      : await verifyMessage({ address: address as `0x${string}`, message: body.message, signature: body.signature as `0x${string}` })
        .catch(() => false);
    if (!signedByAddress) throw new ApiError(400, "siwe_signature_invalid", "The signature was not made by the message's address.");
    const [row] = await db.statement((tx) => tx<CryptoAddressRow[]>`
      select address, chain_id, connector, created_at
      from core.link_crypto_address(${claims.nonce}, ${address}, ${claims.chainId}, ${body.connector})`);
    return ok(toCryptoAddress(row!), 201);
  },
});

export const unlinkCryptoAddress = operation({
  name: "identity.cryptoAddresses.unlink",
  async run({ db }, { address, chainId }: { address: string; chainId: string }) {
    const removed = await db.statement((tx) => tx`
      delete from core.crypto_addresses where chain_id = ${chainId} and lower(address) = lower(${address}) returning id`);
    if (removed.length === 0) throw new ApiError(404, "not_found", "No such address is linked to this user on that chain.");
    return noContent();
  },
});
