// MCP tools of the events domain (_shared/events).
import { z } from "zod";
import { define } from "../tools.ts";
import { CreateEventSchema, EventListQuery, EventSchema, UpdateEventSchema } from "../../events/schemas.ts";
import { pageSchema } from "../../http/listing.ts";
import { ObjectId } from "../../http/openapi.ts";
import { ADD, DELETE, Deleted, READ, REPLACE } from "./common.ts";
import * as events from "../../events/operations.ts";

/** The events tools, by name. */
export const eventTools = {
  list_events: define({
    name: "list_events", toolset: "events", operation: events.listEvents, title: "List events",
    description: "Events visible to you, a page at a time (GET /api/v3/events). scope=mine: the events you own.",
    input: EventListQuery,
    output: pageSchema(EventSchema, "EventPage"), annotations: READ,
  }),
  get_event: define({
    name: "get_event", toolset: "events", operation: events.getEvent, title: "Read an event", description: "One event you may see (GET /api/v3/events/{eventId}).",
    input: z.object({ eventId: ObjectId }).strict(), output: EventSchema, annotations: READ,
  }),
  create_event: define({
    name: "create_event", toolset: "events", operation: events.createEvent, title: "Create an event",
    description: "Creates an event with venue, visibility and NFT access rules (POST /api/v3/events). The arguments are the REST body.",
    input: CreateEventSchema, output: EventSchema, annotations: ADD,
  }),
  update_event: define({
    name: "update_event", toolset: "events", operation: events.updateEvent, title: "Change an event",
    description: "Changes the fields given in `changes` of one of your events (PATCH /api/v3/events/{eventId}).",
    input: z.object({ eventId: ObjectId, changes: UpdateEventSchema }).strict(), output: EventSchema, annotations: REPLACE,
  }),
  delete_event: define({
    name: "delete_event", toolset: "events", operation: events.deleteEvent, title: "Delete an event", description: "Deletes one of your events (DELETE /api/v3/events/{eventId}).",
    input: z.object({ eventId: ObjectId }).strict(), output: Deleted, annotations: DELETE,
  }),
};
