// The transcribe-audio function: the common rules (app-functions/app.ts) with its request checked,
// then 503 provider_not_configured: the transcription provider's client is not part of the service yet.
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { transcribeRoute } from "./routes.ts";

export function createTranscribeAudioApp(services: AppServices) {
  return createFunctionApp(services, {
    route: transcribeRoute,
    ratePerMinute: (config) => config.TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE,
    missingProvider: () => "No transcription provider is configured for transcribe-audio.",
  });
}
