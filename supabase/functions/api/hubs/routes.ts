import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { pageSchema } from "../../_shared/http/listing.ts";
import { apiKeySecurity, jsonContent, pathIds } from "../../_shared/http/openapi.ts";
import { CreateHubSchema, HubListQuery, HubSchema, UpdateHubSchema } from "../../_shared/hubs/schemas.ts";

const idParam = pathIds("hubId");

export const listHubs = createRoute({
  operationId: "listHubs",
  method: "get",
  path: "/api/v3/hubs",
  tags: ["Hubs"],
  summary: "List hubs visible to the key's owner",
  description:
    "Hubs you can see: PUBLISHED non-private hubs of everyone plus every hub you own or are a member of, newest first by default. " +
    "Paging: `take` with `page` (offset) or `cursor` (keyset); the envelope is `{ items, take, page, nextCursor, hasMore }`. " +
    "`limit` and `private` are refused with 400 (`limit_not_supported`, `private_not_supported`): access rules apply by themselves. " +
    "\"My hubs\": `scope=mine` (the same set as filtering by `ownerId` equal to your id or `membersIDs` containing it). " +
    "\"Discover\": `scope=discover` (the same set as removing your own and joined hubs from everything visible), so " +
    "no client has to fetch a large batch and filter it; `hubType`, `status`, `search` and paging combine with every scope.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { query: HubListQuery },
  responses: { 200: { description: "A page of hubs", ...jsonContent(pageSchema(HubSchema, "HubPage")) }, ...errorResponses(400, 401) },
});

export const createHub = createRoute({
  operationId: "createHub",
  method: "post",
  path: "/api/v3/hubs",
  tags: ["Hubs"],
  summary: "Create a hub (a group or an NFT collection that contains events)",
  description:
    "You become its owner (`ownerId`); a new hub has no members and no events. `status` defaults to INCOMPLETE and " +
    "`isPrivate` to false. A slug already used by another of your hubs is refused with 409 `slug_taken`.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { body: { required: true, ...jsonContent(CreateHubSchema) } },
  responses: { 201: { description: "The hub", ...jsonContent(HubSchema) }, ...errorResponses(400, 401, 409, 413, 415) },
});

export const getHub = createRoute({
  operationId: "getHub",
  method: "get",
  path: "/api/v3/hubs/{hubId}",
  tags: ["Hubs"],
  summary: "Read one hub",
  description: "PUBLISHED non-private hubs are readable by everyone; private and INCOMPLETE hubs only by their owner and members (404 for others).",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: idParam },
  responses: { 200: { description: "The hub", ...jsonContent(HubSchema) }, ...errorResponses(400, 401, 404) },
});

export const updateHub = createRoute({
  operationId: "updateHub",
  method: "put",
  path: "/api/v3/hubs/{hubId}",
  tags: ["Hubs"],
  summary: "Change a hub and connect events (owner only)",
  description:
    "Any of `name`, `slug`, `description`, `status`, `hubType`, `isPrivate`, plus either `connectEventIds` (additive and " +
    "de-duplicated: the one to use) or `categorySubEventIDs` (replaces the whole set); sending both is 400 " +
    "`connect_and_replace`. Fields not sent keep their value. Everything is applied in one transaction: on any error nothing " +
    "changes. Every event id must name an event you can see (published public or unlisted events of anyone, or your own); " +
    "otherwise 400 `unknown_event_ids` with the offending ids in `details.eventIds`, and none of the ids is connected. " +
    "Concurrent PUTs on one hub apply one after the other, so concurrent `connectEventIds` never lose an id. " +
    "403 `not_hub_owner` for a hub you can see but do not own (members cannot change it); 404 for a hub you cannot see; " +
    "409 `slug_taken`.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: idParam, body: { required: true, ...jsonContent(UpdateHubSchema) } },
  responses: { 200: { description: "The changed hub", ...jsonContent(HubSchema) }, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
});

export const deleteHub = createRoute({
  operationId: "deleteHub",
  method: "delete",
  path: "/api/v3/hubs/{hubId}",
  tags: ["Hubs"],
  summary: "Delete a hub (owner only)",
  description:
    "Removes the hub, its memberships and its event connections (the events themselves stay). " +
    "403 `not_hub_owner` for a hub you can see but do not own; 404 for a hub you cannot see.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: idParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 403, 404) },
});

export const joinHub = createRoute({
  operationId: "joinHub",
  method: "post",
  path: "/api/v3/hubs/{hubId}/members",
  tags: ["Hubs"],
  summary: "Join a hub as the key's owner",
  description:
    "Adds you to `membersIDs`; no body. Anyone may join a PUBLISHED non-private hub: 201 when you joined now, 200 when you " +
    "already were a member (idempotent; also for members of a private or INCOMPLETE hub, who can see it). A hub you cannot " +
    "see (private or INCOMPLETE and you are not a member) is 404, as if it did not exist: private hubs get members from their " +
    "owner, not by joining. The owner is not a member of their own hub: 409 `owner_cannot_join`.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: idParam },
  responses: {
    201: { description: "Joined; the hub with you in `membersIDs`", ...jsonContent(HubSchema) },
    200: { description: "Already a member; the hub unchanged", ...jsonContent(HubSchema) },
    ...errorResponses(400, 401, 404, 409),
  },
});

export const leaveHub = createRoute({
  operationId: "leaveHub",
  method: "delete",
  path: "/api/v3/hubs/{hubId}/members/me",
  tags: ["Hubs"],
  summary: "Leave a hub",
  description:
    "Removes you from `membersIDs`. After leaving a private or INCOMPLETE hub you can no longer see it. 404 `not_a_member` " +
    "when you are not a member of a hub you can see, 404 `not_found` for a hub you cannot see; the owner cannot leave " +
    "their own hub (409 `owner_cannot_leave`; delete it instead).",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: idParam },
  responses: { 204: { description: "Left" }, ...errorResponses(400, 401, 404, 409) },
});
