import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity } from "../../_shared/http/openapi.ts";
import {
  CryptoAddressListSchema, CryptoAddressSchema, LinkCryptoAddressSchema, LinkedAddress, LinkedChainId, ProfileSchema, SessionSchema,
  SiweNonceSchema,
} from "../../_shared/identity/schemas.ts";
import { SIWE_CLOCK_SKEW_SECONDS, SIWE_MAX_CHAIN_ID } from "../../_shared/identity/siwe.ts";

export const getSession = createRoute({
  operationId: "getAuthSession",
  method: "get",
  path: "/api/auth/get-session",
  tags: ["Identity"],
  summary: "The user who owns the API key",
  description: "The user and API key behind the `x-api-key` header: what a client reads to learn whom it acts as",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: {
    200: { description: "The key owner's session", content: { "application/json": { schema: SessionSchema } } },
    ...errorResponses(401),
  },
});

export const getMe = createRoute({
  operationId: "getMe",
  method: "get",
  path: "/api/v3/me",
  tags: ["Identity"],
  summary: "The authenticated user's profile",
  description: "The profile of the user who owns the API key",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: {
    200: { description: "Profile", content: { "application/json": { schema: ProfileSchema } } },
    ...errorResponses(401),
  },
});

export const listCryptoAddresses = createRoute({
  operationId: "listCryptoAddresses",
  method: "get",
  path: "/api/v3/me/crypto-addresses",
  tags: ["Identity"],
  summary: "Crypto addresses linked to the authenticated user",
  description: "Every linked address, oldest first, as `{ items: [...] }`.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: {
    200: { description: "Linked addresses", content: { "application/json": { schema: CryptoAddressListSchema } } },
    ...errorResponses(401),
  },
});

export const createSiweNonce = createRoute({
  operationId: "createSiweNonce",
  method: "post",
  path: "/api/v3/me/crypto-addresses/nonce",
  tags: ["Identity"],
  summary: "Start linking a wallet: a single-use SIWE nonce",
  description:
    "Returns a nonce for an EIP-4361 (Sign-In with Ethereum) message. The nonce belongs to the key's owner, " +
    "can be spent once and expires after 10 minutes. `domains` lists the message domains the service accepts.\n\n" +
    "A user holds at most 10 live (unspent, unexpired) nonces. One more answers 429 `rate_limited` with " +
    "`Retry-After` (also in `details.retryAfterSeconds`, beside `details.limit`): the seconds until the oldest live " +
    "nonce expires. Spending a nonce frees its place at once; expired nonces are deleted by a background job.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: {
    201: {
      description: "A fresh nonce",
      content: { "application/json": { schema: SiweNonceSchema } },
    },
    ...errorResponses(401, 429),
  },
});

export const linkCryptoAddress = createRoute({
  operationId: "linkCryptoAddress",
  method: "post",
  path: "/api/v3/me/crypto-addresses",
  tags: ["Identity"],
  summary: "Link a wallet with a signed SIWE message",
  description:
    "Verifies an EIP-4361 message signed by the wallet (EIP-191) and links its address on its chain. A wallet can be " +
    "linked to one user per chain (409 `address_already_linked`). The nonce is spent only by a successful link. The " +
    "checks run in this order, each answering 400 with its own code:\n\n" +
    "- `siwe_message_invalid`: the text does not follow the EIP-4361 ABNF line by line (as viem's `createSiweMessage` " +
    "and the `siwe` library write it: LF line ends, fields in order, nothing after the last field), or its domain is not one of " +
    "the service's (`domains` of the nonce route), or its version is not `1`, or its nonce is not 8+ letters and digits.\n" +
    `- \`siwe_chain_id_invalid\`: \`Chain ID\` is not a decimal integer from 1 to ${SIWE_MAX_CHAIN_ID} (2^53-1, so it ` +
    "stays exact as the JSON number it is answered as) without leading zeros.\n" +
    "- `siwe_uri_invalid`: `URI` is not an absolute RFC 3986 `http` or `https` URI whose authority is the message's " +
    "domain (and whose scheme is the message's scheme, when the first line names one); or a `Resources` entry is " +
    "not an absolute URI.\n" +
    "- `siwe_time_invalid`: `Issued At` is missing, or a present `Issued At`, `Expiration Time` or `Not Before` is not " +
    "an RFC 3339 date-time with a time zone (such as `2026-01-31T12:00:00Z` or `2026-01-31T13:00:00.5+01:00`) naming " +
    "a real time; leap seconds are not accepted. `details.field` names the field.\n" +
    `- \`siwe_issued_in_future\`: \`Issued At\` is more than ${SIWE_CLOCK_SKEW_SECONDS} seconds ahead of the service's clock.\n` +
    "- `siwe_expired`: `Expiration Time` is now or past.\n" +
    "- `siwe_not_yet_valid`: `Not Before` is still in the future.\n" +
    "- `siwe_signature_invalid`: the signature was not made by the message's address over this exact text.\n" +
    "- `siwe_nonce_invalid`: the nonce was not issued to this user, is spent or has expired.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: LinkCryptoAddressSchema } },
    },
  },
  responses: {
    201: { description: "The linked address", content: { "application/json": { schema: CryptoAddressSchema } } },
    ...errorResponses(400, 401, 409, 413, 415),
  },
});

export const unlinkCryptoAddress = createRoute({
  operationId: "unlinkCryptoAddress",
  method: "delete",
  path: "/api/v3/me/crypto-addresses/{address}",
  tags: ["Identity"],
  summary: "Unlink a wallet",
  description: "Removes one of your linked wallet addresses on `chainId`. An address you have not linked answers 404",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: {
    params: z.object({ address: LinkedAddress.openapi({ description: "The linked wallet address, as `listCryptoAddresses` gives it." }) }),
    query: z.object({ chainId: LinkedChainId }),
  },
  responses: {
    204: { description: "Unlinked" },
    ...errorResponses(400, 401, 404),
  },
});
