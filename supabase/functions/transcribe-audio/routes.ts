// transcribe-audio (SPEC 4.8, Voice Mode): base64 audio of up to 25 MB (SPEC 8) for a message of a room.
import { z } from "@hono/zod-openapi";
import { functionRoute } from "../_shared/app-functions/routes.ts";
import { ClientId } from "../_shared/chat/schemas.ts";
import { jsonContent } from "../_shared/http/openapi.ts";

const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

export const TranscribeRequestSchema = z.object({
  messageId: ClientId,
  audioData: z.string().min(1).max(Math.ceil(MAX_AUDIO_BYTES / 3) * 4).describe("The audio, base64"),
  roomId: ClientId,
}).strict().openapi("TranscribeRequest");

export const TranscribeAnswerSchema = z.object({
  success: z.boolean(),
  transcription: z.string().optional(),
  message_id: z.string(),
  error: z.string().optional(),
}).openapi("TranscribeResponse");

export const transcribeRoute = functionRoute({
  name: "transcribe-audio",
  summary: "Transcribe a voice message",
  description: "Transcribes the audio and stores the transcription on the message.",
  body: TranscribeRequestSchema,
  bodyRequired: true,
  response: { description: "The transcription", ...jsonContent(TranscribeAnswerSchema) },
});
