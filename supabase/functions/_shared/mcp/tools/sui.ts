// MCP tools of the Sui collections domain (_shared/sui).
import { z } from "zod";
import { define } from "../tools.ts";
import { PublishSuiCollectionSchema, SuiCollectionListSchema, SuiCollectionSchema } from "../../sui/schemas.ts";
import { ObjectId } from "../../http/openapi.ts";
import { ADD, onChain, READ } from "./common.ts";
import * as sui from "../../sui/operations.ts";

/** The sui tools, by name. */
export const suiTools = {
  publish_sui_collection: define({
    name: "publish_sui_collection", toolset: "sui_collections", operation: sui.publishSuiCollection, title: "Publish a Sui event-pass collection",
    description: "Publishes a Sui collection of event passes, the service paying the gas; the organiser (one of your linked Sui " +
      "addresses) gets the capability to mint (POST /api/v3/crypto/sui/collection/publish, permission collections:publish). " +
      "Idempotent per clientReference. The arguments are the REST body.",
    input: PublishSuiCollectionSchema, output: SuiCollectionSchema, annotations: { ...onChain(ADD), idempotentHint: true },
  }),
  list_sui_collections: define({
    name: "list_sui_collections", toolset: "sui_collections", operation: sui.listSuiCollections, title: "List your Sui collections",
    description: "Your Sui collection publishes, newest first (GET /api/v3/crypto/sui/collection).",
    input: z.object({}).strict(), output: SuiCollectionListSchema, annotations: READ,
  }),
  get_sui_collection: define({
    name: "get_sui_collection", toolset: "sui_collections", operation: sui.getSuiCollection, title: "Read a Sui collection",
    description: "One of your Sui collection publishes by its record id (GET /api/v3/crypto/sui/collection/{collectionId}).",
    input: z.object({ collectionId: ObjectId }).strict(), output: SuiCollectionSchema, annotations: READ,
  }),
};
