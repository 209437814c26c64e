// The Server-Sent Events of chat-with-assistant's answer: each event's name and the schema of its
// `data:` JSON. The assistant's stream is typed by these (assistant.ts), and the API's document
// describes the stream with them, so the two cannot drift apart.
import { z } from "@hono/zod-openapi";

const ToolError = z.object({ code: z.string(), message: z.string() });
const ToolStatus = z.enum(["ok", "error", "awaiting_confirmation", "skipped"]);

const ToolResult = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.unknown(),
  status: ToolStatus.describe("ok, error; awaiting_confirmation (a write the person is asked to approve by `callId`); skipped (past a cap)"),
  callId: z.string().optional(),
  result: z.unknown().optional(),
  error: ToolError.optional(),
  confirmation: z.object({ confirmationId: z.string(), kind: z.string(), url: z.string(), expiresAt: z.string() }).optional(),
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
  "message.delta": z.object({ text: z.string() }).describe("The next piece of the answer's text"),
  "tool.call": z.object({
    id: z.string(),
    name: z.string(),
    arguments: z.unknown(),
    approved: z.literal(true).optional().describe("A call the person approved (`approve`): `id` is its `callId`"),
  }).describe("A tool the model called (`useMCP`), or a stored call the person approved"),
  "tool.result": z.object({
    id: z.string(),
    name: z.string(),
    status: ToolStatus,
    result: z.unknown().optional(),
    error: ToolError.optional(),
  }).describe("What a tool call answered"),
  "confirmation.link": z.object({
    id: z.string(),
    name: z.string(),
    title: z.string().optional(),
    confirmationId: z.string(),
    kind: z.string(),
    url: z.string().describe("The single-use link for the person to open"),
    expiresAt: z.string(),
    action: z.unknown().describe("What the link does, as the tool described it, or null"),
  }).describe("A wallet or money action, as a confirmation link"),
  "confirmation.required": z.object({
    id: z.string(),
    callId: z.string().describe("Send `approve: [callId]` (or `decline`) with a later message to run (or drop) exactly this call"),
    name: z.string(),
    title: z.string().optional(),
    arguments: z.unknown(),
    destructive: z.boolean(),
    expiresAt: z.string(),
  }).describe("A write the model asked for, not run: the person is asked"),
  error: ToolError.describe("The answer could not be finished"),
  done: z.object({
    success: z.boolean(),
    message: z.string().describe("The whole answer's text"),
    tool_results: z.array(ToolResult),
    session_id: z.string(),
    status: z.string().describe("complete, incomplete, or (a replay) streaming"),
    replayed: z.boolean(),
    error: z.string().optional(),
    code: z.string().optional(),
  }).describe("The last event"),
} as const;

export type ChatStreamEvents = { [K in keyof typeof CHAT_STREAM_EVENTS]: z.input<(typeof CHAT_STREAM_EVENTS)[K]> };

/**
 * The stream as one schema: each event is `event: <name>` and one `data:` line of the JSON the
 * variant's `data` describes (OpenAPI has no way to say more of a text/event-stream).
 */
export const ChatStreamEventSchema = z.union(
  Object.entries(CHAT_STREAM_EVENTS).map(([name, data]) =>
    z.object({ event: z.literal(name), data }).openapi({ title: name, description: data.description })) as unknown as
    [z.ZodTypeAny, z.ZodTypeAny, ...z.ZodTypeAny[]],
).openapi("ChatStreamEvent", {
  description: "One Server-Sent Event of the answer: `event: <event>`, then `data: <data as JSON>` on one line. " +
    "While nothing else is sent for ASSISTANT_KEEPALIVE_MS, a comment line `: keep-alive` is, which SSE clients skip.",
});
