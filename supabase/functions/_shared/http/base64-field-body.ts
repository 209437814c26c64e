// A JSON body carrying one large base64 string (a recording of up to 25 MB), read as it arrives. Parsed
// the usual way, such a body is held about four times over: the request's bytes, their text, the
// parsed string, the decoded bytes. Here the body is read into one reused 64 KiB buffer (a BYOB
// reader: no chunk per read left for the collector), the base64 member is decoded from it straight
// into one byte array, and only the other members, which are small, are parsed as JSON.
// Whatever is wrong is refused at the byte where it shows, without reading or decoding further: a
// character outside base64 (400 invalid_base64), a decoded byte past the limit (the caller's 413),
// broken JSON (400 invalid_json). The other members come back parsed, for the caller's schema to
// judge like any other body.
import { ApiError } from "./errors.ts";

export interface Base64FieldBody {
  /** The object's other members, parsed; the base64 member too when its value is not a string. */
  fields: Record<string, unknown>;
  /** The base64 member decoded, when its value was a string. */
  decoded?: Uint8Array;
}

export interface Base64FieldOptions {
  /** The member holding base64. */
  field: string;
  maxDecodedBytes: number;
  /** What to throw once the decoded member would exceed maxDecodedBytes. */
  tooLarge(): ApiError;
}

/** The other members' keys and values together, as raw JSON: a few ids, never a document. */
export const OTHER_MEMBERS_MAX_BYTES = 64 * 1024;
/** The reused read buffer. */
const READ_BYTES = 64 * 1024;
/** The first allocation for the decoded bytes when the body's length is not declared; doubled as needed. */
const INITIAL_CAPACITY = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const PAD = 0x3d;
const isWhitespace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** JSON's one-character escapes (after a backslash), as the character they stand for. */
const ESCAPED: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };

/** Each byte's six bits in RFC 4648's alphabet, -1 for any other byte. */
const SEXTETS = new Int8Array(256).fill(-1);
[..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].forEach((character, value) => {
  SEXTETS[character.charCodeAt(0)] = value;
});

const invalidJson = () => new ApiError(400, "invalid_json", "The request body is not valid JSON.");

const describe = (code: number) =>
  code >= 0x21 && code < 0x7f ? `"${String.fromCharCode(code)}"` : `the character U+${code.toString(16).toUpperCase().padStart(4, "0")}`;

/** Strict base64 (RFC 4648's alphabet, padded, canonical, nothing else) into a byte array that grows up to a limit. */
class Base64Decoder {
  private bytes: Uint8Array;
  private length = 0;
  /** Characters taken: the position an error names. */
  private characters = 0;
  private bits = 0;
  private sextets = 0;
  private padding = 0;

  constructor(private readonly options: Base64FieldOptions, declaredBodyBytes: number | undefined) {
    // A body of declared length cannot carry more decoded bytes than 3/4 of it: allocated once.
    const expected = declaredBodyBytes === undefined ? INITIAL_CAPACITY : Math.floor((declaredBodyBytes * 3) / 4);
    this.bytes = new Uint8Array(Math.min(options.maxDecodedBytes, expected));
  }

  invalid(reason: string): ApiError {
    const { field } = this.options;
    return new ApiError(400, "invalid_base64",
      `${field} is not base64: ${reason}. Send standard base64 (RFC 4648: A-Z a-z 0-9 + /, padded with =), ` +
        "without line breaks or a data: URL prefix.",
      { field, position: this.characters });
  }

  /** Room for `count` more bytes: the limit's error past it, else a larger array when this one is full. */
  private grow(count: number): Uint8Array {
    const needed = this.length + count;
    if (needed > this.options.maxDecodedBytes) throw this.options.tooLarge();
    const grown = new Uint8Array(Math.min(this.options.maxDecodedBytes, Math.max(needed, this.bytes.length * 2)));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    return grown;
  }

  /** Decodes the run of alphabet characters from `start`: the index of the first byte that is not one. */
  decodeRun(chunk: Uint8Array, start: number): number {
    if (this.padding > 0) return start;
    let { bytes, bits, sextets, length } = this;
    let i = start;
    for (; i < chunk.length; i++) {
      const sextet = SEXTETS[chunk[i]!]!;
      if (sextet < 0) break;
      bits = (bits << 6) | sextet;
      if (++sextets < 4) continue;
      if (length + 3 > bytes.length) {
        this.length = length;
        bytes = this.grow(3);
      }
      bytes[length] = bits >> 16;
      bytes[length + 1] = (bits >> 8) & 0xff;
      bytes[length + 2] = bits & 0xff;
      length += 3;
      bits = 0;
      sextets = 0;
    }
    this.bits = bits;
    this.sextets = sextets;
    this.length = length;
    this.characters += i - start;
    return i;
  }

