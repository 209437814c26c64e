// transcribe-audio against the OpenAI stand-in with the real `openai` client: formats recognised from
// their bytes and sent as files, the transcription stored on the person's own message only, the
// 25 MB cap (the body read as it arrives, chunked or not), strict base64, the provider's 429 retried,
// its outage answered with a code, no provider configured. Its memory: tests/e2e/transcription-memory.
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { OpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";
import { MAX_AUDIO_BYTES } from "../../supabase/functions/transcribe-audio/audio.ts";
import { expectErrorBody, type UserWithKey } from "../setup/test-context.ts";
import { expectScriptedAnswersUsed, type FunctionsWorld, startFunctionsWorld, startProviderWorld } from "./function-fixtures.ts";

const ascii = (text: string) => Buffer.from(text, "latin1");
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
/** The first bytes of each format, followed by enough filler to look like a recording. */
const SAMPLES = {
  wav: Buffer.concat([ascii("RIFF"), Buffer.from([36, 0, 0, 0]), ascii("WAVEfmt "), Buffer.alloc(64, 1)]),
  mp3: Buffer.concat([ascii("ID3"), Buffer.from([4, 0, 0, 0, 0, 0, 0]), Buffer.alloc(64, 2)]),
  mp3Frame: Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(64, 3)]),
  ogg: Buffer.concat([ascii("OggS"), Buffer.alloc(64, 4)]),
  webm: Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(64, 5)]),
  m4a: Buffer.concat([Buffer.from([0, 0, 0, 32]), ascii("ftypM4A "), Buffer.alloc(64, 6)]),
  flac: Buffer.concat([ascii("fLaC"), Buffer.alloc(64, 7)]),
};

let standIn: OpenAIStandIn;
let world: FunctionsWorld;
let ana: UserWithKey;
let ben: UserWithKey;
let anaToken: string;

beforeAll(async () => {
  ({ standIn, world } = await startProviderWorld({ TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE: "1000" }));
  [ana, ben] = [await world.t.userWithKey(), await world.t.userWithKey()];
  anaToken = await world.sessionToken(ana);
});
afterEach(() => expectScriptedAnswersUsed(standIn));
afterAll(async () => {
  await world?.close();
  await standIn?.close();
});

const transcribe = (audio: Buffer | string, ids: { roomId?: string; messageId?: string } = {}, token = anaToken) =>
  world.post("transcribe-audio", {
    roomId: ids.roomId ?? "voice-room",
    messageId: ids.messageId ?? "voice-1",
    audioData: typeof audio === "string" ? audio : audio.toString("base64"),
  }, token);

async function voiceMessage(owner: UserWithKey, roomId: string, messageId: string) {
  await world.t.owner`insert into chat.rooms (owner_id, room_id) values (${owner.id}, ${roomId}) on conflict do nothing`;
  await world.t.owner`insert into chat.messages (owner_id, room_id, message_id, role, origin) values (${owner.id}, ${roomId}, ${messageId}, 'user', 'audio')`;
}

const transcriptionOf = async (owner: UserWithKey, roomId: string, messageId: string) =>
  (await world.t.owner<{ transcription: string | null }[]>`
    select transcription from chat.messages where owner_id = ${owner.id} and room_id = ${roomId} and message_id = ${messageId}`)[0]?.transcription;

