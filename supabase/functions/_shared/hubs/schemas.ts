// The hub's shapes: what a caller sends (create, change, list) and what every surface answers. A hub
// is a group of people or an NFT collection that contains events; its owner is not one of its members.
import { z } from "@hono/zod-openapi";
import { Slug, Status } from "../events/schemas.ts";
import { listQuerySchema } from "../http/listing.ts";
import { ObjectId } from "../http/openapi.ts";

export const HubType = z.enum(["group", "nftCollection"]);
const timestamp = z.string().openapi({ format: "date-time" });

/** Most events one PUT may name: connecting is additive, so big sets go in several requests. */
export const MAX_CONNECT_EVENT_IDS = 100;
/** A replacement names the whole set at once. */
export const MAX_CATEGORY_SUB_EVENT_IDS = 500;

const hubFields = {
  name: z.string().trim().min(1).max(200),
  slug: Slug.openapi({ description: "Unique among your hubs. Omitted on create: derived from the name and made unique with a suffix (`berlin-djs-2`); a `slug` you send that another of your hubs has answers 409 `slug_taken`." }),
  description: z.string().max(10_000),
  hubType: HubType.openapi({ description: "group: a community of people; nftCollection: a hub around one NFT collection" }),
  status: Status.openapi({
    description: "PUBLISHED hubs that are not private are visible to everyone; INCOMPLETE hubs only to their owner and members. " +
      "The owner may move between the two states in either direction.",
  }),
  isPrivate: z.boolean().openapi({
    description: "Private hubs are visible to their owner and members only, whatever their status. " +
      "(`private` is not a field name, and `listHubs` refuses it as a query parameter.)",
  }),
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
  .openapi("CreateHub");

export const UpdateHubSchema = z
  .object({
    ...hubFields,
    connectEventIds: z.array(ObjectId).max(MAX_CONNECT_EVENT_IDS).openapi({
      description: `Event ids to connect (additive, at most ${MAX_CONNECT_EVENT_IDS}): ids already connected and repeated ids are ` +
        "connected once; nothing is removed. The field to use for adding events.",
    }),
    categorySubEventIDs: z.array(ObjectId).max(MAX_CATEGORY_SUB_EVENT_IDS).openapi({
      description: `The whole set of connected events (replacement, at most ${MAX_CATEGORY_SUB_EVENT_IDS}): visible events not named ` +
        "are disconnected. Connections to events you cannot see are kept. Prefer `connectEventIds` for adding.",
    }),
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
  .openapi("UpdateHub");

export const HubSchema = z
  .object({
    id: ObjectId,
    ownerId: ObjectId.openapi({ description: "The owning user's id (the `user.id` of GET /api/auth/get-session)" }),
    membersIDs: z.array(ObjectId).openapi({
      description: "User ids of the members, in the order they joined. The owner is not a member and is not listed.",
    }),
    categorySubEventIDs: z.array(ObjectId).openapi({
      description: "Ids of the connected events you can see, in the order they were connected",
    }),
    hubType: HubType,
    status: Status,
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    isPrivate: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp.openapi({ description: "Changes on every successful PUT, including one that only connects events" }),
  })
  .openapi("Hub");

export const HubListQuery = listQuerySchema({
  hubType: HubType.optional(),
  status: Status.optional(),
  scope: z.enum(["all", "mine", "discover"]).default("all").openapi({
    description: "all: every hub visible to you; mine: hubs you own or are a member of (\"My hubs\"); " +
      "discover: PUBLISHED, non-private hubs you neither own nor joined (\"Discover\")",
  }),
});
