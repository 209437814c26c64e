// chat-with-assistant answering a person: the answer streamed as Server-Sent Events to supabase-js
// signed in by e-mail code (functions.invoke hands back the raw Response), both messages stored in the person's room,
// the room's conversation sent to the model with the next message, a retried messageId answered
// from storage without asking the model again, messages that came from a voice recording or with an
// image, and the request's own refusals (model, provider, caps).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody } from "../setup/test-context.ts";
import { type ChatWorld, finalOf, newMessageId, readEvents, startChatWorld, textOf, typesOf } from "./chat-fixtures.ts";
import { expectScriptedAnswersUsed } from "./function-fixtures.ts";

let chat: ChatWorld;
beforeAll(async () => {
  chat = await startChatWorld();
});
afterEach(() => expectScriptedAnswersUsed(chat.standIn));
afterAll(() => chat?.close());

const stored = (roomId: string) => chat.world.t.owner<{ message_id: string; role: string; content: string; origin: string; status: string; in_reply_to: string | null; model: string | null }[]>`
  select message_id, role, content, origin, status, in_reply_to, model from chat.messages where room_id = ${roomId} order by created_at, role desc`;

describe("a streamed answer", () => {
  it("reaches supabase-js as the raw event stream, piece by piece, and ends with SPEC's fields", async () => {
    const supabase = await chat.signedInApp();
    const text = "Two events tonight: the Lisbon meetup and a gallery opening.";
    chat.standIn.scriptChat({ text, stream: { chunkSize: 5 } });
    const messageId = newMessageId();
    // The client sends its session's token itself.
    const { data, error } = await supabase.functions.invoke("chat-with-assistant", { body: { roomId: "room-a", messageId, message: "What is on tonight?" } });
    expect(error).toBeNull();
    expect(data).toBeInstanceOf(Response);
    const response = data as Response;
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toContain("no-cache");
    const events = await readEvents(response);

    expect(typesOf(events)).toEqual(["message.start", ...Array(Math.ceil(text.length / 5)).fill("message.delta"), "done"]);
    expect(events[0]!.data).toMatchObject({ session_id: "room-a", messageId, model: "gpt-4o-mini", replayed: false });
    expect(textOf(events)).toBe(text);
    expect(finalOf(events)).toEqual({ success: true, message: text, tool_results: [], session_id: "room-a", status: "complete", replayed: false });

    const [request] = chat.standIn.requests;
    expect(request).toMatchObject({ path: "/v1/chat/completions", authorized: true, ended: "complete" });
    expect(request!.body).toMatchObject({ model: "gpt-4o-mini", stream: true });
    expect(request!.body!.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request!.body!.messages[1]).toEqual({ role: "user", content: "What is on tonight?" });
    expect(request!.body).not.toHaveProperty("tools");
  });

  it("stores the person's message and the answer in their room", async () => {
    const { token, user } = await chat.person();
    const messageId = newMessageId();
    chat.standIn.scriptChat({ text: "Nothing tonight." });
    const events = await chat.ask(token, { roomId: "room-b", messageId, message: "Anything tonight?", model: "gpt-4.1-mini", aiProvider: "gateway" });
    const answerId = events[0]!.data.answerId;

    const rows = await chat.world.t.owner`select owner_id, message_id, role, content, status, in_reply_to, model from chat.messages
      where room_id = 'room-b' and owner_id = ${user.id} order by created_at`;
    expect(rows).toEqual([
      { owner_id: user.id, message_id: messageId, role: "user", content: "Anything tonight?", status: "complete", in_reply_to: null, model: null },
      { owner_id: user.id, message_id: answerId, role: "assistant", content: "Nothing tonight.", status: "complete", in_reply_to: messageId, model: "gpt-4.1-mini" },
    ]);
    expect(chat.standIn.requests[0]!.body!.model).toBe("gpt-4.1-mini");
  });

  it("sends the room's earlier conversation with the next message, and another room's never", async () => {
    const { token } = await chat.person();
    chat.standIn.scriptChat({ text: "The meetup starts at 19:00." }, { text: "It is at the Fábrica." }, { text: "Hello." });
    await chat.ask(token, { roomId: "room-c", messageId: newMessageId(), message: "When does the meetup start?" });
    await chat.ask(token, { roomId: "room-c", messageId: newMessageId(), message: "Where?" });
    await chat.ask(token, { roomId: "room-d", messageId: newMessageId(), message: "Hi" });

    const [, second, third] = chat.standIn.requests;
    expect(second!.body!.messages.slice(1)).toEqual([
      { role: "user", content: "When does the meetup start?" },
      { role: "assistant", content: "The meetup starts at 19:00." },
      { role: "user", content: "Where?" },
    ]);
    expect(third!.body!.messages.slice(1)).toEqual([{ role: "user", content: "Hi" }]);
  });
});

