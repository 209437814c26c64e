// The stand-in OpenAI API against the real `openai` client: what the chat and transcription
// functions will meet (streamed text and tool calls cut across chunks, the tool-result round trip,
// retries on 429 and 500, a stream cut mid-way, a client that goes away, multipart uploads, keys),
// so a test of the service can trust that a behaviour it sees is the client's, not the stand-in's.
import { createHash, randomBytes } from "node:crypto";
import OpenAI, { type ClientOptions, toFile } from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type OpenAIStandIn, startOpenAIStandIn, UPLOAD_LIMIT_BYTES } from "../../scripts/lib/openai-stand-in.ts";

let standIn: OpenAIStandIn;
beforeAll(async () => {
  standIn = await startOpenAIStandIn();
});
afterEach(() => {
  const unused = standIn.unused();
  standIn.reset();
  expect(unused, "every scripted answer was asked for").toEqual({ chat: 0, transcription: 0 });
});
afterAll(() => standIn?.close());

const MODEL = "gpt-4o-mini";
const clientFor = (options: ClientOptions = {}) => new OpenAI({ baseURL: `${standIn.url}/v1`, apiKey: standIn.apiKey, maxRetries: 0, ...options });
const retryCounts = () => standIn.requests.map((r) => r.headers["x-stainless-retry-count"]);
const ask = (content: string): ChatCompletionMessageParam[] => [{ role: "user", content }];

const LIST_MY_EVENTS = {
  name: "list_my_events",
  description: "The events the signed-in person organises",
  parameters: { type: "object", properties: { city: { type: "string" }, limit: { type: "integer" } }, required: ["city"] },
};
const listMyEvents: ChatCompletionTool = { type: "function", function: LIST_MY_EVENTS };
const EVENTS_ARGUMENTS = { city: "Lisbon", limit: 5, note: "arguments long enough to be cut into several chunks" };

