// The assistant's caps, in one place: the request schema, the answer loop and the documentation read
// them from here (this module imports nothing, so the API's OpenAPI document can name them too).

export const CHAT_LIMITS = {
  /** `message`: what the person wrote (or said). */
  messageChars: 8000,
  /** `textContent` when it is text (a transcription, a pasted document): what the model reads instead of `message`. */
  textContentChars: 100_000,
  /** An image sent with a message (`imageData`), decoded: 512 KiB, inside the 1 MiB body limit once in base64. */
  imageBytes: 512 * 1024,
  /** The room's earlier messages the model reads: the newest this many... */
  historyMessages: 20,
  /** ...and, newest first, at most this many characters of them. */
  historyChars: 60_000,
  /** Rounds of tool calls in one answer; after the last, the model must answer in words. */
  toolRounds: 5,
  /** Tool calls run in one round; more are answered "skipped". */
  toolCallsPerRound: 8,
  /** Confirmation links (request_* tools) the model may make in one answer: planted text cannot fill the person's open links. */
  linksPerTurn: 2,
  /** Call ids one request may approve or decline. */
  settledPerRequest: 8,
  /** A tool result's JSON: a longer one reaches the model cut here, and the app and storage as a note of its size. */
  toolResultChars: 16_000,
  /** An answer's stored text (chat.messages.content holds 200,000). */
  answerChars: 200_000,
} as const;

/** Images the model is sent, by the media type a data URL names. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;

/** How long a write the assistant asked about may be approved by its call id (chat.proposed_calls). */
export const CONFIRMATION_MINUTES = 15;
