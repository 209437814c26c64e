// A stand-in OpenAI API for tests and benchmarks: no model runs on this machine, so this speaks the
// part of the HTTP API the service calls through the real `openai` client, and answers what the
// test scripted.
//
//   POST /v1/chat/completions      JSON, or SSE with `stream: true` (chunks, usage, data: [DONE]);
//                                  text or tool calls, a streamed call's arguments cut across chunks
//   POST /v1/audio/transcriptions  multipart: file, model, language, response_format json | text
//   GET  /v1/models                the models the stand-in accepts
//
// Each request takes the next scripted answer of its endpoint: a reply, an HTTP error with
// OpenAI's body (429 with retry-after, 500, ...) or a connection fault (cut before answering, cut
// mid-stream, never answered). With nothing scripted it answers deterministically: chat says
// "echo: " and the last message's text, a transcription names the file it got. Requests are
// checked as OpenAI checks them (bearer key, known model, tool messages answering the tool calls
// before them, audio file extension, 26214400-byte upload limit) and refused with OpenAI's error
// body. Whatever the stand-in does not model (n > 1, other transcription formats) is refused
// rather than answered half right. Token counts are an estimate (four characters a token); a
// transcription carries no usage, since the stand-in does not decode the audio.
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { serveOnLoopback } from "./listen.ts";
import type { Transcription } from "openai/resources/audio/transcriptions";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
  ChatCompletionMessageFunctionToolCall,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";

export interface ScriptedToolCall {
  name: string;
  /** JSON text (sent as is, even if malformed), or a value the stand-in serialises. */
  arguments: string | Record<string, unknown>;
  /** Default: a fresh `call_…` id. */
  id?: string;
}

/** How a streamed reply is cut and paced; a request that did not ask for a stream gets it whole. */
export interface StreamPlan {
  /** Characters of content, or of a tool call's arguments, per chunk (default 6). */
  chunkSize?: number;
  /** Pause before every chunk after the first. */
  delayMs?: number;
  /** Destroy the socket after this many `data:` chunks, 1 or more (a cut before any is the fault "disconnect"). */
  dropAfterChunks?: number;
}

export type ChatReply =
  | { text: string; finishReason?: "stop" | "length" | "content_filter"; stream?: StreamPlan }
  | { toolCalls: ScriptedToolCall[]; text?: string; stream?: StreamPlan };

/** An HTTP error with OpenAI's body; message, type and code default to OpenAI's for the status. */
export interface ScriptedError {
  status: number;
  message?: string;
  type?: string;
  code?: string | null;
  retryAfterSeconds?: number;
  retryAfterMs?: number;
}

/** "disconnect": the socket is destroyed before any answer; "hang": no answer until the client gives up. */
export type ConnectionFault = "disconnect" | "hang";

export type Failure = { error: ScriptedError } | { fault: ConnectionFault };
export type ChatAnswer = ChatReply | Failure;
export type TranscriptionAnswer = { text: string } | Failure;

export interface ReceivedFile {
  name: string;
  type: string;
  size: number;
  sha256: string;
  /** The first 16 bytes, hex. */
  firstBytes: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-case names, without `authorization` (see `authorized`). */
  headers: Record<string, string>;
  authorized: boolean;
  /** Chat completions: the JSON body as parsed. */
  body?: ChatCompletionCreateParams;
  /** Transcriptions: the form's text fields and its file. */
  form?: { fields: Record<string, string>; file?: ReceivedFile };
  /** The HTTP status answered; null while unanswered or when the connection was cut first. */
  status: number | null;
  /**
   * "complete": the whole answer was sent; "dropped": the stand-in cut the connection as scripted;
   * "client-closed": the client went away before the answer ended; "open": still going.
   */
  ended: "complete" | "dropped" | "client-closed" | "open";
}

export interface OpenAIStandInOptions {
  port?: number;
  apiKey?: string;
  /** The models it accepts (others: 404 model_not_found). */
  models?: string[];
}

