// chat-with-assistant (SPEC 4.8): the request as SPEC names its fields; the answer streams as
// Server-Sent Events (SPEC 6.3).
import { z } from "@hono/zod-openapi";
import { functionRoute } from "../_shared/app-functions/routes.ts";
import { ClientId } from "../_shared/chat/schemas.ts";

export const ChatRequestSchema = z.object({
  roomId: ClientId,
  message: z.string().min(1).max(8000),
  messageId: ClientId,
  model: z.string().min(1).max(100).optional(),
  useMCP: z.boolean().optional(),
  aiProvider: z.string().min(1).max(50).optional(),
  audioData: z.boolean().optional(),
  imageData: z.boolean().optional(),
  textContent: z.string().max(100_000).optional(),
  originalType: z.enum(["text", "audio", "image"]).optional(),
}).strict().openapi("ChatRequest");

export const chatRoute = functionRoute({
  name: "chat-with-assistant",
  summary: "Chat with the assistant",
  description: "Stores the message in the room and streams the assistant's answer as Server-Sent Events.",
  body: ChatRequestSchema,
  bodyRequired: true,
  response: { description: "The answer, as Server-Sent Events", content: { "text/event-stream": { schema: z.string() } } },
});
