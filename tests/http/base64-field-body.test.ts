// The streamed reader of a JSON body with one large base64 member: the same answers JSON.parse and a
// strict decoder would give, whatever way the body is cut into chunks, and a refusal at the byte
// where the body goes wrong, without reading the rest.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type Base64FieldBody, OTHER_MEMBERS_MAX_BYTES, readBase64FieldBody } from "../../supabase/functions/_shared/http/base64-field-body.ts";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";

const LIMIT = 1000;
const options = { field: "audioData", maxDecodedBytes: LIMIT, tooLarge: () => new ApiError(413, "audio_too_large", "too large") };

/** A request whose body arrives in chunks of `chunkSize` bytes (not a byte stream), with or without a Content-Length. */
function requestOf(body: string | Uint8Array, { chunkSize = 7, declared = true, contentType = "application/json" } = {}) {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(sent, sent + chunkSize));
      sent += chunkSize;
    },
  });
  const headers: Record<string, string> = { "content-type": contentType };
  if (declared) headers["content-length"] = String(bytes.length);
  return { request: new Request("http://localhost/", { method: "POST", headers, body: stream, duplex: "half" } as RequestInit), read: () => sent };
}

const read = (body: string, chunkSize?: number) => readBase64FieldBody(requestOf(body, { chunkSize }).request, options);

async function refusal(body: string | Promise<Base64FieldBody>, chunkSize?: number): Promise<ApiError> {
  const error = await (typeof body === "string" ? read(body, chunkSize) : body).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("a body with base64 in it", () => {
  it.each([1, 2, 3, 5, 64, 100_000])("decodes the member and parses the others, cut in chunks of %i bytes", async (chunkSize) => {
    const audio = randomBytes(700);
    const body = JSON.stringify({ roomId: "room-1", audioData: audio.toString("base64"), nested: { a: [1, "x}\"]"] }, n: -1.5e3, ok: true, none: null });
    const { fields, decoded } = await read(` \n${body}\t `, chunkSize);
    expect(Buffer.from(decoded!).equals(audio)).toBe(true);
    expect(fields).toEqual({ roomId: "room-1", nested: { a: [1, "x}\"]"] }, n: -1.5e3, ok: true, none: null });
  });

  it("reads a byte stream (a body as the runtime received it) the same, into one reused buffer", async () => {
    const audio = randomBytes(200_000);
    const request = new Request("http://localhost/", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ audioData: audio.toString("base64"), roomId: "r" }),
    });
    const { fields, decoded } = await readBase64FieldBody(request, { ...options, maxDecodedBytes: audio.length });
    expect(Buffer.from(decoded!).equals(audio)).toBe(true);
    expect(fields).toEqual({ roomId: "r" });
  });

  it.each([
    ["", ""],
    ["QQ==", "A"],
    ["QUI=", "AB"],
    ["QUJD", "ABC"],
    ["QUJDRA==", "ABCD"],
    ["QUJDRA\\u003d\\u003D", "ABCD"],
    ["P\\/8=", "?\xff"],
  ])("decodes %j as %j (JSON escapes included)", async (base64, text) => {
    const { decoded } = await read(`{"audioData":"${base64}"}`, 3);
    expect(Buffer.from(decoded!).toString("latin1")).toBe(text);
  });

  it("keeps a member that is not a string with the others, for the schema to judge", async () => {
    expect(await read('{"audioData": 12, "roomId": "r"}')).toEqual({ fields: { audioData: 12, roomId: "r" } });
    expect(await read('{"audioData": ["QQ=="]}')).toEqual({ fields: { audioData: ["QQ=="] } });
  });

  it("takes the decoded bytes up to the limit, and refuses one more without decoding further", async () => {
    const atLimit = Buffer.alloc(LIMIT, 7).toString("base64");
    expect((await read(`{"audioData":"${atLimit}"}`)).decoded).toHaveLength(LIMIT);
    const over = Buffer.alloc(LIMIT + 1, 7).toString("base64");
    expect((await refusal(`{"audioData":"${over}"}`)).code).toBe("audio_too_large");
    // Far over: refused once the limit is passed, the rest of the body never read.
    const huge = requestOf(`{"audioData":"${Buffer.alloc(LIMIT * 20, 7).toString("base64")}"}`, { chunkSize: 100, declared: false });
    expect((await refusal(readBase64FieldBody(huge.request, options))).code).toBe("audio_too_large");
    expect(huge.read()).toBeLessThan(LIMIT * 2);
  });
});

describe("what is not base64", () => {
  it.each([
    ["QUJ", /not a multiple of 4/],
    ["QQ=", /not a multiple of 4/],
    ["Q===", /= where data is expected/],
    ["=QQQ", /= where data is expected/],
    ["QQ==QQ==", /after the padding/],
    ["QR==", /bits the padding drops/],
    ["QUI\\n", /U\+000A is not in its alphabet/],
    ["QU I=", /U\+0020 is not in its alphabet/],
    ["QU-_", /"-" is not in its alphabet/],
    ["data:audio/webm;base64,QQ==", /":" is not in its alphabet/],
    ["QUé=", /U\+00C3 is not in its alphabet/],
    ["QU\\u00e9=", /U\+00E9 is not in its alphabet/],
  ])("refuses %j", async (base64, reason) => {
    const error = await refusal(`{"audioData":"${base64}","roomId":"r"}`, 2);
    expect(error).toMatchObject({ status: 400, code: "invalid_base64", details: { field: "audioData" } });
    expect(error.message).toMatch(reason);
  });

  it("stops reading at the first wrong character", async () => {
    const { request, read: sent } = requestOf(`{"audioData":"QQ*=${"A".repeat(100_000)}"}`, { chunkSize: 16 });
    expect((await refusal(readBase64FieldBody(request, options))).details).toEqual({ field: "audioData", position: 2 });
    expect(sent()).toBeLessThanOrEqual(32);
  });
});

describe("what is not JSON", () => {
  it.each([
    "",
    "[]",
    '{"audioData":"QQ=="',
    '{"audioData":"QQ=="}x',
    '{"audioData":"QQ==",}',
    '{"roomId": }',
    '{"roomId": "a" "b"}',
    '{"roomId": tru}',
    '{"roomId": [1, 2}',
    '{"roomId": 1]}',
    '{"audioData":"QQ\\x"}',
    '{"audioData":"QQ\\u00zz"}',
    "{roomId: 1}",
  ])("refuses %j as invalid_json", async (body) => {
    expect((await refusal(body)).code).toBe("invalid_json");
  });

  it("refuses a member named twice", async () => {
    const error = await refusal('{"audioData":"QQ==","audioData":"QQ=="}');
    expect(error).toMatchObject({ status: 400, code: "validation_failed", details: { issues: [{ path: "audioData", message: "appears twice" }] } });
  });

  it("refuses other members larger than their cap", async () => {
    const error = await refusal(`{"note":"${"x".repeat(OTHER_MEMBERS_MAX_BYTES)}"}`);
    expect(error).toMatchObject({ status: 413, code: "payload_too_large" });
  });

  it("takes JSON only, and no body as an empty object", async () => {
    const text = requestOf("{}", { contentType: "text/plain" }).request;
    expect((await refusal(readBase64FieldBody(text, options))).code).toBe("unsupported_media_type");
    expect(await readBase64FieldBody(new Request("http://localhost/", { method: "POST" }), options)).toEqual({ fields: {} });
    const emptyJson = new Request("http://localhost/", { method: "POST", headers: { "content-type": "application/json; charset=utf-8" }, body: "" });
    expect((await refusal(readBase64FieldBody(emptyJson, options))).code).toBe("invalid_json");
  });
});