export interface OpenAIStandIn {
  /** The origin; the client's baseURL is `${url}/v1`. */
  url: string;
  apiKey: string;
  models: string[];
  /** Every request in arrival order, refused ones included. */
  requests: RecordedRequest[];
  /** Queues answers for the next chat completion requests; a function answers from the request's body. */
  scriptChat(...answers: Array<ChatAnswer | ((body: ChatCompletionCreateParams) => ChatAnswer)>): void;
  scriptTranscription(...answers: TranscriptionAnswer[]): void;
  /** Scripted answers not taken yet. */
  unused(): { chat: number; transcription: number };
  /** Forgets the scripts and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_MODELS = ["gpt-4o-mini", "gpt-4.1-mini", "whisper-1", "gpt-4o-mini-transcribe"];

/** OpenAI's limit on a whole upload request, multipart framing included. */
export const UPLOAD_LIMIT_BYTES = 26_214_400;

const AUDIO_EXTENSIONS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"];
const DEFAULT_CHUNK_SIZE = 6;

/** A refusal, answered with OpenAI's error body. */
class ErrorAnswer extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function scriptedError(error: ScriptedError): ErrorAnswer {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  if (error.retryAfterMs !== undefined) headers["retry-after-ms"] = String(error.retryAfterMs);
  const defaults =
    error.status === 429 ? { message: "Rate limit reached for requests (stand-in).", type: "requests", code: "rate_limit_exceeded" }
    : error.status >= 500 ? { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", code: null }
    : { message: `Scripted error ${error.status}.`, type: "invalid_request_error", code: null };
  return new ErrorAnswer(error.status, error.message ?? defaults.message, error.type ?? defaults.type, null, error.code ?? defaults.code, headers);
}

const newId = (prefix: string) => `${prefix}${randomBytes(12).toString("hex")}`;
const tokens = (text: string) => Math.ceil(text.length / 4);
const argumentsText = (call: ScriptedToolCall) => (typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments));

/** Pieces of at most `size` characters, never splitting a character. */
function pieces(text: string, size: number): string[] {
  const characters = Array.from(text);
  const result: string[] = [];
  for (let i = 0; i < characters.length; i += size) result.push(characters.slice(i, i + size).join(""));
  return result;
}

function textOf(message: ChatCompletionMessageParam): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

function promptTokens(messages: ChatCompletionMessageParam[]): number {
  return messages.reduce((sum, message) => {
    const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
    return sum + tokens(textOf(message)) + calls.reduce((s, call) => s + ("function" in call ? tokens(call.function.arguments) : 0), 0) + 4;
  }, 0);
}

/** OpenAI's checks of a conversation's tool messages: each answers a call of the assistant message just before. */
function checkToolMessages(messages: ChatCompletionMessageParam[]): void {
  const missingAnswers = (calls: { index: number; ids: Set<string> }) =>
    new ErrorAnswer(400, `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...calls.ids].join(", ")}`, "invalid_request_error", `messages.[${calls.index}].role`);
  let unanswered: { index: number; ids: Set<string> } | null = null;
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      if (!unanswered) {
        throw new ErrorAnswer(400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", "invalid_request_error", `messages.[${index}].role`);
      }
      if (!unanswered.ids.delete(message.tool_call_id)) {
        throw new ErrorAnswer(400, `Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`, "invalid_request_error", `messages.[${index}].tool_call_id`);
      }
      continue;
    }
    if (unanswered?.ids.size) throw missingAnswers(unanswered);
    unanswered = message.role === "assistant" && message.tool_calls?.length ? { index, ids: new Set(message.tool_calls.map((call) => call.id)) } : null;
  }
  if (unanswered?.ids.size) throw missingAnswers(unanswered);
}

