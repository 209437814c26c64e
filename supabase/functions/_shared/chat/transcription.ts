// Transcribing a person's voice message: the audio sent to the provider's transcription API, and the
// transcription stored on the person's message of that id in that room, recorded first when the app
// transcribes before it sends (chat.record_transcription; RLS: only their own). The upload streams
// from the decoded bytes (`openai`'s toStreamingFile): toFile would copy them into a File, a second 25 MB.
import type OpenAI from "openai";
import { toStreamingFile } from "openai";
import { callProvider, providerFailure } from "../ai/provider.ts";
import { ok, operation } from "../operations/operation.ts";

export type AudioFormat = "mp3" | "wav" | "ogg" | "webm" | "mp4" | "flac";

/** The type the upload names (the provider decodes by the file name; the type is for the rest). */
export const AUDIO_TYPES: Record<AudioFormat, string> = {
  mp3: "audio/mpeg", wav: "audio/wav", ogg: "audio/ogg", webm: "audio/webm", mp4: "audio/mp4", flac: "audio/flac",
};

/** The column's own cap (chat.messages.transcription). */
const MAX_TRANSCRIPTION_CHARS = 200_000;
/** The upload's pieces: views of the audio, never copies. */
const UPLOAD_PIECE_BYTES = 1024 * 1024;

export interface TranscriptionInput {
  roomId: string;
  messageId: string;
  /** The decoded audio, checked to be `format`. */
  audio: Uint8Array;
  format: AudioFormat;
  /** Aborted when the caller goes away: ends the provider's request. */
  signal: AbortSignal;
}

async function* piecesOf(bytes: Uint8Array) {
  for (let start = 0; start < bytes.length; start += UPLOAD_PIECE_BYTES) yield bytes.subarray(start, start + UPLOAD_PIECE_BYTES);
}

/** Transcribes the audio with `client` and stores the transcription on the person's message. */
export const transcribeMessage = (client: OpenAI) =>
  operation({
    name: "chat.transcribe_message",
    // The provider is asked before the transcription is stored.
    ownTransactions: true,
    async run(context, input: TranscriptionInput) {
      const { signal } = input;
      const transcribed = await callProvider(
        // A streamed file is read once: each try gets its own, over the same bytes.
        () => client.audio.transcriptions.create({
          file: toStreamingFile(piecesOf(input.audio), `audio.${input.format}`, { type: AUDIO_TYPES[input.format] }),
          model: context.config.TRANSCRIBE_AUDIO_MODEL,
        }, { signal }),
        signal,
      ).catch((error) => {
        throw providerFailure(error);
      });
      const transcription = transcribed.text.slice(0, MAX_TRANSCRIPTION_CHARS);
      const [row] = await context.db.statement((tx) =>
        tx<{ message: unknown }[]>`select chat.record_transcription(${input.roomId}, ${input.messageId}, ${transcription}) as message`
      );
      return ok({ success: true as const, transcription, message_id: input.messageId, stored: row!.message !== null });
    },
  });
