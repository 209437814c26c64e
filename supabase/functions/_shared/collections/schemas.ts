// A collection's shapes: what a store sends to register its deployed EVM contract for checkout, and
// the registered collection every surface answers (amounts as decimal strings, addresses checksummed).
import { z } from "@hono/zod-openapi";
import { ChainId, EvmAddress, TokenAmount } from "../chain/schemas.ts";
import { CreatedAt, ObjectId } from "../http/openapi.ts";

export const RegisterCollectionSchema = z
  .object({
    chainId: ChainId.describe("A chain the service is configured for; another answers 400 `chain_not_supported`."),
    address: EvmAddress.describe("The deployed collection contract"),
    pricing: z.enum(["static", "dynamic"])
      .describe("static: every checkout pays `mintPrice`; dynamic: each checkout names its price (the service signs a voucher)"),
    mintPrice: TokenAmount.optional()
      .describe("Required for static pricing, refused for dynamic: the price in the payment token's smallest unit"),
    paymentToken: EvmAddress.nullable().default(null)
      .describe("null: the chain's native currency; else the ERC-20 contract (its decimals are read on-chain)"),
    providerCardChainIds: z.array(ChainId).max(20).default([])
      .refine((ids) => new Set(ids).size === ids.length, "chain ids must not repeat")
      .describe("Networks where the `provider_card` payment method may be offered for this collection"),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.pricing === "static") !== (body.mintPrice !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["mintPrice"], message: "send mintPrice for static pricing, and only then" });
    }
  })
  .openapi("RegisterCollection")
  .describe("A deployed collection contract to register; you must be its on-chain owner()");

export const CollectionSchema = z
  .object({
    id: ObjectId.describe("The collection's id: the `collectionId` a checkout session names"),
    chainId: ChainId.describe("The chain the contract is deployed on"),
    address: z.string().describe("The collection contract, EIP-55 checksummed"),
    pricing: z.enum(["static", "dynamic"]).describe("static: every checkout pays `mintPrice`; dynamic: each checkout names its price"),
    mintPrice: TokenAmount.nullable().describe("The price per token in the payment token's smallest unit (decimal string); null for dynamic pricing"),
    paymentToken: z.string().nullable().describe("The ERC-20 contract paid with (checksummed); null: the chain's native currency"),
    tokenDecimals: z.number().int().describe("18 for the native currency, else the ERC-20's decimals()"),
    tokenSymbol: z.string().nullable().openapi({ example: "USDC" }).describe("The ERC-20's symbol() read at registration, for display (the hosted page shows the price with it); " +
        "null for the native currency, for a token without a readable string symbol(), and for collections registered before it was read"),
    providerCardChainIds: z.array(ChainId).describe("Networks where the `provider_card` payment method may be offered"),
    ownerAddress: z.string().describe("What owner() returned when ownership was verified"),
    createdAt: CreatedAt,
  })
  .openapi("Collection")
  .describe("An EVM collection contract registered for checkout");

export const CollectionListSchema = z.object({ items: z.array(CollectionSchema).describe("Your registered collections") }).openapi("CollectionList");