describe("chat completions", () => {
  it("answers a completion with the scripted text, usage, and records the request without the key", async () => {
    standIn.scriptChat({ text: "Two events this week." });
    const completion = await clientFor().chat.completions.create({ model: MODEL, messages: ask("What is on?") });

    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]).toMatchObject({ finish_reason: "stop", message: { role: "assistant", content: "Two events this week." } });
    const { prompt_tokens, completion_tokens, total_tokens } = completion.usage!;
    expect(prompt_tokens).toBeGreaterThan(0);
    expect(total_tokens).toBe(prompt_tokens + completion_tokens);

    const [request] = standIn.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/chat/completions", authorized: true, status: 200, ended: "complete" });
    expect(request!.body).toMatchObject({ model: MODEL, messages: ask("What is on?") });
    expect(request!.headers).not.toHaveProperty("authorization");
    expect(JSON.stringify(request)).not.toContain(standIn.apiKey);
  });

  it("echoes the last message when nothing is scripted", async () => {
    const completion = await clientFor().chat.completions.create({ model: MODEL, messages: ask("ping") });
    expect(completion.choices[0]!.message.content).toBe("echo: ping");
  });

  it("streams text in chunks that the client puts back together, usage last when asked for", async () => {
    const text = "Your next event is the Lisbon meetup on Friday.";
    standIn.scriptChat({ text, stream: { chunkSize: 4 } });
    const stream = await clientFor().chat.completions.create({ model: MODEL, messages: ask("Next?"), stream: true, stream_options: { include_usage: true } });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const contentChunks = chunks.filter((c) => c.choices[0]?.delta.content);
    expect(contentChunks.length).toBe(Math.ceil(text.length / 4));
    expect(contentChunks.map((c) => c.choices[0]!.delta.content).join("")).toBe(text);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("stop");
    // With include_usage every chunk carries usage: null, and one last chunk with no choices carries the totals.
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it("streams a tool call whose arguments arrive in pieces, and the client's stream helper reassembles them", async () => {
    standIn.scriptChat({ toolCalls: [{ name: "list_my_events", arguments: EVENTS_ARGUMENTS, id: "call_events" }], stream: { chunkSize: 7 } });
    const stream = clientFor().chat.completions.stream({ model: MODEL, messages: ask("My events in Lisbon?"), tools: [listMyEvents] });
    const argumentPieces: string[] = [];
    const toolCallDeltas: NonNullable<ChatCompletionChunk.Choice.Delta["tool_calls"]> = [];
    stream.on("tool_calls.function.arguments.delta", (event) => argumentPieces.push(event.arguments_delta));
    stream.on("chunk", (chunk) => toolCallDeltas.push(...(chunk.choices[0]?.delta.tool_calls ?? [])));
    const final = await stream.finalChatCompletion();

    const serialised = JSON.stringify(EVENTS_ARGUMENTS);
    expect(argumentPieces.filter(Boolean).length).toBe(Math.ceil(serialised.length / 7));
    expect(argumentPieces.join("")).toBe(serialised);
    // The id and the name come once, in the call's first delta; the rest carry arguments only.
    expect(toolCallDeltas.filter((d) => d.id)).toEqual([{ index: 0, id: "call_events", type: "function", function: { name: "list_my_events", arguments: "" } }]);
    expect(toolCallDeltas.slice(1).every((d) => !d.id && !d.function?.name && d.function?.arguments)).toBe(true);

    const choice = final.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call).toMatchObject({ id: "call_events", type: "function", function: { name: "list_my_events" } });
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual(EVENTS_ARGUMENTS);
  });

  it("answers the tool results of the next request, and refuses tool messages that answer no call, as OpenAI does", async () => {
    const client = clientFor();
    standIn.scriptChat(
      { toolCalls: [{ name: "list_my_events", arguments: { city: "Lisbon" } }, { name: "list_my_events", arguments: { city: "Porto" } }] },
      (body) => {
        const results = body.messages.filter((m) => m.role === "tool").map((m) => m.content);
        return { text: `You have ${results.join(" and ")}.` };
      },
    );
    const messages: ChatCompletionMessageParam[] = ask("Lisbon and Porto?");
    const first = await client.chat.completions.create({ model: MODEL, messages, tools: [listMyEvents] });
    const assistant = first.choices[0]!.message;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(assistant.tool_calls).toHaveLength(2);

    const toolResults = assistant.tool_calls!.map((call, i): ChatCompletionMessageParam => ({ role: "tool", tool_call_id: call.id, content: ["1 event in Lisbon", "2 events in Porto"][i]! }));
    const second = await client.chat.completions.create({ model: MODEL, messages: [...messages, assistant, ...toolResults], tools: [listMyEvents] });
    expect(second.choices[0]!.message.content).toBe("You have 1 event in Lisbon and 2 events in Porto.");
    expect(standIn.requests[1]!.body!.messages.slice(-2)).toEqual(toolResults);

    // A result for a call the assistant never made, and a call left unanswered: 400, nothing scripted is spent.
    const stray = client.chat.completions.create({ model: MODEL, messages: [...messages, { role: "tool", tool_call_id: "call_nobody_made", content: "x" }] });
    await expect(stray).rejects.toMatchObject({ status: 400, param: "messages.[1].role" });
    const unanswered = client.chat.completions.create({ model: MODEL, messages: [...messages, assistant, toolResults[0]!] });
    await expect(unanswered).rejects.toThrow(/did not have response messages: call_/);
    await expect(unanswered).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("runs the client's own tool loop (runTools, streamed) to the final answer", async () => {
    standIn.scriptChat(
      { toolCalls: [{ name: "list_my_events", arguments: { city: "Lisbon" } }], stream: { chunkSize: 3 } },
      (body) => ({ text: `Found: ${body.messages.at(-1)!.content}`, stream: { chunkSize: 3 } }),
    );
    const calledWith: unknown[] = [];
    const runner = clientFor().chat.completions.runTools({
      model: MODEL,
      messages: ask("Lisbon?"),
      stream: true,
      tools: [{
        type: "function",
        function: {
          ...LIST_MY_EVENTS,
          parse: JSON.parse,
          function: (args: unknown) => {
            calledWith.push(args);
            return "the Lisbon meetup";
          },
        },
      }],
    });
    expect(await runner.finalContent()).toBe("Found: the Lisbon meetup");
    expect(calledWith).toEqual([{ city: "Lisbon" }]);
  });

  it("refuses an unknown model with 404 model_not_found and lists the models it knows", async () => {
    const client = clientFor();
    await expect(client.chat.completions.create({ model: "gpt-nonexistent", messages: ask("hi") })).rejects.toMatchObject({ status: 404, code: "model_not_found" });
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(standIn.models);
  });
});

describe("failures the client retries, and those it does not", () => {
  it("retries a 429 after the retry-after it was given, then succeeds", async () => {
    standIn.scriptChat({ error: { status: 429, retryAfterSeconds: 1 } }, { text: "after the wait" });
    const started = Date.now();
    const completion = await clientFor({ maxRetries: 2 }).chat.completions.create({ model: MODEL, messages: ask("hi") });

    expect(completion.choices[0]!.message.content).toBe("after the wait");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(standIn.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(retryCounts()).toEqual(["0", "1"]);
  });

  it("prefers retry-after-ms to retry-after", async () => {
    standIn.scriptChat({ error: { status: 429, retryAfterSeconds: 30, retryAfterMs: 200 } }, { text: "soon" });
    const started = Date.now();
    await clientFor({ maxRetries: 1 }).chat.completions.create({ model: MODEL, messages: ask("hi") });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(5_000);
  });

  it("gives up after maxRetries on 500 with an InternalServerError carrying OpenAI's body", async () => {
    const serverError = { error: { status: 500 } };
    standIn.scriptChat(serverError, serverError, serverError);
    const failing = clientFor({ maxRetries: 2 }).chat.completions.create({ model: MODEL, messages: ask("hi") });

    const error = await failing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 500, type: "server_error", error: { message: expect.stringContaining("server had an error") } });
    expect(retryCounts()).toEqual(["0", "1", "2"]);
  });

  it("retries a connection cut before any answer", async () => {
    standIn.scriptChat({ fault: "disconnect" }, { text: "second try" });
    const completion = await clientFor({ maxRetries: 1 }).chat.completions.create({ model: MODEL, messages: ask("hi") });
    expect(completion.choices[0]!.message.content).toBe("second try");
    expect(standIn.requests.map((r) => r.ended)).toEqual(["dropped", "complete"]);
  });

  it("surfaces a stream cut mid-way as an error to the consumer, and does not retry it", async () => {
    standIn.scriptChat({ text: "This answer will not arrive whole.", stream: { chunkSize: 5, dropAfterChunks: 3 } });
    const stream = await clientFor({ maxRetries: 2 }).chat.completions.create({ model: MODEL, messages: ask("hi"), stream: true });
    let received = "";
    const consumed = (async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? "";
    })();

    // Not an APIError: undici's own "terminated" reaches the loop.
    await expect(consumed).rejects.toThrow("terminated");
    // The three chunks sent: the role, then two pieces of five characters.
    expect(received).toBe("This answe");
    expect(standIn.requests).toHaveLength(1);
    expect(standIn.requests[0]).toMatchObject({ status: 200, ended: "dropped" });
  });

  it("times out a request that gets no answer, and the timeout does not cover a slow stream once it has started", async () => {
    standIn.scriptChat({ fault: "hang" });
    await expect(clientFor({ timeout: 200 }).chat.completions.create({ model: MODEL, messages: ask("hi") })).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    await expect.poll(() => standIn.requests[0]!.ended).toBe("client-closed");

    standIn.scriptChat({ text: "slow but whole", stream: { chunkSize: 4, delayMs: 100 } });
    const stream = clientFor({ timeout: 200 }).chat.completions.stream({ model: MODEL, messages: ask("hi") });
    expect(await stream.finalContent()).toBe("slow but whole");
  });

  it("stops reading when the caller aborts mid-stream; the stand-in sees the client go away", async () => {
    standIn.scriptChat({ text: "a long answer that the person will not wait for", stream: { chunkSize: 4, delayMs: 50 } });
    const abort = new AbortController();
    const stream = await clientFor().chat.completions.create({ model: MODEL, messages: ask("hi"), stream: true }, { signal: abort.signal });
    let chunks = 0;
    for await (const _chunk of stream) {
      if (++chunks === 3) abort.abort();
    }
    // The raw stream ends quietly on abort (no error): the caller has to look at its signal.
    expect(chunks).toBe(3);
    await expect.poll(() => standIn.requests[0]!.ended).toBe("client-closed");
  });
});

