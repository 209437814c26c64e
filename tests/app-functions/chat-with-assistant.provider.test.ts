// chat-with-assistant when the provider misbehaves, with the real `openai` client against the
// stand-in: a 429 waited out, a Retry-After too long to wait, a provider that stays down or refuses
// the request (error bodies, and the same messageId may be sent again), a stream cut mid-way or
// gone silent (error event, the answer stored incomplete), and a client that disconnects (the
// provider's request ended, the partial answer stored as incomplete).
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody } from "../setup/test-context.ts";
import { type ChatWorld, eventsOf, finalOf, newMessageId, readEvents, startChatWorld, textOf, typesOf } from "./chat-fixtures.ts";
import { expectScriptedAnswersUsed } from "./function-fixtures.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

let chat: ChatWorld;
beforeAll(async () => {
  chat = await startChatWorld();
});
afterEach(() => expectScriptedAnswersUsed(chat.standIn));
afterAll(() => chat?.close());

const answerOf = async (world: ChatWorld, userId: string, messageId: string) => {
  const [row] = await world.world.t.owner<{ content: string; status: string }[]>`
    select content, status from chat.messages where owner_id = ${userId} and in_reply_to = ${messageId}`;
  return row;
};

describe("before the stream starts", () => {
  it("waits out a 429 for the Retry-After it names, then streams the answer", async () => {
    const { token } = await chat.person();
    chat.standIn.scriptChat({ error: { status: 429, retryAfterSeconds: 1 } }, { text: "After the wait." });
    const started = Date.now();
    const events = await chat.ask(token, { roomId: "room-p1", messageId: newMessageId(), message: "hi" });

    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(finalOf(events)).toMatchObject({ success: true, message: "After the wait." });
    expect(chat.standIn.requests.map((r) => r.status)).toEqual([429, 200]);
    // The client's own retries are off: each try is a first try to it.
    expect(chat.standIn.requests.map((r) => r.headers["x-stainless-retry-count"])).toEqual(["0", "0"]);
  });

  it("does not wait for a Retry-After over its cap: 503 with that Retry-After, and the same messageId asks again later", async () => {
    const { user, token } = await chat.person();
    const body = { roomId: "room-p2", messageId: newMessageId(), message: "hi" };
    chat.standIn.scriptChat({ error: { status: 429, retryAfterSeconds: 30 } });
    const started = Date.now();
    const refused = await chat.chat(token, body);
    expect(Date.now() - started).toBeLessThan(2000);
    const error = await expectErrorBody(refused, 503, "provider_unavailable");
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(error.details).toEqual({ providerStatus: 429 });
    expect(await answerOf(chat, user.id, body.messageId)).toBeUndefined();

    chat.standIn.scriptChat({ text: "Back again." });
    expect(finalOf(await chat.ask(token, body))).toMatchObject({ success: true, message: "Back again." });
    expect(chat.standIn.requests).toHaveLength(2);
  });

  it("stops waiting to try again as soon as the client goes away, and keeps no answer", async () => {
    const { user, token } = await chat.person();
    const messageId = newMessageId();
    chat.standIn.scriptChat({ error: { status: 429, retryAfterSeconds: 3 } });
    const disconnect = new AbortController();
    const asked = chat.chat(token, { roomId: "room-p8", messageId, message: "hi" }, disconnect.signal);
    await expect.poll(() => chat.standIn.requests.length).toBe(1);
    disconnect.abort();
    await expect(asked).rejects.toThrow();

    // The abandoned claim is deleted at once, not after the 3 s the provider asked for.
    const abandoned = Date.now();
    await expect.poll(() => chat.world.t.owner`select 1 from chat.messages where owner_id = ${user.id} and role = 'user'`).toHaveLength(1);
    await expect.poll(() => answerOf(chat, user.id, messageId), { timeout: 1000 }).toBeUndefined();
    expect(Date.now() - abandoned).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 3200));
    expect(chat.standIn.requests).toHaveLength(1);
  });

  it("answers 503 provider_unavailable when the provider stays down after three tries", async () => {
    const { token } = await chat.person();
    const down = { error: { status: 500 } };
    chat.standIn.scriptChat(down, down, down);
    await expectErrorBody(await chat.chat(token, { roomId: "room-p3", messageId: newMessageId(), message: "hi" }), 503, "provider_unavailable");
    expect(chat.standIn.requests.map((r) => r.status)).toEqual([500, 500, 500]);
  });

  it("answers 503 when nothing listens at the provider's address, and 502 when the provider refuses the request", async () => {
    const probe = createServer();
    await listenOnLoopback(probe);
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const nowhere = await startChatWorld({ ASSISTANT_BASE_URL: `http://127.0.0.1:${port}/v1` });
    try {
      const { token } = await nowhere.person();
      await expectErrorBody(await nowhere.chat(token, { roomId: "room-p4", messageId: newMessageId(), message: "hi" }), 503, "provider_unavailable");
    } finally {
      await nowhere.close();
    }

    const { token } = await chat.person();
    chat.standIn.scriptChat({ error: { status: 401, message: "Incorrect API key provided: sk-stand*****-key." } });
    const refused = await expectErrorBody(await chat.chat(token, { roomId: "room-p4", messageId: newMessageId(), message: "hi" }), 502, "provider_error");
    expect(refused.message).toBe("The AI provider refused the request (HTTP 401).");
    expect(chat.standIn.requests).toHaveLength(1);
  });
});

