// MCP tools of the hubs domain (_shared/hubs); joining and leaving are for a person's assistant.
import { z } from "zod";
import { define } from "../tools.ts";
import { pageSchema } from "../../http/listing.ts";
import { ObjectId } from "../../http/openapi.ts";
import { CreateHubSchema, HubListQuery, HubSchema, UpdateHubSchema } from "../../hubs/schemas.ts";
import { ADD, ASKS, DELETE, Deleted, READ, REPLACE } from "./common.ts";
import * as hubs from "../../hubs/operations.ts";

/** The hubs tools, by name. */
export const hubTools = {
  list_hubs: define({
    name: "list_hubs", toolset: "hubs", operation: hubs.listHubs, title: "List hubs",
    description: "Hubs visible to you (GET /api/v3/hubs): scope=mine (owned or joined) or discover (public hubs you have not joined).",
    input: HubListQuery,
    output: pageSchema(HubSchema, "HubPage"), annotations: READ,
  }),
  get_hub: define({
    name: "get_hub", toolset: "hubs", operation: hubs.getHub, title: "Read a hub", description: "One hub you may see (GET /api/v3/hubs/{hubId}).",
    input: z.object({ hubId: ObjectId }).strict(), output: HubSchema, annotations: READ,
  }),
  create_hub: define({
    name: "create_hub", toolset: "hubs", operation: hubs.createHub, title: "Create a hub", description: "Creates a group or NFT-collection hub (POST /api/v3/hubs). The arguments are the REST body.",
    input: CreateHubSchema, output: HubSchema, annotations: ADD,
  }),
  update_hub: define({
    name: "update_hub", toolset: "hubs", operation: hubs.updateHub, title: "Change a hub",
    description: "Changes one of your hubs (PUT /api/v3/hubs/{hubId}); `changes.connectEventIds` connects events (additive).",
    input: z.object({ hubId: ObjectId, changes: UpdateHubSchema }).strict(), output: HubSchema, annotations: REPLACE,
  }),
  delete_hub: define({
    name: "delete_hub", toolset: "hubs", operation: hubs.deleteHub, title: "Delete a hub", description: "Deletes one of your hubs (DELETE /api/v3/hubs/{hubId}).",
    input: z.object({ hubId: ObjectId }).strict(), output: Deleted, annotations: DELETE,
  }),
  join_hub: define({
    name: "join_hub", toolset: "hubs", operation: hubs.joinHub, title: "Join a hub",
    description: "Joins a published public hub (POST /api/v3/hubs/{hubId}/members); joining again changes nothing.",
    input: z.object({ hubId: ObjectId }).strict(), output: HubSchema, annotations: { ...ASKS, idempotentHint: true },
  }),
  leave_hub: define({
    name: "leave_hub", toolset: "hubs", operation: hubs.leaveHub, title: "Leave a hub", description: "Leaves a hub you joined (DELETE /api/v3/hubs/{hubId}/members/me).",
    input: z.object({ hubId: ObjectId }).strict(), output: Deleted, annotations: { ...READ, readOnlyHint: false, destructiveHint: true },
  }),
};