describe("a retried messageId", () => {
  it("is answered from storage: the model is asked once", async () => {
    const { token } = await chat.person();
    const body = { roomId: "room-r", messageId: newMessageId(), message: "Any events this weekend?" };
    chat.standIn.scriptChat({ text: "One on Saturday.", stream: { chunkSize: 3 } });
    const first = await chat.ask(token, body);
    const again = await chat.ask(token, body);

    expect(chat.standIn.requests).toHaveLength(1);
    expect(typesOf(again)).toEqual(["message.start", "message.delta", "done"]);
    expect(again[0]!.data).toMatchObject({ answerId: first[0]!.data.answerId, replayed: true });
    expect(textOf(again)).toBe("One on Saturday.");
    expect(finalOf(again)).toEqual({ ...finalOf(first), replayed: true });
    expect(await stored("room-r")).toHaveLength(2);
  });

  it("that arrives while the first is still answering is told so, and the model is still asked once", async () => {
    const { token } = await chat.person();
    const body = { roomId: "room-s", messageId: newMessageId(), message: "Tell me a long story." };
    chat.standIn.scriptChat({ text: "Once upon a time there was a meetup.", stream: { chunkSize: 4, delayMs: 40 } });
    const [first, second] = await Promise.all([chat.ask(token, body), chat.ask(token, body)]);
    const [streamed, told] = first.length > second.length ? [first, second] : [second, first];

    expect(chat.standIn.requests).toHaveLength(1);
    expect(finalOf(streamed)).toMatchObject({ success: true, message: "Once upon a time there was a meetup." });
    expect(finalOf(told)).toMatchObject({ success: false, code: "answer_in_progress", replayed: true });
  });
});

describe("where a message came from", () => {
  const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(64, 7)]);

  it("sends an image to the model as an image part, and keeps the message's origin", async () => {
    const { token } = await chat.person();
    const messageId = newMessageId();
    const image = `data:image/png;base64,${PNG.toString("base64")}`;
    chat.standIn.scriptChat({ text: "A poster of the Lisbon meetup." });
    await chat.ask(token, { roomId: "room-i", messageId, message: "What is this?", imageData: true, textContent: image });

    expect(chat.standIn.requests[0]!.body!.messages.at(-1)).toEqual({
      role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: image } }],
    });
    const [person] = await stored("room-i");
    expect(person).toMatchObject({ message_id: messageId, content: "What is this?", origin: "image" });
  });

  it("keeps a voice message's origin and its transcription as the text the model reads", async () => {
    const { token } = await chat.person();
    const messageId = newMessageId();
    chat.standIn.scriptChat({ text: "Yes, at eight." });
    await chat.ask(token, { roomId: "room-v", messageId, message: "🎤 Voice message", textContent: "Is the gallery open tonight?", audioData: true });

    expect(chat.standIn.requests[0]!.body!.messages.at(-1)).toEqual({ role: "user", content: "Is the gallery open tonight?" });
    const [person] = await stored("room-v");
    expect(person).toMatchObject({ content: "Is the gallery open tonight?", origin: "audio" });
  });

  it("refuses an image that is not one, one over the cap, and origins that disagree", async () => {
    const { token } = await chat.person();
    const body = { roomId: "room-x", messageId: newMessageId(), message: "What is this?", imageData: true };
    const post = (extra: Record<string, unknown>) => chat.chat(token, { ...body, ...extra });
    await expectErrorBody(await post({ textContent: `data:image/png;base64,${Buffer.from("GIF89a-not-a-png").toString("base64")}` }), 400, "invalid_image");
    await expectErrorBody(await post({ textContent: "https://example.com/poster.png" }), 400, "invalid_image");
    await expectErrorBody(await post({}), 400, "image_required");
    const large = Buffer.concat([PNG, Buffer.alloc(512 * 1024)]);
    await expectErrorBody(await post({ textContent: `data:image/png;base64,${large.toString("base64")}` }), 400, "image_too_large");
    await expectErrorBody(await post({ textContent: `data:image/png;base64,${PNG.toString("base64")}`, audioData: true }), 400, "conflicting_origin");
    await expectErrorBody(await chat.chat(token, { ...body, imageData: undefined, originalType: "image" }), 400, "conflicting_origin");
    expect(chat.standIn.requests).toHaveLength(0);
  });
});

describe("refusals before the model is asked", () => {
  it("refuses a model and a provider the service does not offer, and text over the caps", async () => {
    const { token } = await chat.person();
    const body = { roomId: "room-z", messageId: newMessageId(), message: "hi" };
    const unknownModel = await expectErrorBody(await chat.chat(token, { ...body, model: "gpt-5-turbo-max" }), 400, "unknown_model");
    expect(unknownModel.details).toEqual({ allowed: ["gpt-4o-mini", "gpt-4.1-mini"] });
    await expectErrorBody(await chat.chat(token, { ...body, aiProvider: "anthropic" }), 400, "unknown_provider");
    await expectErrorBody(await chat.chat(token, { ...body, message: "x".repeat(8001) }), 400, "validation_failed");
    await expectErrorBody(await chat.chat(token, { ...body, textContent: "x".repeat(100_001) }), 400, "validation_failed");
    await expectErrorBody(await chat.chat(token, { ...body, history: [] }), 400, "validation_failed");
    expect(chat.standIn.requests).toHaveLength(0);
    expect(await stored("room-z")).toHaveLength(0);
  });
});
