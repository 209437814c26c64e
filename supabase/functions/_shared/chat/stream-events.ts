// The Server-Sent Events of chat-with-assistant's answer: each event's name and the schema of its
// `data:` JSON. The assistant's stream is typed by these (assistant.ts), and the API's document
// describes the stream with them, so the two cannot drift apart.
import { z } from "@hono/zod-openapi";

const ToolError = z.object({
  code: z.string().describe("The stable error code (as REST answers it)"),
  message: z.string().describe("What went wrong, for a person"),
});
const CallId = z.string().describe("The tool call's id within the answer");
const ToolName = z.string().describe("The tool's name");
const ToolArguments = z.unknown().describe("The arguments the model gave the tool");
const ExpiresAt = z.string().describe("When it expires (UTC, RFC 3339)");
const ToolStatus = z.enum(["ok", "error", "awaiting_confirmation", "skipped"])
  .describe("ok, error; awaiting_confirmation (a write the person is asked to approve by `callId`); skipped (past a cap)");

const ToolResult = z.object({
  id: CallId,
  name: ToolName,
  arguments: ToolArguments,
  status: ToolStatus,
  callId: z.string().optional().describe("awaiting_confirmation: send `approve: [callId]` (or `decline`) with a later message"),
  result: z.unknown().optional().describe("ok: what the tool answered"),
  error: ToolError.optional().describe("error: why the call failed"),
  confirmation: z.object({
    confirmationId: z.string().describe("The confirmation link's id"),
    kind: z.string().describe("What the link does (wallet_link, sponsorship_settings, sponsored_deposit)"),
    url: z.string().describe("The single-use link for the person to open"),
    expiresAt: ExpiresAt,
  }).optional().describe("A wallet or money action: the confirmation link made for it"),
}).openapi("ChatToolResult");

/** Each event's `data`, by event name, in the order a stream may send them. */
export const CHAT_STREAM_EVENTS = {
  "message.start": z.object({
    session_id: z.string().describe("The room"),
    messageId: z.string().describe("Your message"),
    answerId: z.string().describe("The assistant's answer"),
    model: z.string().nullable().describe("The model answering; null on the replay of an answer stored without one"),
    replayed: z.boolean().describe("Whether this is the stored answer again (the same `messageId` sent before)"),
  }).describe("The answer begins"),
  "message.delta": z.object({ text: z.string().describe("Text to append to the answer so far") }).describe("The next piece of the answer's text"),
  "tool.call": z.object({
    id: CallId,
    name: ToolName,
    arguments: ToolArguments,
    approved: z.literal(true).optional().describe("A call the person approved (`approve`): `id` is its `callId`"),
  }).describe("A tool the model called (`useMCP`), or a stored call the person approved"),
  "tool.result": z.object({
    id: CallId,
    name: ToolName,
    status: ToolStatus,
    result: z.unknown().optional().describe("ok: what the tool answered"),
    error: ToolError.optional().describe("error: why the call failed"),
  }).describe("What a tool call answered"),
  "confirmation.link": z.object({
    id: CallId,
    name: ToolName,
    title: z.string().optional().describe("The tool's title, to show"),
    confirmationId: z.string().describe("The confirmation link's id"),
    kind: z.string().describe("What the link does (wallet_link, sponsorship_settings, sponsored_deposit)"),
    url: z.string().describe("The single-use link for the person to open"),
    expiresAt: ExpiresAt,
    action: z.unknown().describe("What the link does, as the tool described it, or null"),
  }).describe("A wallet or money action, as a confirmation link"),
  "confirmation.required": z.object({
    id: CallId,
    callId: z.string().describe("Send `approve: [callId]` (or `decline`) with a later message to run (or drop) exactly this call"),
    name: ToolName,
    title: z.string().optional().describe("The tool's title, to show"),
    arguments: ToolArguments,
    destructive: z.boolean().describe("Whether the call would overwrite or delete something (it is approved on its own)"),
    expiresAt: z.string().describe("Until when the call can be approved (UTC, RFC 3339)"),
  }).describe("A write the model asked for, not run: the person is asked"),
  error: ToolError.describe("The answer could not be finished"),
  done: z.object({
    success: z.boolean().describe("Whether the answer was finished"),
    message: z.string().describe("The whole answer's text"),
    tool_results: z.array(ToolResult).describe("Every tool call of the answer, with its outcome"),
    session_id: z.string().describe("The room"),
    status: z.string().describe("complete, incomplete, or (a replay) streaming"),
    replayed: z.boolean().describe("Whether this is the stored answer again"),
    error: z.string().optional().describe("Why the answer was not finished, for a person"),
    code: z.string().optional().describe("The stable error code when the answer was not finished"),
  }).describe("The last event"),
} as const;

export type ChatStreamEvents = { [K in keyof typeof CHAT_STREAM_EVENTS]: z.input<(typeof CHAT_STREAM_EVENTS)[K]> };

/**
 * The stream as one schema: each event is `event: <name>` and one `data:` line of the JSON the
 * variant's `data` describes (OpenAPI has no way to say more of a text/event-stream).
 */
export const ChatStreamEventSchema = z.union(
  Object.entries(CHAT_STREAM_EVENTS).map(([name, data]) =>
    z.object({ event: z.literal(name).describe("The event's name (the `event:` line)"), data })
      .openapi({ title: name, description: data.description })) as unknown as
    [z.ZodTypeAny, z.ZodTypeAny, ...z.ZodTypeAny[]],
).openapi("ChatStreamEvent", {
  description: "One Server-Sent Event of the answer: `event: <event>`, then `data: <data as JSON>` on one line. " +
    "While nothing else is sent for ASSISTANT_KEEPALIVE_MS, a comment line `: keep-alive` is, which SSE clients skip.",
});

/** One event of the stream: its name and its data. */
export type ChatStreamEvent = { [K in keyof ChatStreamEvents]: { type: K; data: ChatStreamEvents[K] } }[keyof ChatStreamEvents];
