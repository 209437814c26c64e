// The chat's rooms and messages as the assistant uses them, each statement as the person (RLS keeps
// them to their own rooms): beginning an answer (the person's message recorded, its one answer
// claimed, the writes an earlier answer waits for settled and the conversation read, in one
// statement: chat.begin_answer), then finishing or abandoning that answer.
import type { Scoped } from "../db/database.ts";
import { CHAT_LIMITS } from "./limits.ts";

export type Origin = "text" | "audio" | "image";
export type MessageStatus = "streaming" | "complete" | "incomplete";

/** One entry of an answer's tool_results: a tool call, what became of it, and what it answered. */
export interface ToolResult {
  id: string;
  name: string;
  arguments: unknown;
  /**
   * ok, error; awaiting_confirmation (a write the person is asked about), then approved, declined or
   * expired once their next message settled it; skipped (past a cap, or not offered).
   */
  status: "ok" | "error" | "awaiting_confirmation" | "approved" | "declined" | "expired" | "skipped";
  result?: unknown;
  error?: { code: string; message: string };
  /** A tool that made a confirmation link: the link to give the person. */
  confirmation?: { confirmationId: string; kind: string; url: string; expiresAt: string };
}

export interface StoredMessage {
  roomId: string;
  messageId: string;
  role: "user" | "assistant";
  content: string;
  origin: Origin;
  status: MessageStatus;
  inReplyTo: string | null;
  toolResults: ToolResult[] | null;
  model: string | null;
  updatedAt: string;
}

/** The person's message as the chat records it. */
export interface PersonMessage {
  roomId: string;
  messageId: string;
  content: string;
  origin: Origin;
}

export interface EarlierMessage {
  role: "user" | "assistant";
  content: string;
  origin: Origin;
}

/** What chat.begin_answer found: a new claim, with what the model needs, or the answer stored before. */
export type BegunAnswer =
  | { created: true; answer: StoredMessage; settled: Settled; history: EarlierMessage[] }
  | { created: false; answer: StoredMessage };

export interface Settled {
  decision: "approved" | "declined" | "expired" | null;
  /** The writes settled now: to run when approved. */
  actions: ToolResult[];
}

/**
 * Records the person's message and claims its answer `answerId` in one statement (chat.begin_answer).
 * A retried message finds its stored answer; a new claim settles what the room's previous answer waits
 * for (approved when `approve`) and brings the conversation before the message: the newest
 * CHAT_LIMITS.historyMessages and of them, newest first, what fits in CHAT_LIMITS.historyChars, oldest first.
 */
export async function beginAnswer(db: Scoped, message: PersonMessage, answer: { answerId: string; model: string; approve: boolean }): Promise<BegunAnswer> {
  const [row] = await db.statement((tx) => tx<{ begun: BegunAnswer & { history: EarlierMessage[] | null } }[]>`
    select chat.begin_answer(${message.roomId}, ${message.messageId}, ${message.content}, ${message.origin},
      ${answer.answerId}, ${answer.model}, ${answer.approve}, ${CHAT_LIMITS.historyMessages}::integer) as begun`);
  const begun = row!.begun;
  if (!begun.created) return { created: false, answer: begun.answer };
  const kept: EarlierMessage[] = [];
  let characters = 0;
  for (const earlier of begun.history ?? []) {
    characters += earlier.content.length;
    if (characters > CHAT_LIMITS.historyChars) break;
    kept.push(earlier);
  }
  return { ...begun, history: kept.reverse() };
}

/** Stores the answer's text, status and tool results. */
export async function finishAnswer(db: Scoped, roomId: string, answerId: string, answer: { content: string; status: MessageStatus; toolResults: ToolResult[] }) {
  await db.statement((tx) => tx`
    update chat.messages
    set content = ${answer.content.slice(0, CHAT_LIMITS.answerChars)}, status = ${answer.status},
        tool_results = ${answer.toolResults.length ? tx.json(answer.toolResults as never) : null}
    where owner_id = core.current_user_id() and room_id = ${roomId} and message_id = ${answerId}`);
}

/** Deletes the claimed answer to `messageId` that said nothing yet, so that a retry may ask again. */
export async function abandonAnswer(db: Scoped, roomId: string, messageId: string): Promise<void> {
  await db.statement((tx) => tx`select chat.abandon_answer(${roomId}, ${messageId})`);
}
