// How much memory transcribing one recording takes in the function's own process: npm start's Deno
// gateway (Supabase's Edge Runtime runs a function on Deno too), called over HTTP from this process,
// where the OpenAI stand-in also runs, so neither the client's copy of the body nor the provider's
// count. The figure is the process's resident set at its highest during the call (Linux's VmHWM,
// reset through /proc/<pid>/clear_refs just before), less what it was before the call.
import { readFileSync, writeFileSync } from "node:fs";
import { SignJWT } from "jose";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { MAX_AUDIO_BYTES } from "../../supabase/functions/transcribe-audio/audio.ts";
import { createUser } from "./admin-operations.ts";
import { startGatewayProcess } from "./gateway-process.ts";
import { startOpenAIStandIn } from "./openai-stand-in.ts";

const MB = 1_000_000;
const JWT_SECRET = "transcription-memory-jwt-secret-0123456789";

export interface TranscriptionCall {
  status: number;
  ms: number;
  /** Resident set before the call, and at its highest during it. */
  rssBeforeMb: number;
  peakRssMb: number;
  /** The peak less the resident set before: what the call took. */
  extraMb: number;
  /** extraMb over the recording's size. */
  timesAudio: number;
}

/** Kilobytes of a /proc/<pid>/status line. */
function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? NaN);
}

/** A WAV header, then silence, `size` bytes in all. */
function recordingOf(size: number): Buffer {
  const audio = Buffer.alloc(size);
  audio.write("RIFF", 0, "latin1");
  audio.writeUInt32LE(size - 8, 4);
  audio.write("WAVEfmt ", 8, "latin1");
  return audio;
}

/**
 * Transcribes a recording of `audioBytes` `calls` times (after two small warm-up calls) against the
 * database at `databaseUrl` (the owner's connection to a migrated database), measuring each call.
 */
export async function measureTranscriptionMemory(databaseUrl: string, { audioBytes = MAX_AUDIO_BYTES, calls = 3 } = {}) {
  const admin = new Database(connect(databaseUrl, { max: 1, prepare: true }));
  const person = await createUser(admin, { email: `transcription-memory-${Date.now()}@example.com` });
  await admin.close();
  const standIn = await startOpenAIStandIn();
  const gateway = await startGatewayProcess({
    DATABASE_URL: databaseUrl,
    JWT_SECRET,
    ASSISTANT_BASE_URL: `${standIn.url}/v1`,
    ASSISTANT_API_KEY: standIn.apiKey,
    TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE: "1000",
    // Nothing else at work in the process while it is measured.
    WEBHOOK_DISPATCH: "false",
    CHECKOUT_RECONCILE_SECONDS: "0",
    RELAYER_LOOP_SECONDS: "0",
  });
  const pid = gateway.process.pid!;
  const token = await new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(person.authUserId)
    .setAudience("authenticated").setExpirationTime("10m").sign(new TextEncoder().encode(JWT_SECRET));
  let messages = 0;
  const transcribe = async (audioData: string) => {
    const response = await fetch(`${gateway.url}/functions/v1/transcribe-audio`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ roomId: "memory", messageId: `recording-${++messages}`, audioData }),
    });
    await response.arrayBuffer();
    return response.status;
  };
  try {
    for (const size of [10_000, 1_000_000]) {
      const status = await transcribe(recordingOf(size).toString("base64"));
      if (status !== 200) throw new Error(`warm-up transcription answered ${status}`);
    }
    const audioData = recordingOf(audioBytes).toString("base64");
    const measured: TranscriptionCall[] = [];
    for (let i = 0; i < calls; i++) {
      const rssBefore = statusKb(pid, "VmRSS");
      writeFileSync(`/proc/${pid}/clear_refs`, "5"); // VmHWM := VmRSS
      const started = performance.now();
      const status = await transcribe(audioData);
      const ms = performance.now() - started;
      const peak = statusKb(pid, "VmHWM");
      const extraMb = ((peak - rssBefore) * 1024) / MB;
      measured.push({
        status,
        ms: Math.round(ms),
        rssBeforeMb: Math.round((rssBefore * 1024) / MB),
        peakRssMb: Math.round((peak * 1024) / MB),
        extraMb: Number(extraMb.toFixed(1)),
        timesAudio: Number((extraMb / (audioBytes / MB)).toFixed(2)),
      });
    }
    return { audioMb: audioBytes / MB, bodyMb: Number((audioData.length / MB).toFixed(1)), calls: measured };
  } finally {
    await gateway.stop("SIGKILL");
    await standIn.close();
  }
}
