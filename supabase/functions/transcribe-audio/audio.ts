// The audio of a transcribe-audio request, read as the body arrives (_shared/http/base64-field-body.ts):
// the base64 text decoded strictly into one byte array and never held as text (400 invalid_base64),
// refused at the first byte past 25 MB without decoding further (413 audio_too_large), the other
// members checked by the route's schema like any body, then the format recognised from the first
// bytes (400 not_audio): one copy of the audio in memory.
import { readBase64FieldBody } from "../_shared/http/base64-field-body.ts";
import { ApiError } from "../_shared/http/errors.ts";
import { refuseLoneSurrogates, validationError } from "../_shared/http/validation.ts";
import { TranscribeRequestSchema } from "../_shared/app-functions/transcribe-audio.ts";
import type { AudioFormat, TranscriptionInput } from "../_shared/chat/transcription.ts";

/**
 * SPEC 8: up to 25 MB of audio. Decimal megabytes: OpenAI's limit (26,214,400 bytes) is on the whole
 * upload, multipart framing included, so audio of exactly 25 MiB would be refused by the provider.
 */
export const MAX_AUDIO_BYTES = 25_000_000;
/** The longest base64 text of MAX_AUDIO_BYTES. */
export const MAX_AUDIO_BASE64_CHARS = Math.ceil(MAX_AUDIO_BYTES / 3) * 4;

/** ISO media files that are pictures, not recordings: HEIF/HEIC, AVIF, JPEG 2000, Canon raw. */
const PICTURE_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis", "jp2 ", "jpx ", "crx "]);

const ascii = (bytes: Uint8Array, from: number, text: string) =>
  bytes.length >= from + text.length && [...text].every((char, i) => bytes[from + i] === char.charCodeAt(0));

/** An MPEG audio frame header (an mp3 without an ID3 tag): 11 sync bits, then a valid version, layer, bitrate and sample rate. */
function isMpegAudioFrame(head: Uint8Array): boolean {
  if (head.length < 3 || head[0] !== 0xff || (head[1]! & 0xe0) !== 0xe0) return false;
  const version = (head[1]! >> 3) & 0b11;
  const layer = (head[1]! >> 1) & 0b11;
  // Layer 00 is AAC's ADTS, which the transcription API does not take raw.
  return version !== 0b01 && layer !== 0b00 && head[2]! >> 4 !== 0b1111 && ((head[2]! >> 2) & 0b11) !== 0b11;
}

/** The container or stream format that `head` (the first bytes) starts, or undefined when it is not audio we know. */
export function audioFormatOf(head: Uint8Array): AudioFormat | undefined {
  if (ascii(head, 0, "ID3") || isMpegAudioFrame(head)) return "mp3";
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WAVE")) return "wav";
  if (ascii(head, 0, "OggS")) return "ogg";
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return "webm";
  if (ascii(head, 4, "ftyp") && head.length >= 12 && !PICTURE_BRANDS.has(String.fromCharCode(...head.subarray(8, 12)))) return "mp4";
  if (ascii(head, 0, "fLaC")) return "flac";
  return undefined;
}

export type TranscribeRequest = Omit<TranscriptionInput, "signal">;

const audioTooLarge = () => new ApiError(413, "audio_too_large", `The audio is larger than ${MAX_AUDIO_BYTES} bytes.`, { limit: MAX_AUDIO_BYTES });

/** Reads and checks the body: the audio decoded, the other members as the schema says, then the format. */
export async function readTranscribeRequest(request: Request): Promise<TranscribeRequest> {
  const { fields, decoded } = await readBase64FieldBody(request, { field: "audioData", maxDecodedBytes: MAX_AUDIO_BYTES, tooLarge: audioTooLarge });
  // The decoded audio stands in for its text: the schema judges that it is there and not empty.
  const checked = TranscribeRequestSchema.safeParse(decoded ? { ...fields, audioData: decoded.length > 0 ? "decoded" : "" } : fields);
  if (!checked.success) throw validationError(checked.error.issues);
  refuseLoneSurrogates(fields);
  const format = audioFormatOf(decoded!);
  if (!format) {
    throw new ApiError(400, "not_audio", "audioData is not audio in a known format (mp3, wav, ogg, webm, mp4/m4a, flac).");
  }
  return { messageId: checked.data.messageId, roomId: checked.data.roomId, audio: decoded!, format };
}
