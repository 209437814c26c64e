// The shapes of Sui event-pass collections: what a publish asks for and what the service records.
import { z } from "@hono/zod-openapi";
import { CreatedAt, ObjectId, UpdatedAt } from "../http/openapi.ts";
import { SUI_NETWORKS } from "./network.ts";

export const SuiNetwork = z.enum(SUI_NETWORKS).openapi({ example: "sui:testnet" }).describe("The Sui network, CAIP-2 style");

/** A Sui address or object id: 0x and 64 hex digits (as the chain writes it, lower case). */
export const SuiAddress = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits")
  .transform((address) => address.toLowerCase())
  .openapi({ example: "0x5c3a1b9e0f2d4c6a8b7e9f1d3c5a7b9e0f2d4c6a8b7e9f1d3c5a7b9e0f2d4c6a" })
  .describe("A Sui address: 0x and 64 hex digits");

const HttpsUrl = z.string().max(2048).url().refine((url) => url.startsWith("https://"), "an https URL");

export const PublishSuiCollectionSchema = z
  .object({
    network: SuiNetwork,
    clientReference: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/).openapi({ example: "summit-2027-passes" }).describe("Your reference for this publish (1-128 letters, digits, `.`, `_`, `:`, `-`), unique among your " +
        "publishes: the same reference with the same body is a retry and answers the same record without publishing " +
        "again; with another body it answers 409 `client_reference_reused`."),
    name: z.string().trim().min(1).max(128).describe("The collection's name, 1-128 characters (trimmed), shown by wallets"),
    description: z.string().max(2000).default("").describe("The collection's description, up to 2,000 characters"),
    imageUrl: HttpsUrl.describe("The passes' image (https)"),
    projectUrl: HttpsUrl.describe("The event's or project's page (https)"),
    maxSupply: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().default(null)
      .describe("Passes that can ever be minted; null: no limit"),
    transferable: z.boolean().default(false).describe("false (the default): soulbound passes that stay with whom they were minted to"),
    organiserAddress: SuiAddress.describe("Receives the collection's capability (who may mint). Must be one of your linked Sui addresses on " +
        "`network` (`POST /api/v3/me/crypto-addresses` with a `Sui account:` message); 403 `sui_address_not_linked` otherwise."),
  })
  .strict()
  .openapi("PublishSuiCollectionRequest")
  .describe("A Sui collection of event passes to publish");

export const SuiCollectionSchema = z
  .object({
    id: ObjectId.describe("The publish record's id (collectionId)"),
    clientReference: z.string().describe("Your reference for this publish"),
    network: SuiNetwork,
    packageId: z.string().describe("The event_pass Move package the collection was created with"),
    organiserAddress: z.string().describe("The Sui address that receives the capability to mint"),
    name: z.string().describe("The collection's name"),
    description: z.string().describe("The collection's description (may be empty)"),
    imageUrl: z.string().describe("The passes' image (https)"),
    projectUrl: z.string().describe("The event's or project's page (https)"),
    maxSupply: z.number().int().nullable().describe("Passes that can ever be minted; null: no limit"),
    transferable: z.boolean().describe("Whether passes can be transferred (false: soulbound)"),
    status: z.enum(["pending", "published", "failed"]).describe("pending: not executed yet, or its outcome unknown (retry with the same request); published; failed: the chain refused it (`failure`)"),
    digest: z.string().nullable().describe("The transaction's digest, once signed (unique)"),
    collectionObjectId: z.string().nullable().describe("The shared Collection object, once published"),
    capObjectId: z.string().nullable().describe("The CollectionCap object the organiser owns, once published"),
    passType: z.string().nullable().describe("The Move type of the passes (`<package>::collection::EventPass`), once published"),
    failure: z.object({
      code: z.string().describe("A stable code for why the chain refused the publish"),
      reason: z.string().describe("The chain's own words"),
    }).nullable().describe("Why the publish failed (status failed); null otherwise"),
    createdAt: CreatedAt,
    updatedAt: UpdatedAt,
  })
  .openapi("SuiCollection")
  .describe("A Sui collection publish and its outcome");

export const SuiCollectionListSchema = z.object({ items: z.array(SuiCollectionSchema).describe("Your publishes, newest first") })
  .openapi("SuiCollectionList");
