// The identity's shapes: who a credential belongs to, their profile, and the wallets linked to them
// with a signed Sign-In with Ethereum message (the message's own rules are in siwe.ts).
import { z } from "@hono/zod-openapi";
import { ObjectId } from "../http/openapi.ts";

export const SessionSchema = z
  .object({
    user: z.object({ id: ObjectId.openapi({ description: "The service's user id (24-hex ObjectID). Ids from your own system are not comparable with it." }) }),
  })
  .openapi("Session");

export const ProfileSchema = z
  .object({
    id: ObjectId,
    email: z.string().nullable(),
    username: z.string().nullable(),
    displayName: z.string().nullable(),
    bio: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Profile");

export const CryptoAddressSchema = z
  .object({
    address: z.string().openapi({ example: "0x71C7656EC7ab88b098defB751B7401B5f6d8976F" }),
    chainId: z.union([z.number().int(), z.string()]).openapi({
      description: "EVM chains: the numeric chain id. Other chains: a CAIP-2 style name such as `sui:mainnet`.",
      example: 8453,
    }),
    connector: z.string().openapi({ example: "metamask" }),
    createdAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("CryptoAddress");

export const CryptoAddressListSchema = z.object({ items: z.array(CryptoAddressSchema) }).openapi("CryptoAddressList");

export const SiweNonceSchema = z
  .object({ nonce: z.string(), expiresAt: z.string().openapi({ format: "date-time" }), domains: z.array(z.string()) })
  .openapi("SiweNonce");

/** The signature forms a link takes; the message's account decides which one is valid (operations.ts). */
export const SIGNATURE_FORMS = { ethereum: /^0x[0-9a-fA-F]{130}$/, sui: /^[A-Za-z0-9+/]{40,2048}={0,2}$/ } as const;

export const LinkCryptoAddressSchema = z
  .object({
    message: z.string().min(1).max(4096).openapi({
      description: "The EIP-4361 message exactly as signed. A Sui account signs the same message with `Sui account:` in its first " +
        "line, its 0x + 64 hex address, and `Chain ID: sui:mainnet` (or `sui:testnet`, `sui:devnet`, `sui:localnet`) (CAIP-122).",
    }),
    signature: z.union([
      z.string().regex(SIGNATURE_FORMS.ethereum).openapi({ description: "Ethereum: 65-byte hex signature (EIP-191)" }),
      z.string().regex(SIGNATURE_FORMS.sui).openapi({
        description: "Sui: the serialized personal-message signature, base64 (scheme flag, signature and public key, as wallets return it)",
      }),
    ]),
    connector: z.string().min(1).max(64).openapi({ example: "metamask" }),
  })
  .strict()
  .openapi("LinkCryptoAddressRequest");

/** A linked address to unlink, as the caller spells it (compared case-insensitively). */
export const LinkedAddress = z.string().min(3).max(128);
/** The chain of a linked address: a decimal EVM chain id or a CAIP-2 style name. */
export const LinkedChainId = z.string().regex(/^([0-9]{1,20}|[a-z0-9]{3,8}:[a-zA-Z0-9-]{1,32})$/).openapi({ example: "8453" });