describe("audio transcriptions", () => {
  const audio = Buffer.concat([Buffer.from("ID3\x04\x00\x00", "latin1"), randomBytes(64 * 1024)]);

  it("takes a multipart upload made with toFile and answers the scripted text; the stand-in saw every byte", async () => {
    standIn.scriptTranscription({ text: "Bonjour à tous." });
    const transcription = await clientFor().audio.transcriptions.create({ file: await toFile(audio, "a.mp3"), model: "whisper-1", language: "fr" });

    expect(transcription.text).toBe("Bonjour à tous.");
    const [request] = standIn.requests;
    expect(request).toMatchObject({ path: "/v1/audio/transcriptions", status: 200, form: { fields: { model: "whisper-1", language: "fr" } } });
    expect(request!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(request!.form!.file).toEqual({
      name: "a.mp3",
      type: "application/octet-stream", // toFile does not guess a type from the name
      size: audio.length,
      sha256: createHash("sha256").update(audio).digest("hex"),
      firstBytes: audio.subarray(0, 16).toString("hex"),
    });
  });

  it("answers plain text for response_format text", async () => {
    standIn.scriptTranscription({ text: "plain words" });
    const text = await clientFor().audio.transcriptions.create({ file: await toFile(audio, "note.webm"), model: "whisper-1", response_format: "text" });
    expect(text).toBe("plain words");
  });

  it("refuses a file name without an audio extension, and an upload over OpenAI's 26214400-byte limit (413, not retried)", async () => {
    const client = clientFor({ maxRetries: 2 });
    await expect(client.audio.transcriptions.create({ file: await toFile(audio, "a.txt"), model: "whisper-1" })).rejects.toThrow(/Invalid file format/);

    // Exactly the limit in audio: the multipart framing around it takes the request over.
    const atTheLimit = Buffer.alloc(UPLOAD_LIMIT_BYTES);
    const tooLarge = client.audio.transcriptions.create({ file: await toFile(atTheLimit, "long.mp3"), model: "whisper-1" });
    await expect(tooLarge).rejects.toMatchObject({ status: 413, type: "server_error", message: expect.stringContaining("Maximum content size limit (26214400) exceeded") });
    expect(standIn.requests.map((r) => r.status)).toEqual([400, 413]);
  });
});

describe("keys", () => {
  it("refuses a request without a key or with another key: 401 AuthenticationError, not retried", async () => {
    const noKey = clientFor({ defaultHeaders: { Authorization: null }, maxRetries: 2 });
    const missing = await noKey.chat.completions.create({ model: MODEL, messages: ask("hi") }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(missing).toMatchObject({ status: 401, type: "invalid_request_error", message: expect.stringContaining("You didn't provide an API key") });

    const wrong = clientFor({ apiKey: "sk-someone-elses-key", maxRetries: 2 }).chat.completions.create({ model: MODEL, messages: ask("hi") });
    await expect(wrong).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
    await expect(wrong).rejects.not.toThrow("sk-someone-elses-key");

    expect(standIn.requests.map((r) => [r.authorized, r.status])).toEqual([[false, 401], [false, 401]]);
  });
});
