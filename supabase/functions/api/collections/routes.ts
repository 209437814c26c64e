import { createRoute, z } from "@hono/zod-openapi";
import { isAddress } from "viem";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { ErrorBodySchema, errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent, ObjectId } from "../../_shared/http/openapi.ts";

/** An EVM address: all lower case, all upper case, or with a valid EIP-55 checksum (a mixed-case typo is refused). */
export const EvmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an EVM address: 0x and 40 hex digits")
  .refine((address) => isAddress(address), "the EIP-55 checksum of this mixed-case address is wrong")
  .openapi({ example: "0x5FbDB2315678afecb367f032d93F642f64180aa3" });

/** EVM chain ids as the database stores them: exact integers up to 2^53-1. */
export const ChainId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ example: 8453 });

/** An amount in a token's smallest unit (wei for the native currency): uint256 fits in 78 digits. */
export const TokenAmount = z.string().regex(/^(0|[1-9][0-9]{0,77})$/, "a decimal string of the amount in the token's smallest unit")
  .openapi({ example: "10000000000000000" });

// The supported collection interface, as supabase/functions/_shared/chain/collection.ts documents it.
const COLLECTION_INTERFACE = `
**Supported collection interface.** The checkout works with any ERC-721 contract that implements the following
(the mint function of the pricing strategy it is registered with). The reference implementation is
\`contracts/CheckoutCollection.sol\` (OpenZeppelin ERC-721 + Ownable + EIP-712).

- \`function owner() view returns (address)\`: at registration it must be one of the key owner's linked addresses
  on that chain (\`GET /api/v3/me/crypto-addresses\`).
- \`function mint(address to, bytes32 checkoutRef) payable\` (static pricing): mints one token to \`to\` at the
  registered price. Native currency: \`msg.value == price\`. ERC-20: \`msg.value == 0\` and the collection pulls the
  price with \`transferFrom(caller, payee, price)\`, so the payer approves the collection first.
- \`function mintWithVoucher(address to, bytes32 checkoutRef, uint256 price, uint256 deadline, bytes signature) payable\`
  (dynamic pricing): as \`mint\`, at \`price\`, only with the service's EIP-712 signature of
  \`MintVoucher(bytes32 checkoutRef,address to,uint256 price,uint256 deadline)\`, refused after \`deadline\` (unix
  seconds). The signing domain is what \`eip712Domain()\` (ERC-5267) reports.
- \`event CheckoutMinted(bytes32 indexed checkoutRef, address indexed to, uint256 indexed tokenId, address paymentToken, uint256 amount)\`
  for every checkout mint, beside the ERC-721 \`Transfer(address(0), to, tokenId)\`; \`paymentToken\` is
  \`address(0)\` for the native currency.
- A \`checkoutRef\` is accepted once: a second mint with the same reference reverts, which ties one transaction to
  exactly one checkout. The reference of a checkout is its 24-hex id, right-aligned in 32 bytes.
- An ERC-20 payment token must implement \`decimals()\`; its \`symbol()\` is read too, for display only (optional).`;

export const RegisterCollectionSchema = z
  .object({
    chainId: ChainId.openapi({ description: "A chain the service is configured for; another answers 400 `chain_not_supported`." }),
    address: EvmAddress.openapi({ description: "The deployed collection contract" }),
    pricing: z.enum(["static", "dynamic"])
      .openapi({ description: "static: every checkout pays `mintPrice`; dynamic: each checkout names its price (the service signs a voucher)" }),
    mintPrice: TokenAmount.optional()
      .openapi({ description: "Required for static pricing, refused for dynamic: the price in the payment token's smallest unit" }),
    paymentToken: EvmAddress.nullable().default(null)
      .openapi({ description: "null: the chain's native currency; else the ERC-20 contract (its decimals are read on-chain)" }),
    providerCardChainIds: z.array(ChainId).max(20).default([])
      .refine((ids) => new Set(ids).size === ids.length, "chain ids must not repeat")
      .openapi({ description: "Networks where the `provider_card` payment method may be offered for this collection" }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.pricing === "static") !== (body.mintPrice !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["mintPrice"], message: "send mintPrice for static pricing, and only then" });
    }
  })
  .openapi("RegisterCollection");

export const CollectionSchema = z
  .object({
    id: ObjectId,
    chainId: ChainId,
    address: z.string().openapi({ description: "EIP-55 checksummed" }),
    pricing: z.enum(["static", "dynamic"]),
    mintPrice: TokenAmount.nullable(),
    paymentToken: z.string().nullable(),
    tokenDecimals: z.number().int().openapi({ description: "18 for the native currency, else the ERC-20's decimals()" }),
    tokenSymbol: z.string().nullable().openapi({
      description: "The ERC-20's symbol() read at registration, for display (the hosted page shows the price with it); " +
        "null for the native currency, for a token without a readable string symbol(), and for collections registered before it was read",
      example: "USDC",
    }),
    providerCardChainIds: z.array(ChainId),
    ownerAddress: z.string().openapi({ description: "What owner() returned when ownership was verified" }),
    createdAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Collection");

/** The 502 of routes that read a chain: its RPC failed, not the request. */
export const chainUnavailableResponse = {
  502: {
    description: "The chain's RPC endpoint did not answer (code `chain_unavailable`); try again",
    content: { "application/json": { schema: ErrorBodySchema } },
  },
};

export const registerCollection = createRoute({
  method: "post",
  path: "/api/v3/nft-collection",
  tags: ["NFT collections"],
  summary: "Register a deployed EVM collection for checkout",
  description:
    "Ownership is verified on-chain: the contract's `owner()` must be one of your linked addresses on that chain " +
    "(403 `collection_not_owned` otherwise). 400 `not_a_collection` when the address has no contract or no `owner()`, " +
    "400 `invalid_payment_token` when the ERC-20 has no `decimals()`, 409 `collection_already_registered` when the " +
    "contract is registered already (by anyone).\n" + COLLECTION_INTERFACE,
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { body: { required: true, ...jsonContent(RegisterCollectionSchema) } },
  responses: {
    201: { description: "The registered collection", ...jsonContent(CollectionSchema) },
    ...errorResponses(400, 401, 403, 409, 413, 415),
    ...chainUnavailableResponse,
  },
});

export const listCollections = createRoute({
  method: "get",
  path: "/api/v3/nft-collection",
  tags: ["NFT collections"],
  summary: "List your registered collections",
  description: "All of them, newest first.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: {
    200: { description: "Your collections", ...jsonContent(z.object({ items: z.array(CollectionSchema) }).openapi("CollectionList")) },
    ...errorResponses(400, 401),
  },
});

export const getCollection = createRoute({
  method: "get",
  path: "/api/v3/nft-collection/{collectionId}",
  tags: ["NFT collections"],
  summary: "Read one of your collections",
  description: "Another owner's collection answers 404 like an unknown one.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: z.object({ collectionId: ObjectId }) },
  responses: { 200: { description: "The collection", ...jsonContent(CollectionSchema) }, ...errorResponses(400, 401, 404) },
});
