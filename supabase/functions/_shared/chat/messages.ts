// The chat's rooms and messages as the assistant uses them, each statement as the person (RLS keeps
// them to their own rooms): beginning an answer (the person's message recorded, its one answer
// claimed, the calls the request approves or declines settled and the conversation read, in one
// statement: chat.begin_answer), storing the writes the model asks for (chat.propose_call), then
// finishing or abandoning that answer.
import type { Scoped } from "../db/scopes.ts";
import { CHAT_LIMITS } from "./limits.ts";

export type Origin = "text" | "audio" | "image";
export type MessageStatus = "streaming" | "complete" | "incomplete";

/** One entry of an answer's tool_results: a tool call, what became of it, and what it answered. */
export interface ToolResult {
  id: string;
  name: string;
  arguments: unknown;
  /** ok, error; awaiting_confirmation (a write the person is asked to approve by `callId`); skipped (past a cap). */
  status: "ok" | "error" | "awaiting_confirmation" | "skipped";
  /** A write the person is asked about, or one they approved: the id the app approves it by (chat.proposed_calls). */
  callId?: string;
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

/** A write the person approved by its id, claimed for this request to run: the stored tool and arguments. */
export interface ApprovedCall {
  callId: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** What chat.begin_answer found: a new claim, with what the model needs, or the answer stored before. */
export type BegunAnswer =
  | { created: true; answer: StoredMessage; approved: ApprovedCall[]; history: EarlierMessage[] }
  | { created: false; answer: StoredMessage };

/** The call ids the person's request approves and declines. */
export interface Settlement {
  approve: string[];
  decline: string[];
}

/**
 * Records the person's message and claims its answer `answerId` in one statement (chat.begin_answer).
 * A retried message finds its stored answer; a new claim settles the calls the request names (409
 * approval_not_pending, one_destructive_call_at_a_time: then nothing is recorded) and brings the
 * conversation before the message: the newest CHAT_LIMITS.historyMessages and of them, newest first,
 * what fits in CHAT_LIMITS.historyChars, oldest first.
 */
export async function beginAnswer(db: Scoped, message: PersonMessage, answer: { answerId: string; model: string } & Settlement): Promise<BegunAnswer> {
  const [row] = await db.statement((tx) => tx<{ begun: BegunAnswer & { history: EarlierMessage[] | null } }[]>`
    select chat.begin_answer(${message.roomId}, ${message.messageId}, ${message.content}, ${message.origin},
      ${answer.answerId}, ${answer.model}, ${answer.approve}::uuid[], ${answer.decline}::uuid[], ${CHAT_LIMITS.historyMessages}::integer) as begun`);
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

/** Stores a write the model asked for in answer `answerId`, to be approved by the id it answers. */
export async function proposeCall(
  db: Scoped, roomId: string, answerId: string, call: { name: string; arguments: Record<string, unknown>; destructive: boolean },
): Promise<{ callId: string; expiresAt: string }> {
  const [row] = await db.statement((tx) => tx<{ proposed: { callId: string; expiresAt: string } }[]>`
    select chat.propose_call(${roomId}, ${answerId}, ${call.name}, ${tx.json(call.arguments as never)}, ${call.destructive}) as proposed`);
  return row!.proposed;
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
