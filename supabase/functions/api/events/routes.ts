import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { CreateEventSchema, EventListQuery, EventSchema, UpdateEventSchema } from "../../_shared/events/schemas.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { pageSchema } from "../../_shared/http/listing.ts";
import { apiKeySecurity, jsonContent, pathIds } from "../../_shared/http/openapi.ts";

const idParam = pathIds("eventId");

export const listEvents = createRoute({
  operationId: "listEvents",
  method: "get",
  path: "/api/v3/events",
  tags: ["Events"],
  summary: "List events visible to the key's owner",
  description:
    "Published public events of everyone plus all of your own, newest first by default. Paging: `take` with `page` " +
    "(offset) or `cursor` (keyset: deep pages cost what the first does). `limit` and `private` are refused with 400. " +
    "An event with NFT access rules that grant `view` is listed only for its owner and staff and for people whose linked " +
    "wallets satisfied such a rule in a read of the last 24 hours (GET /api/v3/events/{eventId}/access reads them); " +
    "reading it by id is not restricted.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { query: EventListQuery },
  responses: { 200: { description: "A page of events", ...jsonContent(pageSchema(EventSchema, "EventPage")) }, ...errorResponses(400, 401) },
});

export const createEvent = createRoute({
  operationId: "createEvent",
  method: "post",
  path: "/api/v3/events",
  tags: ["Events"],
  summary: "Create an event with NFT access and visibility rules",
  description: "Creates an event owned by the key's owner, with its visibility and NFT access rules; answers the event as GET /api/v3/events/{eventId} reads it",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { body: { required: true, ...jsonContent(CreateEventSchema) } },
  responses: {
    201: { description: "The event", ...jsonContent(EventSchema) },
    ...errorResponses(400, 401, 409, 413, 415),
  },
});

export const getEvent = createRoute({
  operationId: "getEvent",
  method: "get",
  path: "/api/v3/events/{eventId}",
  tags: ["Events"],
  summary: "Read one event",
  description: "Public and unlisted published events are readable by anyone with the id; private and draft events only by their owner.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: idParam },
  responses: { 200: { description: "The event", ...jsonContent(EventSchema) }, ...errorResponses(400, 401, 404) },
});

export const updateEvent = createRoute({
  operationId: "updateEvent",
  method: "patch",
  path: "/api/v3/events/{eventId}",
  tags: ["Events"],
  summary: "Change an event (owner only)",
  description: "Changes the fields sent and leaves the others as they are; only the event's owner may (403 `not_event_owner`, 404 when the event is not visible to you)",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: idParam, body: { required: true, ...jsonContent(UpdateEventSchema) } },
  responses: { 200: { description: "The changed event", ...jsonContent(EventSchema) }, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
});

export const deleteEvent = createRoute({
  operationId: "deleteEvent",
  method: "delete",
  path: "/api/v3/events/{eventId}",
  tags: ["Events"],
  summary: "Delete an event (owner only)",
  description: "Deletes the event; only the event's owner may (403 `not_event_owner`, 404 when the event is not visible to you)",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: idParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 403, 404) },
});
