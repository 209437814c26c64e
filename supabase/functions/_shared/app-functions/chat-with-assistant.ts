// The chat-with-assistant function's route: the request with its caps (chat/limits.ts); the answer
// streams as Server-Sent Events, each event's data described by its schema (chat/stream-events.ts).
// Here, not in the function's folder, so that the API's document describes it without importing a function.
//
// audioData and imageData are booleans: they say where the message came from. A voice
// message is transcribed first (transcribe-audio, same roomId and messageId) and sent here as text;
// an image travels in `textContent` as a data URL, since no other field can carry it.
import { z } from "@hono/zod-openapi";
import { functionRoute } from "./routes.ts";
import { CHAT_LIMITS, CONFIRMATION_MINUTES, IMAGE_TYPES } from "../chat/limits.ts";
import { ClientId } from "../chat/schemas.ts";
import { ChatStreamEventSchema } from "../chat/stream-events.ts";

const IMAGE_DATA_URL = new RegExp(`^data:(${IMAGE_TYPES.join("|").replaceAll("/", "\\/")});base64,([A-Za-z0-9+/]*={0,2})$`);
/** The longest data URL of an image within the cap. */
const IMAGE_DATA_URL_CHARS = "data:image/jpeg;base64,".length + Math.ceil(CHAT_LIMITS.imageBytes / 3) * 4;

/** What the first bytes of each image type are. */
const SIGNATURES: Record<(typeof IMAGE_TYPES)[number], (head: string) => boolean> = {
  "image/png": (head) => head.startsWith("\x89PNG\r\n\x1a\n"),
  "image/jpeg": (head) => head.startsWith("\xff\xd8\xff"),
  "image/gif": (head) => head.startsWith("GIF87a") || head.startsWith("GIF89a"),
  "image/webp": (head) => head.startsWith("RIFF") && head.slice(8, 12) === "WEBP",
};

/** Why `dataUrl` is not an image the model can be sent, or undefined when it is one. */
function imageProblem(dataUrl: string): { code: string; message: string } | undefined {
  const match = IMAGE_DATA_URL.exec(dataUrl);
  if (!match || match[2]!.length % 4 !== 0) {
    return { code: "invalid_image", message: `an image is sent as a base64 data URL of ${IMAGE_TYPES.join(", ")}` };
  }
  const [, type, base64] = match as unknown as [string, (typeof IMAGE_TYPES)[number], string];
  const bytes = (base64.length / 4) * 3 - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);
  if (bytes > CHAT_LIMITS.imageBytes) return { code: "image_too_large", message: `the image is larger than ${CHAT_LIMITS.imageBytes} bytes` };
  if (!SIGNATURES[type](atob(base64.slice(0, 16)))) return { code: "invalid_image", message: `the data is not a ${type} image` };
  return undefined;
}

/** The call ids a request approves or declines: each names one call (there is no "all"). */
const CallIds = z.array(z.string().uuid().openapi({ example: "3f0c2a5e-8d1b-4c7a-9e2f-6b5d4a3c2b1a" })).min(1).max(CHAT_LIMITS.settledPerRequest);

export const ChatRequestSchema = z.object({
  roomId: ClientId.describe("The chat room, yours: created on first use"),
  message: z.string().min(1).max(CHAT_LIMITS.messageChars).describe("What the person wrote or said"),
  messageId: ClientId.describe("The app's id of this message: sending it again answers the stored answer, the model is not asked twice"),
  model: z.string().min(1).max(200).optional().describe("One of the service's models (ASSISTANT_MODELS); default the first. Another: 400 unknown_model"),
  useMCP: z.boolean().optional().describe("Let the assistant use the service's public MCP tools as you"),
  aiProvider: z.string().min(1).max(50).optional().describe("One of the service's provider names (ASSISTANT_PROVIDERS); another: 400 unknown_provider"),
  audioData: z.boolean().optional().describe("The message came from a voice recording (transcribed by transcribe-audio): `message` is its text"),
  imageData: z.boolean().optional().describe(`The message carries an image: \`textContent\` is it, as a data URL (${IMAGE_TYPES.join(", ")}, ` +
    `at most ${CHAT_LIMITS.imageBytes} bytes; 400 invalid_image, image_too_large, image_required), sent to the model with \`message\``),
  textContent: z.string().max(IMAGE_DATA_URL_CHARS).optional().describe(`What the model reads instead of \`message\` (a transcription, ` +
    `a pasted text: at most ${CHAT_LIMITS.textContentChars} characters), or the image when \`imageData\``),
  originalType: z.enum(["text", "audio", "image"]).optional().describe("How the person sent it; default from audioData and imageData, else text. Flags that disagree: 400 conflicting_origin"),
  approve: CallIds.optional().describe("The `callId`s of `confirmation.required` events the person approved in the app: each runs, as it was shown, " +
    "before the model answers this message. Each must be yours, of this room, and still pending, else 409 approval_not_pending and nothing is " +
    "recorded; at most one destructive call per request (409 one_destructive_call_at_a_time)"),
  decline: CallIds.optional().describe("The `callId`s the person declined in the app: they never run. The same rules as `approve`"),
  enableAssistant: z.boolean().optional().describe("Turns the assistant's tools on again after you revoked its grant (\"Check-in app assistant\" " +
    "under /api/v3/me/mcp-grants): until then a request that needs them (useMCP, approve) answers 403 assistant_disabled"),
}).strict().superRefine((body, ctx) => {
  const problem = (path: string, code: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message, params: { code } });
  const declined = new Set(body.decline);
  if (body.approve?.some((id) => declined.has(id))) problem("decline", "conflicting_approval", "a call id is both approved and declined");
  const origin = originOf(body);
  if ((body.imageData && origin !== "image") || (body.audioData && origin !== "audio") || (origin === "image" && !body.imageData)) {
    problem("originalType", "conflicting_origin", "audioData, imageData and originalType name different origins (an image message needs imageData)");
  } else if (body.imageData) {
    const image = body.textContent === undefined ? { code: "image_required", message: "imageData needs the image in textContent" } : imageProblem(body.textContent);
    if (image) problem("textContent", image.code, image.message);
  } else if ((body.textContent?.length ?? 0) > CHAT_LIMITS.textContentChars) {
    problem("textContent", "validation_failed", `at most ${CHAT_LIMITS.textContentChars} characters`);
  }
}).openapi("ChatRequest");

