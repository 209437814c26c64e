// The identity's shapes: who a credential belongs to, their profile, and the wallets linked to them
// with a signed Sign-In with Ethereum message (the message's own rules are in siwe.ts).
import { z } from "@hono/zod-openapi";
import { CreatedAt, ObjectId, Timestamp, UpdatedAt } from "../http/openapi.ts";

export const SessionSchema = z
  .object({
    user: z.object({ id: ObjectId.describe("The service's user id (24-hex ObjectID). Ids from your own system are not comparable with it.") })
      .describe("The user the credential belongs to"),
  })
  .openapi("Session");

export const ProfileSchema = z
  .object({
    id: ObjectId.describe("The user's id"),
    email: z.string().nullable().describe("The account's e-mail address; null when the account has none"),
    username: z.string().nullable().describe("The unique handle; null until one is set"),
    displayName: z.string().nullable().describe("The name shown to others; null until one is set"),
    bio: z.string().nullable().describe("A short text about the person; null when empty"),
    avatarUrl: z.string().nullable().describe("URL of the profile picture; null when none"),
    createdAt: CreatedAt,
    updatedAt: UpdatedAt,
  })
  .openapi("Profile")
  .describe("A user's profile");

export const CryptoAddressSchema = z
  .object({
    address: z.string().openapi({ example: "0x71C7656EC7ab88b098defB751B7401B5f6d8976F" })
      .describe("The wallet address as it was linked (EVM: 0x and 40 hex digits; Sui: 0x and 64)"),
    chainId: z.union([z.number().int(), z.string()]).openapi({ example: 8453 }).describe("EVM chains: the numeric chain id. Other chains: a CAIP-2 style name such as `sui:mainnet`."),
    connector: z.string().openapi({ example: "metamask" }).describe("The wallet software that signed the link, as the client named it"),
    createdAt: Timestamp.describe("When the address was linked (UTC)"),
  })
  .openapi("CryptoAddress")
  .describe("A wallet address linked to the account with a signed Sign-In with Ethereum message");

export const CryptoAddressListSchema = z.object({ items: z.array(CryptoAddressSchema).describe("Every linked address, oldest first") })
  .openapi("CryptoAddressList");

export const SiweNonceSchema = z
  .object({
    nonce: z.string().describe("Put it in the Sign-In with Ethereum message's `Nonce:` line; single use"),
    expiresAt: Timestamp.describe("The nonce is refused after this instant (UTC)"),
    domains: z.array(z.string()).describe("The hosts the message's domain line may name"),
  })
  .openapi("SiweNonce");

/** The signature forms a link takes; the message's account decides which one is valid (operations.ts). */
export const SIGNATURE_FORMS = { ethereum: /^0x[0-9a-fA-F]{130}$/, sui: /^[A-Za-z0-9+/]{40,2048}={0,2}$/ } as const;

export const LinkCryptoAddressSchema = z
  .object({
    message: z.string().min(1).max(4096).describe("The EIP-4361 message exactly as signed. A Sui account signs the same message with `Sui account:` in its first " +
        "line, its 0x + 64 hex address, and `Chain ID: sui:mainnet` (or `sui:testnet`, `sui:devnet`, `sui:localnet`) (CAIP-122)."),
    signature: z.union([
      z.string().regex(SIGNATURE_FORMS.ethereum).describe("Ethereum: 65-byte hex signature (EIP-191)"),
      z.string().regex(SIGNATURE_FORMS.sui).describe("Sui: the serialized personal-message signature, base64 (scheme flag, signature and public key, as wallets return it)"),
    ]).describe("The wallet's signature of `message`"),
    connector: z.string().min(1).max(64).openapi({ example: "metamask" }).describe("The wallet software that signed (free text, 1-64 characters), shown in the address list"),
  })
  .strict()
  .openapi("LinkCryptoAddressRequest");

/** A linked address to unlink, as the caller spells it (compared case-insensitively). */
export const LinkedAddress = z.string().min(3).max(128);
/** The chain of a linked address: a decimal EVM chain id or a CAIP-2 style name. */
export const LinkedChainId = z.string().regex(/^([0-9]{1,20}|[a-z0-9]{3,8}:[a-zA-Z0-9-]{1,32})$/).openapi({ example: "8453" })
  .describe("The chain of the linked address: a decimal EVM chain id, or a name such as `sui:mainnet`");