describe("transcribe-audio", () => {
  it("recognises each format from its bytes and sends it as a file of that type", async () => {
    const expected = { wav: "audio.wav", mp3: "audio.mp3", mp3Frame: "audio.mp3", ogg: "audio.ogg", webm: "audio.webm", m4a: "audio.mp4", flac: "audio.flac" };
    for (const [format, fileName] of Object.entries(expected)) {
      standIn.scriptTranscription({ text: `said in ${format}` });
      const response = await transcribe(SAMPLES[format as keyof typeof SAMPLES], { messageId: `format-${format}` });
      expect(await response.json()).toEqual({ success: true, transcription: `said in ${format}`, message_id: `format-${format}`, stored: true });
      const request = standIn.requests.at(-1)!;
      expect(request.form?.file?.name).toBe(fileName);
      expect(request.form?.file?.size).toBe(SAMPLES[format as keyof typeof SAMPLES].length);
      expect(request.form?.fields.model).toBe("whisper-1");
    }
  });

  it("stores the transcription on the person's message, and never on another person's of the same ids", async () => {
    await voiceMessage(ana, "shared-room", "shared-message");
    await voiceMessage(ben, "shared-room", "shared-message");
    standIn.scriptTranscription({ text: "Meet at the north gate." });

    const response = await transcribe(SAMPLES.wav, { roomId: "shared-room", messageId: "shared-message" });

    expect(await response.json()).toMatchObject({ success: true, message_id: "shared-message", stored: true });
    expect(await transcriptionOf(ana, "shared-room", "shared-message")).toBe("Meet at the north gate.");
    expect(await transcriptionOf(ben, "shared-room", "shared-message")).toBeNull();
  });

  it("records the message when the app transcribes before it sends; the chat then gives it its text and keeps the transcription", async () => {
    standIn.scriptTranscription({ text: "Is the gallery open tonight?" });
    expect(await (await transcribe(SAMPLES.webm, { roomId: "voice-first", messageId: "v-1" })).json()).toMatchObject({ stored: true });
    const message = async () => (await world.t.owner<{ content: string; origin: string; transcription: string }[]>`
      select content, origin, transcription from chat.messages where owner_id = ${ana.id} and room_id = 'voice-first' and message_id = 'v-1'`)[0];
    expect(await message()).toEqual({ content: "", origin: "audio", transcription: "Is the gallery open tonight?" });

    standIn.scriptChat({ text: "Yes, until ten." });
    const chat = await world.post("chat-with-assistant", {
      roomId: "voice-first", messageId: "v-1", message: "Is the gallery open tonight?", audioData: true,
    }, anaToken);
    expect(await chat.text()).toContain("Yes, until ten.");
    expect(await message()).toEqual({ content: "Is the gallery open tonight?", origin: "audio", transcription: "Is the gallery open tonight?" });
  });

  it("stores nothing on an answer's id: only the person's own messages take a transcription", async () => {
    await voiceMessage(ana, "answered-room", "asked");
    await world.t.owner`insert into chat.messages (owner_id, room_id, message_id, role, in_reply_to, content)
      values (${ana.id}, 'answered-room', 'the-answer', 'assistant', 'asked', 'Hello.')`;
    standIn.scriptTranscription({ text: "planted" });
    expect(await (await transcribe(SAMPLES.wav, { roomId: "answered-room", messageId: "the-answer" })).json()).toMatchObject({ stored: false });
    expect(await transcriptionOf(ana, "answered-room", "the-answer")).toBeNull();
  });

  it("refuses 25 MB + 1 byte with 413 at the first byte past the limit, before calling the provider", async () => {
    const tooLarge = Buffer.alloc(MAX_AUDIO_BYTES + 1, 0x41);
    SAMPLES.wav.copy(tooLarge);
    const started = performance.now();
    await expectErrorBody(await transcribe(tooLarge), 413, "audio_too_large");
    expect(performance.now() - started, "the test's own 33 MB body included").toBeLessThan(3000);
    // Longer than any 25 MB audio's base64, yet within the body limit.
    await expectErrorBody(await transcribe("A".repeat(Math.ceil(MAX_AUDIO_BYTES / 3) * 4 + 4)), 413, "audio_too_large");
    expect(standIn.requests).toHaveLength(0);
  });

  it("refuses what is not audio, and text that is not strict base64, with 400", async () => {
    await expectErrorBody(await transcribe(Buffer.from("%PDF-1.7 not a recording at all")), 400, "not_audio");
    await expectErrorBody(await transcribe(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])), 400, "not_audio");
    // A photo in an ISO media box (HEIC), and raw AAC (ADTS), which the provider does not take.
    await expectErrorBody(await transcribe(Buffer.concat([Buffer.from([0, 0, 0, 24]), ascii("ftypheicmif1heic"), Buffer.alloc(64)])), 400, "not_audio");
    await expectErrorBody(await transcribe(Buffer.concat([Buffer.from([0xff, 0xf1, 0x50, 0x80]), Buffer.alloc(64)])), 400, "not_audio");
    for (const text of ["UklGRi!kAAAB", "UklGRiQAAABXQVZF\n", "UklGRiQAAABXQVZFZ", "UklG=iQA", "UklGRiQAAABXQVZF===="]) {
      await expectErrorBody(await transcribe(text), 400, "invalid_base64");
    }
    expect(standIn.requests).toHaveLength(0);
  });

  it("tries again after the provider's 429 and its Retry-After", async () => {
    standIn.scriptTranscription({ error: { status: 429, retryAfterMs: 50 } }, { text: "second time lucky" });
    const response = await transcribe(SAMPLES.ogg);
    expect(await response.json()).toMatchObject({ success: true, transcription: "second time lucky" });
    expect(standIn.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("answers 503 provider_unavailable when the provider stays down, and 502 provider_error when it refuses", async () => {
    standIn.scriptTranscription({ error: { status: 500 } }, { fault: "disconnect" }, { error: { status: 503 } });
    const down = await expectErrorBody(await transcribe(SAMPLES.mp3), 503, "provider_unavailable");
    expect(down.message).not.toContain(standIn.apiKey);
    expect(standIn.requests).toHaveLength(3);

    standIn.reset();
    standIn.scriptTranscription({ error: { status: 429, retryAfterSeconds: 120 } });
    const busy = await transcribe(SAMPLES.mp3);
    expect(busy.headers.get("retry-after")).toBe("120");
    await expectErrorBody(busy, 503, "provider_unavailable");
    expect(standIn.requests, "a wait longer than the cap is not waited for").toHaveLength(1);

    standIn.reset();
    standIn.scriptTranscription({ error: { status: 400, message: "Invalid file format." } });
    await expectErrorBody(await transcribe(SAMPLES.flac), 502, "provider_error");
  });

  it("answers 503 provider_not_configured without a provider key", async () => {
    const unconfigured = await startFunctionsWorld();
    try {
      const user = await unconfigured.t.userWithKey();
      const response = await unconfigured.post("transcribe-audio", { roomId: "r", messageId: "m", audioData: SAMPLES.wav.toString("base64") },
        await unconfigured.sessionToken(user));
      await expectErrorBody(response, 503, "provider_not_configured");
    } finally {
      await unconfigured.close();
    }
  });

  it("takes 25,000,000 bytes, streamed to the provider within OpenAI's limit on the whole request", async () => {
    const audio = Buffer.alloc(MAX_AUDIO_BYTES, 0x55);
    SAMPLES.mp3.copy(audio);
    standIn.scriptTranscription({ text: "a long speech" });
    expect(await (await transcribe(audio, { messageId: "big" })).json()).toMatchObject({ success: true, transcription: "a long speech" });
    // The stand-in refuses (413) an upload over UPLOAD_LIMIT_BYTES, its multipart framing counted: this one it answered.
    const [request] = standIn.requests;
    expect(request).toMatchObject({ status: 200, headers: { "transfer-encoding": "chunked" } });
    expect(request!.form!.file).toMatchObject({ name: "audio.mp3", type: "audio/mpeg", size: MAX_AUDIO_BYTES, sha256: sha256(audio) });
  });

  it("reads a body that arrives in chunks without a declared length the same", async () => {
    const audio = Buffer.concat([SAMPLES.webm, Buffer.alloc(100_000, 9)]);
    const json = new TextEncoder().encode(JSON.stringify({ roomId: "voice-room", messageId: "chunked", audioData: audio.toString("base64") }));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < json.length; i += 1000) controller.enqueue(json.slice(i, i + 1000));
        controller.close();
      },
    });
    standIn.scriptTranscription({ text: "in pieces" });
    const response = await world.fetch(new Request("http://localhost/functions/v1/transcribe-audio", {
      method: "POST", headers: { authorization: `Bearer ${anaToken}`, "content-type": "application/json" }, body, duplex: "half",
    } as RequestInit));
    expect(await response.json()).toMatchObject({ success: true, transcription: "in pieces" });
    expect(standIn.requests[0]!.form!.file).toMatchObject({ size: audio.length, sha256: sha256(audio) });
  });

  it("refuses a body over the route's limit from its Content-Length, before reading it; other functions keep the default", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const response = await world.fetch(new Request("http://localhost/functions/v1/transcribe-audio", {
      method: "POST",
      headers: { authorization: `Bearer ${anaToken}`, "content-type": "application/json", "content-length": String(40_000_000) },
      body, duplex: "half",
    } as RequestInit));
    await expectErrorBody(response, 413, "payload_too_large");
    expect(pulled).toBeLessThanOrEqual(1);
    const rename = await world.post("rename-chat-for-event", { roomId: "r", eventTitle: "x", context: "y".repeat(2 * 1024 * 1024) }, anaToken);
    await expectErrorBody(rename, 413, "payload_too_large");
  });

  it("checks the other members like any body: unknown, missing or invalid ones", async () => {
    const audioData = SAMPLES.wav.toString("base64");
    for (const body of [
      { roomId: "voice-room", messageId: "m", audioData, extra: 1 },
      { roomId: "voice-room", audioData },
      { roomId: "voice room", messageId: "m", audioData },
      { roomId: "voice-room", messageId: "m", audioData: 42 },
      { roomId: "voice-room", messageId: "m", audioData: "" },
      { roomId: "voice-room", messageId: "m" },
    ]) {
      const refused = await expectErrorBody(await world.post("transcribe-audio", body, anaToken), 400, "validation_failed");
      expect(refused.details.issues.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect(standIn.requests).toHaveLength(0);
  });
});