export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** Where the message came from: originalType, else the flags. */
export function originOf(body: Pick<ChatRequest, "originalType" | "audioData" | "imageData">): "text" | "audio" | "image" {
  return body.originalType ?? (body.imageData ? "image" : body.audioData ? "audio" : "text");
}

const DESCRIPTION = `Stores the message in your room and streams the assistant's answer as Server-Sent Events
(\`text/event-stream\`): each event is \`event: <name>\` and one \`data:\` line of JSON, as \`ChatStreamEvent\` describes them
(\`message.start\`, \`message.delta\`, \`tool.call\`, \`tool.result\`, \`confirmation.link\`, \`confirmation.required\`, \`error\`,
and \`done\` last). While nothing else is sent for ASSISTANT_KEEPALIVE_MS (15 s by default: a tool running, a slow provider), a
comment line \`: keep-alive\` is, which SSE clients skip.

The same \`messageId\` again answers the stored answer as a short replay (\`message.start\`, one \`message.delta\`, \`done\`
with \`replayed: true\`); the model is not asked twice. A client that disconnects ends the provider's request and the
answer is stored as incomplete. Before the stream starts, the provider is tried three times (backoff, its Retry-After
up to 4 s): when it stays unavailable the answer is the error body, 503 \`provider_unavailable\` (with its Retry-After)
or 502 \`provider_error\`, and the same \`messageId\` may be sent again.

Tools: reads run, and wallet and money actions answer a confirmation link (at most ${CHAT_LIMITS.linksPerTurn} an answer: past that the
model is answered \`link_budget_exhausted\`). Any other write is stored, not run, and asked about (\`confirmation.required\`,
with its \`callId\`): it runs only when a later request in the room names its \`callId\` in \`approve\`, an act of the person in the
app (what they write in \`message\`, "OK." or "yes" included, approves nothing). The service then runs the stored call (its tool
and arguments, not what the model asks again) once, before the model answers; the event \`tool.call\` has \`approved: true\` and
the call's \`callId\` as \`id\`. A call waits ${CONFIRMATION_MINUTES} minutes; \`decline\` ends it sooner. Each id is one call, and a
request approves at most one destructive call (delete, cancel, decline, unbind). A call id that is not yours, not this room's,
already approved or declined (by this request or another, even at the same instant) or expired: 409 \`approval_not_pending\`
(\`details.callIds\`), and nothing of the request is recorded or run. The assistant acts through your grant "Check-in app
assistant" (/api/v3/me/mcp-grants), made on first use; once you revoke it, a request with \`useMCP\` or \`approve\` answers 403
\`assistant_disabled\` until one sends \`enableAssistant: true\`. Caps: \`message\` ${CHAT_LIMITS.messageChars} characters,
\`textContent\` ${CHAT_LIMITS.textContentChars}, an image ${CHAT_LIMITS.imageBytes} bytes, the room's last ${CHAT_LIMITS.historyMessages}
messages up to ${CHAT_LIMITS.historyChars} characters as context, ${CHAT_LIMITS.toolRounds} tool rounds of at most ${CHAT_LIMITS.toolCallsPerRound}
calls, tool results cut at ${CHAT_LIMITS.toolResultChars} characters for the model (shown as \`{ clipped, characters }\`). Rate limited per person (CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE, 20 by default).`;

export const chatRoute = functionRoute({
  name: "chat-with-assistant",
  operationId: "chatWithAssistant",
  summary: "Chat with the assistant",
  description: DESCRIPTION,
  body: ChatRequestSchema,
  bodyRequired: true,
  response: { description: "The answer, as Server-Sent Events", content: { "text/event-stream": { schema: ChatStreamEventSchema } } },
});