function checkChatBody(body: unknown, models: string[]): ChatCompletionCreateParams {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ErrorAnswer(400, "The body of your request must be a JSON object.");
  const { model, messages, n } = body as Record<string, unknown>;
  if (typeof model !== "string" || !model) throw new ErrorAnswer(400, "you must provide a model parameter");
  if (!models.includes(model)) throw new ErrorAnswer(404, `The model \`${model}\` does not exist or you do not have access to it.`, "invalid_request_error", null, "model_not_found");
  if (!Array.isArray(messages) || messages.length === 0) throw new ErrorAnswer(400, "[] is too short - 'messages'", "invalid_request_error", "messages");
  if (n !== undefined && n !== null && n !== 1) throw new ErrorAnswer(400, "The stand-in answers one choice (n: 1) only.", "invalid_request_error", "n");
  const params = body as ChatCompletionCreateParams;
  checkToolMessages(params.messages);
  return params;
}

/** The deterministic answer when nothing is scripted. */
const echo = (body: ChatCompletionCreateParams): ChatReply => ({ text: `echo: ${textOf(body.messages[body.messages.length - 1]!)}` });

interface RenderedReply {
  content: string | null;
  toolCalls: ChatCompletionMessageFunctionToolCall[];
  finishReason: "stop" | "length" | "content_filter" | "tool_calls";
}

function render(reply: ChatReply): RenderedReply {
  if ("toolCalls" in reply) {
    const toolCalls = reply.toolCalls.map((call): ChatCompletionMessageFunctionToolCall => ({
      id: call.id ?? newId("call_"),
      type: "function",
      function: { name: call.name, arguments: argumentsText(call) },
    }));
    return { content: reply.text ?? null, toolCalls, finishReason: "tool_calls" };
  }
  return { content: reply.text, toolCalls: [], finishReason: reply.finishReason ?? "stop" };
}

