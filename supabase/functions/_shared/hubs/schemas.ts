// The hub's shapes: what a caller sends (create, change, list) and what every surface answers. A hub
// is a group of people or an NFT collection that contains events; its owner is not one of its members.
import { z } from "@hono/zod-openapi";
import { Slug, Status } from "../events/schemas.ts";
import { listQuerySchema } from "../http/listing.ts";
import { CreatedAt, ObjectId, UpdatedAt } from "../http/openapi.ts";

export const HubType = z.enum(["group", "nftCollection"]);

/** Most events one PUT may name: connecting is additive, so big sets go in several requests. */
export const MAX_CONNECT_EVENT_IDS = 100;
/** A replacement names the whole set at once. */
export const MAX_CATEGORY_SUB_EVENT_IDS = 500;

const hubFields = {
  name: z.string().trim().min(1).max(200).describe("The hub's name, 1-200 characters (trimmed)"),
  slug: Slug.describe("Unique among your hubs. Omitted on create: derived from the name and made unique with a suffix (`berlin-djs-2`); a `slug` you send that another of your hubs has answers 409 `slug_taken`."),
  description: z.string().max(10_000).describe("What the hub is about, up to 10,000 characters (plain text)"),
  hubType: HubType.describe("group: a community of people; nftCollection: a hub around one NFT collection"),
  status: Status.describe("PUBLISHED hubs that are not private are visible to everyone; INCOMPLETE hubs only to their owner and members. " +
      "The owner may move between the two states in either direction."),
  isPrivate: z.boolean().describe("Private hubs are visible to their owner and members only, whatever their status. " +
      "(`private` is not a field name, and `listHubs` refuses it as a query parameter.)"),
};

export const CreateHubSchema = z
  .object({
    name: hubFields.name,
    slug: hubFields.slug.optional(),
    description: hubFields.description.default(""),
    hubType: hubFields.hubType,
    status: hubFields.status.default("INCOMPLETE"),
    isPrivate: hubFields.isPrivate.default(false),
  })
  .strict()
  .openapi("CreateHub")
  .describe("A new hub; you become its owner");

export const UpdateHubSchema = z
  .object({
    ...hubFields,
    connectEventIds: z.array(ObjectId).max(MAX_CONNECT_EVENT_IDS).describe(`Event ids to connect (additive, at most ${MAX_CONNECT_EVENT_IDS}): ids already connected and repeated ids are ` +
        "connected once; nothing is removed. The field to use for adding events."),
    categorySubEventIDs: z.array(ObjectId).max(MAX_CATEGORY_SUB_EVENT_IDS).describe(`The whole set of connected events (replacement, at most ${MAX_CATEGORY_SUB_EVENT_IDS}): visible events not named ` +
        "are disconnected. Connections to events you cannot see are kept. Prefer `connectEventIds` for adding."),
  })
  .partial()
  .strict()
  .superRefine((body, ctx) => {
    if (Object.keys(body).length === 0) ctx.addIssue({ code: "custom", message: "send at least one field to change" });
    if (body.connectEventIds !== undefined && body.categorySubEventIDs !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["categorySubEventIDs"],
        message: "send `connectEventIds` (additive) or `categorySubEventIDs` (replacement), not both",
        params: { code: "connect_and_replace" },
      });
    }
  })
  .openapi("UpdateHub")
  .describe("The fields to change; fields left out stay as they are");

export const HubSchema = z
  .object({
    id: ObjectId.describe("The hub's id"),
    ownerId: ObjectId.describe("The owning user's id (the `user.id` of GET /api/auth/get-session)"),
    membersIDs: z.array(ObjectId).describe("User ids of the members, in the order they joined. The owner is not a member and is not listed."),
    categorySubEventIDs: z.array(ObjectId).describe("Ids of the connected events you can see, in the order they were connected"),
    hubType: hubFields.hubType,
    status: hubFields.status,
    name: z.string().describe("The hub's name"),
    slug: z.string().describe("The hub's slug, unique among its owner's hubs"),
    description: z.string().describe("What the hub is about (plain text; may be empty)"),
    isPrivate: hubFields.isPrivate,
    createdAt: CreatedAt,
    updatedAt: UpdatedAt.describe("Changes on every successful PUT, including one that only connects events"),
  })
  .openapi("Hub")
  .describe("A group of people or an NFT collection's community, with its connected events");

export const HubListQuery = listQuerySchema({
  hubType: HubType.optional().describe("Only hubs of this type; omitted: both"),
  status: Status.optional().describe("Only hubs in this state; omitted: both (INCOMPLETE ones only when yours or joined)"),
  scope: z.enum(["all", "mine", "discover"]).default("all").describe("all: every hub visible to you; mine: hubs you own or are a member of (\"My hubs\"); " +
      "discover: PUBLISHED, non-private hubs you neither own nor joined (\"Discover\")"),
});
