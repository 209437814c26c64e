// The transcribe-audio function: the common rules (app-functions/app.ts), then the audio checked and
// decoded (audio.ts), sent to the provider's transcription API as a file, and the transcription
// stored on the person's message of that id in that room, when they have one (RLS: only their own).
import { toFile } from "openai";
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import { callProvider, missingProvider, providerClient, providerFailure } from "../_shared/ai/provider.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { ok } from "../_shared/operations/operation.ts";
import { decodeAudio, MAX_AUDIO_BASE64_CHARS } from "./audio.ts";
import { transcribeRoute } from "./routes.ts";

/** The column's own cap (chat.messages.transcription). */
const MAX_TRANSCRIPTION_CHARS = 200_000;
/** Room for the JSON around the audio's base64 text. */
const BODY_BESIDES_AUDIO_BYTES = 16 * 1024;

export function createTranscribeAudioApp(services: AppServices) {
  const client = providerClient(services.config);
  return createFunctionApp(services, {
    route: transcribeRoute,
    ratePerMinute: (config) => config.TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE,
    maxBodyBytes: MAX_AUDIO_BASE64_CHARS + BODY_BESIDES_AUDIO_BYTES,
    missingProvider: missingProvider("transcribe-audio"),
    async handle({ body, context, signal }) {
      const audio = decodeAudio(body.audioData);
      const file = await toFile(audio.bytes, `audio.${audio.format}`);
      const transcribed = await callProvider(
        () => client!.audio.transcriptions.create({ file, model: context.config.TRANSCRIBE_AUDIO_MODEL }, { signal }),
        signal,
      ).catch((error) => {
        throw providerFailure(error);
      });
      const transcription = transcribed.text.slice(0, MAX_TRANSCRIPTION_CHARS);
      const stored = await context.db.statement((tx) =>
        tx`update chat.messages set transcription = ${transcription}, transcribed_at = now()
           where owner_id = core.current_user_id() and room_id = ${body.roomId} and message_id = ${body.messageId}
           returning message_id`
      );
      return ok({ success: true, transcription, message_id: body.messageId, stored: stored.length === 1 });
    },
  });
}