function usageOf(body: ChatCompletionCreateParams, reply: RenderedReply): CompletionUsage {
  const prompt = promptTokens(body.messages);
  const completion = tokens(reply.content ?? "") + reply.toolCalls.reduce((sum, call) => sum + tokens(call.function.name + call.function.arguments), 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** The chunks OpenAI streams for a reply: role, content pieces, each call (id and name once, then its arguments in pieces), finish. */
function chunksOf(reply: RenderedReply, chunkSize: number): ChatCompletionChunk.Choice.Delta[] {
  const deltas: ChatCompletionChunk.Choice.Delta[] = [{ role: "assistant", content: reply.content === null ? null : "", refusal: null }];
  for (const piece of pieces(reply.content ?? "", chunkSize)) deltas.push({ content: piece });
  reply.toolCalls.forEach((call, index) => {
    deltas.push({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of pieces(call.function.arguments, chunkSize)) deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  return deltas;
}

const isFailure = (answer: ChatAnswer | TranscriptionAnswer): answer is Failure => "error" in answer || "fault" in answer;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a received file held, read as a stream (no copy of the whole file). */
async function describe(file: File): Promise<ReceivedFile> {
  const hash = createHash("sha256");
  let head = Buffer.alloc(0);
  for await (const chunk of file.stream() as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    if (head.length < 16) head = Buffer.concat([head, chunk.subarray(0, 16 - head.length)]);
  }
  return { name: file.name, type: file.type, size: file.size, sha256: hash.digest("hex"), firstBytes: head.toString("hex") };
}

async function readBody(request: IncomingMessage, limit: number): Promise<{ body: Buffer; size: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Over the limit the rest is read and dropped, so the client gets the 413 instead of a broken pipe.
    if (size <= limit) chunks.push(chunk);
  }
  return { body: Buffer.concat(chunks), size };
}

function maskedKey(key: string): string {
  return key.length > 8 ? `${key.slice(0, 3)}${"*".repeat(key.length - 7)}${key.slice(-4)}` : "*".repeat(key.length);
}

export async function startOpenAIStandIn(options: OpenAIStandInOptions = {}): Promise<OpenAIStandIn> {
  const apiKey = options.apiKey ?? "sk-stand-in-key";
  const models = options.models ?? DEFAULT_MODELS;
  const requests: RecordedRequest[] = [];
  let chatScript: Array<ChatAnswer | ((body: ChatCompletionCreateParams) => ChatAnswer)> = [];
  let transcriptionScript: TranscriptionAnswer[] = [];

  function checkKey(request: IncomingMessage): void {
    const header = request.headers.authorization;
    if (!header) {
      throw new ErrorAnswer(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).");
    }
    const key = header.replace(/^Bearer\s+/i, "");
    if (key !== apiKey) {
      throw new ErrorAnswer(401, `Incorrect API key provided: ${maskedKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`, "invalid_request_error", null, "invalid_api_key");
    }
  }

  function sendJson(response: ServerResponse, entry: RecordedRequest, status: number, value: unknown, headers: Record<string, string> = {}): void {
    entry.status = status;
    response.writeHead(status, { "content-type": "application/json", "x-request-id": newId("req_"), ...headers }).end(JSON.stringify(value));
  }

  function sendError(response: ServerResponse, entry: RecordedRequest, error: ErrorAnswer): void {
    sendJson(response, entry, error.status, { error: { message: error.message, type: error.type, param: error.param, code: error.code } }, error.headers);
  }

  function sendFailure(request: IncomingMessage, response: ServerResponse, entry: RecordedRequest, failure: Failure): void {
    if ("error" in failure) sendError(response, entry, scriptedError(failure.error));
    else if (failure.fault === "disconnect") {
      entry.ended = "dropped";
      request.socket.destroy();
    }
  }

  async function chatCompletions(request: IncomingMessage, response: ServerResponse, entry: RecordedRequest): Promise<void> {
    const { body: raw } = await readBody(request, Infinity);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new ErrorAnswer(400, "We could not parse the JSON body of your request.");
    }
    entry.body = parsed as ChatCompletionCreateParams;
    const body = checkChatBody(parsed, models);
    const scripted = chatScript.shift() ?? echo;
    const answer = typeof scripted === "function" ? scripted(body) : scripted;
    if (isFailure(answer)) return sendFailure(request, response, entry, answer);
    const rendered = render(answer);
    const usage = usageOf(body, rendered);
    const id = newId("chatcmpl-");
    const created = Math.floor(Date.now() / 1000);

    if (!body.stream) {
      const completion: ChatCompletion = {
        id, object: "chat.completion", created, model: body.model, service_tier: "default", system_fingerprint: "fp_stand_in",
        choices: [{
          index: 0, logprobs: null, finish_reason: rendered.finishReason,
          message: { role: "assistant", content: rendered.content, refusal: null, annotations: [], ...(rendered.toolCalls.length ? { tool_calls: rendered.toolCalls } : {}) },
        }],
        usage,
      };
      sendJson(response, entry, 200, completion);
      return;
    }

    const plan = answer.stream ?? {};
    const includeUsage = body.stream_options?.include_usage === true;
    const chunk = (choices: ChatCompletionChunk.Choice[], chunkUsage?: CompletionUsage): ChatCompletionChunk => ({
      id, object: "chat.completion.chunk", created, model: body.model, service_tier: "default", system_fingerprint: "fp_stand_in",
      choices, ...(includeUsage ? { usage: chunkUsage ?? null } : {}),
    });
    const events: ChatCompletionChunk[] = [
      ...chunksOf(rendered, plan.chunkSize ?? DEFAULT_CHUNK_SIZE).map((delta) => chunk([{ index: 0, delta, logprobs: null, finish_reason: null }])),
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: rendered.finishReason }]),
      ...(includeUsage ? [chunk([], usage)] : []),
    ];
    entry.status = 200;
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-request-id": newId("req_") });
    for (const [sent, event] of events.entries()) {
      if (sent === plan.dropAfterChunks) {
        entry.ended = "dropped";
        response.destroy();
        return;
      }
      if (sent > 0 && plan.delayMs) await sleep(plan.delayMs);
      if (response.destroyed) return;
      // Each chunk is on the wire before the next step, so a drop comes after what was sent, not before the headers.
      await new Promise((resolve) => response.write(`data: ${JSON.stringify(event)}\n\n`, resolve));
    }
    response.end("data: [DONE]\n\n");
  }

  async function transcriptions(request: IncomingMessage, response: ServerResponse, entry: RecordedRequest): Promise<void> {
    const { body, size } = await readBody(request, UPLOAD_LIMIT_BYTES);
    if (size > UPLOAD_LIMIT_BYTES) throw new ErrorAnswer(413, `Maximum content size limit (${UPLOAD_LIMIT_BYTES}) exceeded (${size} bytes read)`, "server_error");
    const contentType = request.headers["content-type"] ?? "";
    if (!contentType.startsWith("multipart/form-data")) {
      throw new ErrorAnswer(400, `Invalid Content-Type header (${contentType}), expected multipart/form-data.`);
    }
    let form: FormData;
    try {
      form = await new Request("http://stand-in/", { method: "POST", headers: { "content-type": contentType }, body: new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength) }).formData();
    } catch (error) {
      throw new ErrorAnswer(400, `Could not parse multipart form: ${(error as Error).message}`);
    }
    const fields: Record<string, string> = {};
    let file: File | undefined;
    for (const [name, value] of form.entries()) {
      if (typeof value === "string") fields[name] = value;
      else if (name === "file") file = value;
    }
    entry.form = { fields, ...(file ? { file: await describe(file) } : {}) };
    if (!file) throw new ErrorAnswer(400, "file: field required", "invalid_request_error", "file");
    if (!fields.model) throw new ErrorAnswer(400, "model: field required", "invalid_request_error", "model");
    if (!models.includes(fields.model)) throw new ErrorAnswer(404, `The model \`${fields.model}\` does not exist or you do not have access to it.`, "invalid_request_error", null, "model_not_found");
    const extension = /\.([^.]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? "";
    if (!AUDIO_EXTENSIONS.includes(extension)) {
      throw new ErrorAnswer(400, `Invalid file format. Supported formats: [${AUDIO_EXTENSIONS.map((e) => `'${e}'`).join(", ")}]`);
    }
    const format = fields.response_format ?? "json";
    if (format !== "json" && format !== "text") {
      throw new ErrorAnswer(400, `The stand-in renders response_format json and text, not ${format}.`, "invalid_request_error", "response_format");
    }

    const answer = transcriptionScript.shift() ?? { text: `transcript of ${file.name} (${file.size} bytes)` };
    if (isFailure(answer)) return sendFailure(request, response, entry, answer);
    const { text } = answer;
    if (format === "text") {
      entry.status = 200;
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-request-id": newId("req_") }).end(text);
      return;
    }
    const transcription: Transcription = { text };
    sendJson(response, entry, 200, transcription);
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://stand-in").pathname;
    const { authorization, ...headers } = request.headers;
    const entry: RecordedRequest = {
      method: request.method ?? "GET",
      path,
      headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : (value ?? "")])),
      authorized: authorization === `Bearer ${apiKey}`,
      status: null,
      ended: "open",
    };
    requests.push(entry);
    response.on("close", () => {
      if (entry.ended === "open") entry.ended = response.writableFinished ? "complete" : "client-closed";
    });
    try {
      checkKey(request);
      const route = `${entry.method} ${path}`;
      if (route === "POST /v1/chat/completions") await chatCompletions(request, response, entry);
      else if (route === "POST /v1/audio/transcriptions") await transcriptions(request, response, entry);
      else if (route === "GET /v1/models") {
        sendJson(response, entry, 200, { object: "list", data: models.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "stand-in" })) });
      } else throw new ErrorAnswer(404, `Invalid URL (${route})`);
    } catch (error) {
      if (!(error instanceof ErrorAnswer)) throw error;
      sendError(response, entry, error);
    }
  }

  // A bug of the stand-in is a 500: the real service's own refusals are answered in `answer`.
  const server = await serveOnLoopback("openai-stand-in", answer, { port: options.port });

  return {
    url: server.url,
    apiKey,
    models,
    requests,
    scriptChat(...answers) {
      chatScript.push(...answers);
    },
    scriptTranscription(...answers) {
      transcriptionScript.push(...answers);
    },
    unused: () => ({ chat: chatScript.length, transcription: transcriptionScript.length }),
    reset() {
      chatScript = [];
      transcriptionScript = [];
      requests.length = 0;
    },
    close: server.close,
  };
}