  /** One character outside a run: padding, an escaped alphabet character, or a refusal. */
  character(code: number): void {
    if (code < 128 && SEXTETS[code]! >= 0 && this.padding === 0) {
      this.decodeRun(Uint8Array.of(code), 0);
      return;
    }
    if (code !== PAD) {
      throw this.invalid(this.padding > 0 ? "characters after the padding" : `${describe(code)} is not in its alphabet`);
    }
    if (this.sextets < 2) throw this.invalid("= where data is expected");
    this.characters++;
    this.padding++;
    this.bits <<= 6;
    if (++this.sextets < 4) return;
    // The bits that padding leaves over must be zero: any other string is not how the bytes encode.
    if ((this.bits & (this.padding === 1 ? 0xff : 0xffff)) !== 0) throw this.invalid("its last character has bits the padding drops");
    const count = 3 - this.padding;
    if (this.length + count > this.bytes.length) this.grow(count);
    this.bytes[this.length++] = this.bits >> 16;
    if (count === 2) this.bytes[this.length++] = (this.bits >> 8) & 0xff;
    this.sextets = 0;
  }

  /** The decoded bytes, once the string ended. */
  finish(): Uint8Array {
    if (this.sextets !== 0) throw this.invalid("its length is not a multiple of 4 (the padding is missing)");
    return this.bytes.subarray(0, this.length);
  }
}

/** Where the parser is in the body: one JSON object whose members are read one after another. */
type State =
  | "before-object" // whitespace, then {
  | "first-member" // whitespace, then a key or }
  | "member" // whitespace, then a key (after a comma)
  | "key" // a key's raw bytes, up to its closing quote
  | "colon"
  | "value" // whitespace, then a value
  | "small-value" // another member's raw JSON value
  | "base64" // the base64 member's string
  | "base64-escape" // after a backslash in it
  | "base64-unicode" // \uXXXX in it
  | "after-value" // whitespace, then , or }
  | "after-object"; // whitespace only

/** Reads the body chunk by chunk: `push` each, then `end`. */
class Base64FieldBodyParser {
  private state: State = "before-object";
  private readonly fields: Record<string, unknown> = {};
  private readonly seen = new Set<string>();
  private decoded?: Uint8Array;
  private readonly decoder: Base64Decoder;
  /** The raw JSON of the key or small value being read; and how much of it there was in all. */
  private raw: number[] = [];
  private rawBytes = 0;
  private key = "";
  private depth = 0;
  private inString = false;
  private escaped = false;
  private unicodeDigits = "";

  constructor(private readonly options: Base64FieldOptions, declaredBodyBytes: number | undefined) {
    this.decoder = new Base64Decoder(options, declaredBodyBytes);
  }

  private collect(byte: number): void {
    if (++this.rawBytes > OTHER_MEMBERS_MAX_BYTES) {
      throw new ApiError(413, "payload_too_large", `The members besides ${this.options.field} take more than ${OTHER_MEMBERS_MAX_BYTES} bytes.`, {
        limit: OTHER_MEMBERS_MAX_BYTES,
      });
    }
    this.raw.push(byte);
  }

  /** The JSON text collected, parsed. */
  private parsedRaw(): unknown {
    const text = new TextDecoder().decode(Uint8Array.from(this.raw));
    this.raw = [];
    try {
      return JSON.parse(text);
    } catch {
      throw invalidJson();
    }
  }

  private member(key: string): void {
    if (this.seen.has(key)) {
      throw new ApiError(400, "validation_failed", `The request is invalid: ${key}: appears twice`, {
        issues: [{ path: key, message: "appears twice" }],
        issueCount: 1,
      });
    }
    this.seen.add(key);
  }

