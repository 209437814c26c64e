// A collection's shapes: what a store sends to register its deployed EVM contract for checkout, and
// the registered collection every surface answers (amounts as decimal strings, addresses checksummed).
import { z } from "@hono/zod-openapi";
import { ChainId, EvmAddress, TokenAmount } from "../chain/schemas.ts";
import { ObjectId } from "../http/openapi.ts";

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

export const CollectionListSchema = z.object({ items: z.array(CollectionSchema) }).openapi("CollectionList");
