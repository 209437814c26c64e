// The rename-chat-for-event function's route: names a room from an event's title and context, and
// answers the room's id and its new name.
import { z } from "@hono/zod-openapi";
import { functionRoute } from "./routes.ts";
import { ClientId } from "../chat/schemas.ts";
import { ErrorBodySchema } from "../http/errors.ts";
import { jsonContent } from "../http/openapi.ts";

export const RenameRequestSchema = z.object({
  roomId: ClientId,
  eventTitle: z.string().trim().min(1).max(300).optional()
    .describe("The event's title, for a room tied to no event (a room's own event's title comes first)"),
  context: z.string().max(4000).optional().describe("What the event is about (default: the room's event's description)"),
}).strict().openapi("RenameChatRequest");

export const RenameAnswerSchema = z.object({
  success: z.literal(true).describe("Always true: the room was named"),
  roomId: z.string().describe("The room renamed (`roomId` of the request)"),
  name: z.string().describe("The room's new name as stored: at most 60 characters, plain text, no bidirectional controls"),
}).openapi("RenameChatResponse");

export const renameRoute = functionRoute({
  name: "rename-chat-for-event",
  operationId: "renameChatForEvent",
  summary: "Name a chat room after an event",
  description: "Names your room `roomId` from its event's title and description (or `eventTitle` and `context`) with one short " +
    "completion (RENAME_CHAT_FOR_EVENT_MODEL), cleaned of quotes and markdown and capped at 60 characters; when the provider " +
    "fails or proposes nothing, the room is named after the event's title. Room names never keep Unicode bidirectional " +
    "controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C). 404 `room_not_found` (no such room of yours), " +
    "`event_not_found` (its event is no longer visible to you); 400 `missing_event_title` (a room without event, no eventTitle). " +
    "Rate limited per person (RENAME_CHAT_FOR_EVENT_RATE_LIMIT_PER_MINUTE, 10 by default).",
  body: RenameRequestSchema,
  bodyRequired: true,
  response: { description: "The room and its new name", ...jsonContent(RenameAnswerSchema) },
  errors: {
    404: { description: "No such room of yours (`room_not_found`), or its event is no longer visible to you (`event_not_found`)", ...jsonContent(ErrorBodySchema) },
  },
});
