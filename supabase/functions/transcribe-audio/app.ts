// The transcribe-audio function: the common rules (app-functions/app.ts), its body read as it arrives
// and the audio decoded and checked (audio.ts), sent to the provider's transcription API, and the
// transcription stored on the person's message of that id in that room, recorded first when the app
// transcribes before it sends (chat.record_transcription; RLS: only their own). The upload streams from the decoded bytes (`openai`'s toStreamingFile): toFile would
// copy them into a File, a second 25 MB.
import { toStreamingFile } from "openai";
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import { callProvider, missingProvider, providerClient, providerFailure } from "../_shared/ai/provider.ts";
import { OTHER_MEMBERS_MAX_BYTES } from "../_shared/http/base64-field-body.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { ok } from "../_shared/operations/operation.ts";
import { AUDIO_TYPES, MAX_AUDIO_BASE64_CHARS, readTranscribeRequest } from "./audio.ts";
import { transcribeRoute } from "../_shared/app-functions/transcribe-audio.ts";

/** The column's own cap (chat.messages.transcription). */
const MAX_TRANSCRIPTION_CHARS = 200_000;
/** The other members' cap, and room for the JSON around them. */
const BODY_BESIDES_AUDIO_BYTES = OTHER_MEMBERS_MAX_BYTES + 1024;
/** The upload's pieces: views of the audio, never copies. */
const UPLOAD_PIECE_BYTES = 1024 * 1024;

async function* piecesOf(bytes: Uint8Array) {
  for (let start = 0; start < bytes.length; start += UPLOAD_PIECE_BYTES) yield bytes.subarray(start, start + UPLOAD_PIECE_BYTES);
}

export function createTranscribeAudioApp(services: AppServices) {
  const client = providerClient(services.config);
  return createFunctionApp(services, {
    route: transcribeRoute,
    ratePerMinute: (config) => config.TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE,
    maxBodyBytes: MAX_AUDIO_BASE64_CHARS + BODY_BESIDES_AUDIO_BYTES,
    readBody: readTranscribeRequest,
    missingProvider: missingProvider("transcribe-audio"),
    async handle({ body, context, signal }) {
      const transcribed = await callProvider(
        // A streamed file is read once: each try gets its own, over the same bytes.
        () => client!.audio.transcriptions.create({
          file: toStreamingFile(piecesOf(body.audio), `audio.${body.format}`, { type: AUDIO_TYPES[body.format] }),
          model: context.config.TRANSCRIBE_AUDIO_MODEL,
        }, { signal }),
        signal,
      ).catch((error) => {
        throw providerFailure(error);
      });
      const transcription = transcribed.text.slice(0, MAX_TRANSCRIPTION_CHARS);
      const [row] = await context.db.statement((tx) =>
        tx<{ message: unknown }[]>`select chat.record_transcription(${body.roomId}, ${body.messageId}, ${transcription}) as message`
      );
      return ok({ success: true, transcription, message_id: body.messageId, stored: row!.message !== null });
    },
  });
}