  /** The small value ended just before the byte at hand. */
  private endSmallValue(): void {
    this.fields[this.key] = this.parsedRaw();
    this.state = "after-value";
  }

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      switch (this.state) {
        case "before-object":
          if (byte === 0x7b) this.state = "first-member";
          else if (!isWhitespace(byte)) throw invalidJson();
          break;
        case "first-member":
        case "member":
          if (byte === QUOTE) {
            this.collect(byte);
            this.state = "key";
          } else if (byte === 0x7d && this.state === "first-member") this.state = "after-object";
          else if (!isWhitespace(byte)) throw invalidJson();
          break;
        case "key":
          this.collect(byte);
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) {
            this.key = this.parsedRaw() as string;
            this.member(this.key);
            this.state = "colon";
          }
          break;
        case "colon":
          if (byte === 0x3a) this.state = "value";
          else if (!isWhitespace(byte)) throw invalidJson();
          break;
        case "value":
          if (isWhitespace(byte)) break;
          if (byte === QUOTE && this.key === this.options.field) {
            this.state = "base64";
            break;
          }
          this.depth = 0;
          this.inString = false;
          this.escaped = false;
          this.state = "small-value";
          i--; // the value's first byte
          break;
        case "small-value":
          if (this.inString) {
            this.collect(byte);
            if (this.escaped) this.escaped = false;
            else if (byte === BACKSLASH) this.escaped = true;
            else if (byte === QUOTE) {
              this.inString = false;
              if (this.depth === 0) this.endSmallValue();
            }
          } else if (this.depth === 0 && (byte === 0x2c || byte === 0x7d || isWhitespace(byte))) {
            this.endSmallValue();
            i--; // , } or whitespace after the value
          } else {
            this.collect(byte);
            if (byte === QUOTE) this.inString = true;
            else if (byte === 0x5b || byte === 0x7b) this.depth++;
            else if (byte === 0x5d || byte === 0x7d) {
              if (this.depth === 0) throw invalidJson();
              if (--this.depth === 0) this.endSmallValue();
            }
          }
          break;
        case "base64": {
          i = this.decoder.decodeRun(chunk, i);
          if (i === chunk.length) break;
          const next = chunk[i]!;
          if (next === QUOTE) {
            this.decoded = this.decoder.finish();
            this.state = "after-value";
          } else if (next === BACKSLASH) this.state = "base64-escape";
          else this.decoder.character(next);
          break;
        }
        case "base64-escape":
          if (byte === 0x75) {
            this.unicodeDigits = "";
            this.state = "base64-unicode";
            break;
          }
          // \/ is how some encoders write /; the other escapes stand for characters base64 has not.
          if (ESCAPED[byte] === undefined) throw invalidJson();
          this.decoder.character(ESCAPED[byte]!);
          this.state = "base64";
          break;
        case "base64-unicode":
          this.unicodeDigits += String.fromCharCode(byte);
          if (!/^[0-9a-fA-F]{1,4}$/.test(this.unicodeDigits)) throw invalidJson();
          if (this.unicodeDigits.length === 4) {
            this.decoder.character(parseInt(this.unicodeDigits, 16));
            this.state = "base64";
          }
          break;
        case "after-value":
          if (byte === 0x2c) this.state = "member";
          else if (byte === 0x7d) this.state = "after-object";
          else if (!isWhitespace(byte)) throw invalidJson();
          break;
        case "after-object":
          if (!isWhitespace(byte)) throw invalidJson();
          break;
      }
    }
  }

  end(): Base64FieldBody {
    if (this.state !== "after-object") throw invalidJson();
    return { fields: this.fields, decoded: this.decoded };
  }
}

/**
 * Hands `body`'s bytes to `take`: read into one reused buffer when the body is a byte stream (a
 * request as the runtime received it), else chunk by chunk (a body another stream counted, say).
 * When `take` throws, the rest is not read.
 */
async function readBody(body: ReadableStream<Uint8Array>, take: (bytes: Uint8Array) => void): Promise<void> {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: the stream stays unlocked for a default reader.
  }
  const reader = byob ?? body.getReader();
  let buffer = new Uint8Array(READ_BYTES);
  try {
    for (;;) {
      const { done, value } = byob ? await byob.read(buffer) : await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
      if (done) return;
      take(value);
      if (byob) buffer = new Uint8Array(value.buffer as ArrayBuffer); // handed back by the read, to fill again
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
}

/** The body as `{ fields, decoded }`, read from the request's stream; the request must say it is JSON. */
export async function readBase64FieldBody(request: Request, options: Base64FieldOptions): Promise<Base64FieldBody> {
  const contentType = request.headers.get("content-type");
  const isJson = contentType !== null && contentType.split(";")[0]!.trim().toLowerCase() === "application/json";
  if (!request.body) {
    if (contentType === null) return { fields: {} };
    if (!isJson) throw new ApiError(415, "unsupported_media_type", "Unsupported Media Type");
    throw invalidJson();
  }
  if (!isJson) throw new ApiError(415, "unsupported_media_type", "Unsupported Media Type");
  const declared = request.headers.get("content-length");
  const parser = new Base64FieldBodyParser(options, declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined);
  await readBody(request.body, (bytes) => parser.push(bytes));
  return parser.end();
}
