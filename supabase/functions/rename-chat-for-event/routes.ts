// rename-chat-for-event (SPEC 4.8): names a room from an event's title and context. SPEC shows no
// response body; this one answers the room's id and its new name.
import { z } from "@hono/zod-openapi";
import { functionRoute } from "../_shared/app-functions/routes.ts";
import { ClientId } from "../_shared/chat/schemas.ts";
import { jsonContent } from "../_shared/http/openapi.ts";

export const RenameRequestSchema = z.object({
  roomId: ClientId,
  eventTitle: z.string().min(1).max(300).optional(),
  context: z.string().max(4000).optional(),
}).strict().openapi("RenameChatRequest");

export const RenameAnswerSchema = z.object({
  success: z.literal(true),
  roomId: z.string(),
  name: z.string(),
}).openapi("RenameChatResponse");

export const renameRoute = functionRoute({
  name: "rename-chat-for-event",
  summary: "Name a chat room after an event",
  description: "Names the room from the event's title and context.",
  body: RenameRequestSchema,
  bodyRequired: true,
  response: { description: "The room and its new name", ...jsonContent(RenameAnswerSchema) },
});
