// The transcribe-audio function: the common rules (app-functions/app.ts), its body read as it arrives
// and the audio decoded and checked (audio.ts), then the person's message transcribed
// (_shared/chat/transcription.ts).
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import { missingProvider, providerClient } from "../_shared/ai/provider.ts";
import { transcribeMessage } from "../_shared/chat/transcription.ts";
import { OTHER_MEMBERS_MAX_BYTES } from "../_shared/http/base64-field-body.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { runOperation } from "../_shared/operations/operation.ts";
import { MAX_AUDIO_BASE64_CHARS, readTranscribeRequest } from "./audio.ts";
import { transcribeRoute } from "../_shared/app-functions/transcribe-audio.ts";

/** The other members' cap, and room for the JSON around them. */
const BODY_BESIDES_AUDIO_BYTES = OTHER_MEMBERS_MAX_BYTES + 1024;

export function createTranscribeAudioApp(services: AppServices) {
  const client = providerClient(services.config);
  // missingProvider answers 503 without a client.
  const transcribe = client && transcribeMessage(client);
  return createFunctionApp(services, {
    route: transcribeRoute,
    ratePerMinute: (config) => config.TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE,
    maxBodyBytes: MAX_AUDIO_BASE64_CHARS + BODY_BESIDES_AUDIO_BYTES,
    readBody: readTranscribeRequest,
    missingProvider: missingProvider("transcribe-audio"),
    handle: ({ body, context, signal }) => runOperation(transcribe!, context, { ...body, signal }),
  });
}
