// A FuzzRequest sent as the bytes an HTTP/1.1 client writes, over a connection of its own, without
// fetch's checks: the headers as generated (an invalid content-length included), header values as
// Latin-1 bytes (the ByteString fetch and app.request allow), the target as the URL parser writes it
// (what app.request hands the app in process).
import { connect } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { Answer, FuzzRequest } from "./request-generators.ts";

const ANSWER_TIMEOUT_MS = 15_000;

/** The request line's target for `path` (a URL's path and query, as the fuzzer wrote it), as the URL parser writes it. */
export function requestTarget(path: string): string {
  // Joined, not resolved: a path that starts with a doubled slash stays a path.
  const url = new URL(`http://host${path}`);
  return `${url.pathname}${url.search}`;
}

/** Sends `request` to `origin` with `path` (its URL, placed where the server expects it) and reads the whole answer. */
export async function sendRaw(origin: string, path: string, request: FuzzRequest): Promise<Answer> {
  const url = new URL(origin);
  const body = typeof request.body === "string" ? Buffer.from(request.body, "utf8") : request.body && Buffer.from(request.body);
  const lines = [`${request.method} ${requestTarget(path)} HTTP/1.1`, `host: ${url.host}`, "connection: close"];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (body && !request.headers.some(([name]) => name.toLowerCase() === "content-length")) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");

  const received = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: a server closes a connection whose client half-closes it before it answers.
    const socket = connect(Number(url.port), url.hostname, () => socket.write(body ? Buffer.concat([head, body]) : head));
    socket.setTimeout(ANSWER_TIMEOUT_MS, () => socket.destroy(new Error(`no complete answer in ${ANSWER_TIMEOUT_MS} ms`)));
    socket.on("data", (chunk) => chunks.push(chunk));
    // The server may close while the body is still being written (it answered without reading it all).
    socket.on("error", (error) => (chunks.length > 0 && (error as NodeJS.ErrnoException).code === "ECONNRESET" ? resolve(Buffer.concat(chunks)) : reject(error)));
    socket.on("close", () => resolve(Buffer.concat(chunks)));
  });
  return parseAnswer(received, request.method);
}

function parseAnswer(received: Buffer, method: string): Answer {
  const headEnd = received.indexOf("\r\n\r\n");
  if (headEnd < 0) throw new Error(`the connection closed without an answer${received.length ? `: ${JSON.stringify(received.toString("latin1").slice(0, 200))}` : ""}`);
  const [statusLine, ...headerLines] = received.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  if (!status) throw new Error(`not an HTTP answer: ${JSON.stringify(statusLine)}`);
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let bytes = received.subarray(headEnd + 4);
  if (method === "HEAD" || status === 204 || status === 304) bytes = Buffer.alloc(0);
  else if (/\bchunked\b/i.test(headers.get("transfer-encoding") ?? "")) bytes = dechunk(bytes);
  else if (headers.has("content-length")) bytes = bytes.subarray(0, Number(headers.get("content-length")));
  const encoding = headers.get("content-encoding")?.toLowerCase();
  if (encoding === "gzip") bytes = gunzipSync(bytes);
  else if (encoding === "br") bytes = brotliDecompressSync(bytes);
  else if (encoding === "deflate") bytes = inflateSync(bytes);
  return { status, headers, text: bytes.toString("utf8") };
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd < 0) throw new Error("chunked body cut short");
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
