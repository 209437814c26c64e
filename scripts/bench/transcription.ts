// The transcription figure: the peak memory of transcribing a 25 MB recording in the function's own
// process (scripts/lib/transcription-memory.ts), three calls after warm-up. Target: under 3 times
// the audio.
import { measureTranscriptionMemory } from "../lib/transcription-memory.ts";
import { benchUserDatabase } from "./identity.ts";

export async function benchTranscription() {
  const { url } = await benchUserDatabase({}, "bench_transcription");
  const figures = await measureTranscriptionMemory(url);
  for (const [i, call] of figures.calls.entries()) {
    console.log(
      `call ${i + 1}: ${figures.audioMb} MB of audio (${figures.bodyMb} MB of JSON) answered ${call.status} in ${call.ms} ms; ` +
        `resident ${call.rssBeforeMb} MB before, ${call.peakRssMb} MB at the peak: ${call.extraMb} MB more, ${call.timesAudio} times the audio`,
    );
  }
  return figures;
}
