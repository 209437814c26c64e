// The transcribe-audio function's route (voice mode): base64 audio of up to 25 MB for a message of a room.
// The route describes the JSON body; the function reads it as it arrives (audio.ts) and checks it
// with this schema.
import { z } from "@hono/zod-openapi";
import { functionRoute } from "./routes.ts";
import { ClientId } from "../chat/schemas.ts";
import { jsonContent } from "../http/openapi.ts";

export const TranscribeRequestSchema = z.object({
  messageId: ClientId.describe("The message the audio is: its transcription is stored on it (recorded first, without text, when the room " +
    "does not hold it yet; chat-with-assistant with the same roomId and messageId then gives it its text)"),
  // Its length is judged by the function (413 audio_too_large), not here (400).
  audioData: z.string().min(1).describe("The audio, base64 (mp3, wav, ogg, webm, mp4/m4a or flac; up to 25 MB decoded)"),
  roomId: ClientId,
}).strict().openapi("TranscribeRequest");

export const TranscribeAnswerSchema = z.object({
  success: z.literal(true).describe("Always true: the audio was transcribed"),
  transcription: z.string().describe("The text of the audio"),
  message_id: z.string().describe("The message the transcription belongs to (`messageId` of the request)"),
  stored: z.boolean().describe("Whether the transcription was stored on your message `message_id` (false: that id is the assistant's answer, not your message)"),
}).openapi("TranscribeResponse");

export const transcribeRoute = functionRoute({
  name: "transcribe-audio",
  operationId: "transcribeAudio",
  summary: "Transcribe a voice message",
  description: "Transcribes the audio with the configured provider (TRANSCRIBE_AUDIO_MODEL) and stores the transcription on your " +
    "message `messageId` in room `roomId`. The audio's format is recognised from its bytes. 413 `audio_too_large` past 25 MB, " +
    "400 `invalid_base64` or `not_audio`; the provider's failure after three tries: 503 `provider_unavailable` or 502 `provider_error`. " +
    "The body (at most the base64 of 25 MB and 65 KiB besides) is read as it arrives: the audio is never held as text. " +
    "Rate limited per person (TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE, 10 by default).",
  body: TranscribeRequestSchema,
  bodyRequired: true,
  response: { description: "The transcription", ...jsonContent(TranscribeAnswerSchema) },
});
