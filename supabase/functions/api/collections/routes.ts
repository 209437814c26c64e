import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { CollectionListSchema, CollectionSchema, RegisterCollectionSchema } from "../../_shared/collections/schemas.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent, pathIds } from "../../_shared/http/openapi.ts";
import { chainUnavailableResponse } from "../../_shared/chain/responses.ts";

// The supported collection interface, as supabase/functions/_shared/collections/contract.ts documents it.
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

export const registerCollection = createRoute({
  operationId: "registerCollection",
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
  operationId: "listCollections",
  method: "get",
  path: "/api/v3/nft-collection",
  tags: ["NFT collections"],
  summary: "List your registered collections",
  description: "All of them, newest first.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: {
    200: { description: "Your collections", ...jsonContent(CollectionListSchema) },
    ...errorResponses(400, 401),
  },
});

export const getCollection = createRoute({
  operationId: "getCollection",
  method: "get",
  path: "/api/v3/nft-collection/{collectionId}",
  tags: ["NFT collections"],
  summary: "Read one of your collections",
  description: "Another owner's collection answers 404 like an unknown one.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: pathIds("collectionId") },
  responses: { 200: { description: "The collection", ...jsonContent(CollectionSchema) }, ...errorResponses(400, 401, 404) },
});
