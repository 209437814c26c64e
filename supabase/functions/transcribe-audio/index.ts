// Deno entry of the `transcribe-audio` edge function.
import { serve } from "../_shared/platform/runtime.ts";
import { servicesFromEnvironment } from "../_shared/services.ts";
import { createTranscribeAudioApp } from "./app.ts";

await serve(createTranscribeAudioApp(servicesFromEnvironment()).fetch);
