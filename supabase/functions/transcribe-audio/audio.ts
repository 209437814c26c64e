// The audio of a transcribe-audio request: its size judged from the base64 text before anything is
// decoded (413 past 25 MB), its format recognised from its first bytes (400 not_audio), and only
// then the whole text decoded, strictly (400 invalid_base64): one copy of the audio in memory.
import { ApiError } from "../_shared/http/errors.ts";

/**
 * SPEC 8: up to 25 MB of audio. Decimal megabytes: OpenAI's limit (26,214,400 bytes) is on the whole
 * upload, multipart framing included, so audio of exactly 25 MiB would be refused by the provider.
 */
export const MAX_AUDIO_BYTES = 25_000_000;
/** The longest base64 text of MAX_AUDIO_BYTES. */
export const MAX_AUDIO_BASE64_CHARS = Math.ceil(MAX_AUDIO_BYTES / 3) * 4;

export type AudioFormat = "mp3" | "wav" | "ogg" | "webm" | "mp4" | "flac";

const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const ascii = (bytes: Uint8Array, from: number, text: string) =>
  bytes.length >= from + text.length && [...text].every((char, i) => bytes[from + i] === char.charCodeAt(0));

/** The container or stream format that `head` (the first bytes) starts, or undefined when it is not audio we know. */
export function audioFormatOf(head: Uint8Array): AudioFormat | undefined {
  if (ascii(head, 0, "ID3") || (head[0] === 0xff && head.length > 1 && (head[1]! & 0xe0) === 0xe0)) return "mp3";
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WAVE")) return "wav";
  if (ascii(head, 0, "OggS")) return "ogg";
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return "webm";
  if (ascii(head, 4, "ftyp")) return "mp4";
  if (ascii(head, 0, "fLaC")) return "flac";
  return undefined;
}

/** How many bytes `base64` decodes to, from its length and padding alone. */
const decodedLength = (base64: string) => (base64.length / 4) * 3 - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);

/** The audio `base64` holds and its format; 413 audio_too_large, 400 invalid_base64 or not_audio otherwise. */
export function decodeAudio(base64: string): { bytes: Buffer; format: AudioFormat } {
  if (base64.length > MAX_AUDIO_BASE64_CHARS || (base64.length % 4 === 0 && decodedLength(base64) > MAX_AUDIO_BYTES)) {
    throw new ApiError(413, "audio_too_large", `The audio is larger than ${MAX_AUDIO_BYTES} bytes.`, { limit: MAX_AUDIO_BYTES });
  }
  if (base64.length % 4 !== 0 || !STRICT_BASE64.test(base64)) {
    throw new ApiError(400, "invalid_base64", "audioData is not base64 (A-Z a-z 0-9 + /, padded with = to a multiple of 4).");
  }
  const format = audioFormatOf(Buffer.from(base64.slice(0, 16), "base64"));
  if (!format) {
    throw new ApiError(400, "not_audio", "audioData is not audio in a known format (mp3, wav, ogg, webm, mp4/m4a, flac).");
  }
  return { bytes: Buffer.from(base64, "base64"), format };
}
