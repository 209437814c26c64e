// The chat's rooms and messages as the assistant uses them, each statement as the person (RLS keeps
// them to their own rooms): recording a message or claiming the one answer to it
// (chat.record_message), finishing or abandoning that answer, settling the writes an earlier answer
// waits for, and reading the room's conversation before a message.
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

export interface NewMessage {
  roomId: string;
  messageId: string;
  role: "user" | "assistant";
  content: string;
  origin?: Origin;
  status?: MessageStatus;
  inReplyTo?: string;
  model?: string;
}

/** Records the message (its room opened when missing); `created` is false when it, or the answer it claims, was there. */
export async function recordMessage(db: Scoped, message: NewMessage): Promise<{ created: boolean; message: StoredMessage }> {
  const [row] = await db.statement((tx) => tx<{ recorded: { created: boolean; message: StoredMessage } }[]>`
    select chat.record_message(${message.roomId}, ${message.messageId}, ${message.role}, ${message.content}, ${message.origin ?? "text"},
      ${message.status ?? "complete"}, ${message.inReplyTo ?? null}, ${message.model ?? null}) as recorded`);
  return row!.recorded;
}

/** Records the person's message; one recorded before without text (a transcription's placeholder) gets this text. */
export async function recordPersonMessage(db: Scoped, message: Omit<NewMessage, "role">): Promise<void> {
  const { created, message: stored } = await recordMessage(db, { ...message, role: "user" });
  if (created || stored.content !== "") return;
  await db.statement((tx) => tx`
    update chat.messages set content = ${message.content}
    where owner_id = core.current_user_id() and room_id = ${message.roomId} and message_id = ${message.messageId} and content = ''`);
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

/** The writes the room's latest answer waited for, settled by the person's message `messageId`. */
export async function settleConfirmations(db: Scoped, roomId: string, messageId: string, approve: boolean) {
  const [row] = await db.statement((tx) => tx<{ settled: { decision: "approved" | "declined" | "expired" | null; actions: ToolResult[] } }[]>`
    select chat.settle_confirmations(${roomId}, ${messageId}, ${approve}) as settled`);
  return row!.settled;
}

export interface EarlierMessage {
  role: "user" | "assistant";
  content: string;
  origin: Origin;
}

/**
 * The room's messages before `messageId` (not its answer, nor answers still being written), oldest
 * first: the newest CHAT_LIMITS.historyMessages, and of them, newest first, what fits in
 * CHAT_LIMITS.historyChars.
 */
export async function conversationBefore(db: Scoped, roomId: string, messageId: string): Promise<EarlierMessage[]> {
  const rows = await db.statement((tx) => tx<EarlierMessage[]>`
    select m.role, m.content, m.origin
    from chat.messages m
    join chat.messages this_message on this_message.owner_id = m.owner_id and this_message.room_id = m.room_id and this_message.message_id = ${messageId}
    where m.owner_id = core.current_user_id() and m.room_id = ${roomId} and m.role in ('user', 'assistant')
      and m.status <> 'streaming' and m.content <> '' and m.message_id <> ${messageId}
      and m.in_reply_to is distinct from ${messageId} and m.created_at <= this_message.created_at
    order by m.created_at desc, m.message_id desc
    limit ${CHAT_LIMITS.historyMessages}`);
  const kept: EarlierMessage[] = [];
  let characters = 0;
  for (const row of rows) {
    characters += row.content.length;
    if (characters > CHAT_LIMITS.historyChars) break;
    kept.push(row);
  }
  return kept.reverse();
}
