// MCP tools of the NFT collections domain (_shared/collections).
import { z } from "zod";
import { define } from "../tools.ts";
import { ObjectId } from "../../http/openapi.ts";
import { CollectionListSchema, CollectionSchema, RegisterCollectionSchema } from "../../collections/schemas.ts";
import { ADD, onChain, READ } from "./common.ts";
import * as collections from "../../collections/operations.ts";

/** The collections tools, by name. */
export const collectionTools = {
  register_nft_collection: define({
    name: "register_nft_collection", toolset: "nft_collections", operation: collections.registerCollection, title: "Register an NFT collection",
    description: "Registers a deployed EVM collection you own on-chain for checkout (POST /api/v3/nft-collection). The arguments are the REST body.",
    input: RegisterCollectionSchema, output: CollectionSchema, annotations: onChain(ADD),
  }),
  list_nft_collections: define({
    name: "list_nft_collections", toolset: "nft_collections", operation: collections.listCollections, title: "List your NFT collections", description: "Your registered collections (GET /api/v3/nft-collection).",
    input: z.object({}).strict(), output: CollectionListSchema, annotations: READ,
  }),
  get_nft_collection: define({
    name: "get_nft_collection", toolset: "nft_collections", operation: collections.getCollection, title: "Read an NFT collection", description: "One of your collections (GET /api/v3/nft-collection/{collectionId}).",
    input: z.object({ collectionId: ObjectId }).strict(), output: CollectionSchema, annotations: READ,
  }),
};