describe("once the stream has started", () => {
  it("ends a stream cut mid-way with an error event and stores the partial answer as incomplete; a retry replays it", async () => {
    const { user, token } = await chat.person();
    const body = { roomId: "room-p5", messageId: newMessageId(), message: "hi" };
    chat.standIn.scriptChat({ text: "This answer will not arrive whole.", stream: { chunkSize: 5, dropAfterChunks: 3 } });
    const events = await chat.ask(token, body);

    expect(typesOf(events)).toEqual(["message.start", "message.delta", "message.delta", "error", "done"]);
    expect(events.at(-2)!.data).toEqual({ code: "provider_stream_interrupted", message: expect.any(String) });
    expect(finalOf(events)).toMatchObject({ success: false, message: "This answe", status: "incomplete", code: "provider_stream_interrupted" });
    expect(await answerOf(chat, user.id, body.messageId)).toEqual({ content: "This answe", status: "incomplete" });

    const again = await chat.ask(token, body);
    expect(finalOf(again)).toMatchObject({ success: false, message: "This answe", status: "incomplete", code: "answer_incomplete", replayed: true });
    expect(chat.standIn.requests).toHaveLength(1);
  });

  it("keeps a quiet stream alive with comment lines, which the events skip, and stops once the answer ends", async () => {
    const quiet = await startChatWorld({ ASSISTANT_KEEPALIVE_MS: "100" });
    try {
      const { token } = await quiet.person();
      quiet.standIn.scriptChat({ text: "Slowly now.", stream: { chunkSize: 6, delayMs: 350 } });
      const response = await quiet.chat(token, { roomId: "room-k", messageId: newMessageId(), message: "Take your time" });
      const body = await response.text();
      expect(body.match(/^: keep-alive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
      const events = await readEvents(new Response(body, { headers: response.headers }));
      expect(textOf(events)).toBe("Slowly now.");
      expect(body.endsWith(`event: done\ndata: ${JSON.stringify(finalOf(events))}\n\n`), "nothing after the final event").toBe(true);
    } finally {
      await quiet.close();
    }
  });

  it("ends an answer whose provider falls silent, after ASSISTANT_TIMEOUT_MS", async () => {
    const slow = await startChatWorld({ ASSISTANT_TIMEOUT_MS: "300" });
    try {
      const { user, token } = await slow.person();
      const messageId = newMessageId();
      slow.standIn.scriptChat({ text: "One, two, three.", stream: { chunkSize: 5, delayMs: 1500 } });
      const events = await slow.ask(token, { roomId: "room-p6", messageId, message: "Count" });

      expect(events.at(-2)!.data).toMatchObject({ code: "provider_timeout" });
      expect(finalOf(events)).toMatchObject({ success: false, status: "incomplete", code: "provider_timeout" });
      await expect.poll(() => slow.standIn.requests[0]!.ended).toBe("client-closed");
      expect(await answerOf(slow, user.id, messageId)).toMatchObject({ status: "incomplete" });
    } finally {
      await slow.close();
    }
  });

  it("ends the provider's request when the client disconnects, and stores the partial answer as incomplete", async () => {
    const { user, token } = await chat.person();
    const messageId = newMessageId();
    const text = "A long answer that the person will not wait for, told slowly.";
    chat.standIn.scriptChat({ text, stream: { chunkSize: 4, delayMs: 60 } });
    const disconnect = new AbortController();
    const response = await chat.chat(token, { roomId: "room-p7", messageId, message: "Tell me everything" }, disconnect.signal);
    let received = "";
    await expect((async () => {
      for await (const event of eventsOf(response)) {
        if (event.type !== "message.delta") continue;
        received += event.data.text;
        if (received.length >= 8) disconnect.abort();
      }
    })()).rejects.toThrow();

    await expect.poll(() => chat.standIn.requests[0]!.ended).toBe("client-closed");
    await expect.poll(() => answerOf(chat, user.id, messageId)).toMatchObject({ status: "incomplete" });
    const stored = await answerOf(chat, user.id, messageId);
    expect(stored!.content.length).toBeGreaterThanOrEqual(8);
    expect(text.startsWith(stored!.content)).toBe(true);
    expect(stored!.content.length).toBeLessThan(text.length);
  });
});
