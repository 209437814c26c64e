// What a request may be before any route looks at it. Deno's HTTP server refuses a head of more than
// about 64 KiB or 128 header fields itself, with an empty 400 and no request id (docs/deployment.md);
// the app's own limits sit well below that, so a client gets the one error body and a stable code.
import type { MiddlewareHandler } from "hono";
import { ApiError, errorResponse } from "./errors.ts";

export const REQUEST_LIMITS = {
  /** Path and query of the URL, as received (percent-encoded). */
  targetBytes: 8 * 1024,
  /** Header names and values with their separators. */
  headerBytes: 16 * 1024,
  headerFields: 100,
  /** `name=value` pairs in the query; each one is validated and may be echoed in a 400. */
  queryParameters: 100,
};

/** Everything after the authority of an absolute URL: `/path?query`. */
function requestTarget(url: string): string {
  const path = url.indexOf("/", url.indexOf("://") + 3);
  return path < 0 ? "" : url.slice(path);
}

function queryParameterCount(target: string): number {
  const query = target.indexOf("?");
  if (query < 0) return 0;
  let count = 0;
  for (const pair of target.slice(query + 1).split("&")) if (pair !== "") count++;
  return count;
}

/** 414 `uri_too_long`, 431 `headers_too_large`, 400 `too_many_parameters`; cheap, so they run first. */
export function requestLimits(): MiddlewareHandler {
  return async (c, next) => {
    const target = requestTarget(c.req.url);
    if (target.length > REQUEST_LIMITS.targetBytes) {
      throw new ApiError(414, "uri_too_long", `The URL's path and query are longer than ${REQUEST_LIMITS.targetBytes} bytes.`, {
        limit: REQUEST_LIMITS.targetBytes,
      });
    }
    let fields = 0;
    let bytes = 0;
    for (const [name, value] of c.req.raw.headers) {
      fields += 1;
      bytes += name.length + value.length + 4; // "name: value\r\n"
    }
    if (fields > REQUEST_LIMITS.headerFields || bytes > REQUEST_LIMITS.headerBytes) {
      throw new ApiError(
        431,
        "headers_too_large",
        `The request headers exceed ${REQUEST_LIMITS.headerFields} fields or ${REQUEST_LIMITS.headerBytes} bytes.`,
        { fieldLimit: REQUEST_LIMITS.headerFields, byteLimit: REQUEST_LIMITS.headerBytes },
      );
    }
    if (queryParameterCount(target) > REQUEST_LIMITS.queryParameters) {
      throw new ApiError(400, "too_many_parameters", `The query has more than ${REQUEST_LIMITS.queryParameters} parameters.`, {
        limit: REQUEST_LIMITS.queryParameters,
      });
    }
    await next();
  };
}

const UTF8_LABELS = new Set(["utf-8", "utf8"]);
// Quoted values may hold `;` and escaped quotes (RFC 9110, 5.6.4).
const CHARSET_PARAMETER = /;\s*charset\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)/gi;

function declaresOtherCharset(contentType: string): boolean {
  for (const [, raw] of contentType.matchAll(CHARSET_PARAMETER)) {
    const label = raw!.startsWith('"') ? raw!.slice(1, -1).replace(/\\(.)/g, "$1") : raw!;
    if (!UTF8_LABELS.has(label.trim().toLowerCase())) return true;
  }
  return false;
}

/**
 * Bodies are read as they arrive, as UTF-8 (Request.json()): one that declares a content coding
 * (`Content-Encoding: gzip`) or another charset would be misread, so it is refused with 415.
 */
export function refuseUndecodableBodies(): MiddlewareHandler {
  return async (c, next) => {
    const codings = (c.req.header("content-encoding") ?? "").split(",").map((coding) => coding.trim().toLowerCase());
    if (codings.some((coding) => coding !== "" && coding !== "identity")) {
      throw new ApiError(415, "unsupported_content_encoding", "Send the body without a content coding (Content-Encoding: identity).", undefined, {
        "Accept-Encoding": "identity",
      });
    }
    if (declaresOtherCharset(c.req.header("content-type") ?? "")) {
      throw new ApiError(415, "unsupported_charset", "Send the body in UTF-8 (charset=utf-8, or no charset).");
    }
    await next();
  };
}

/** A route whose bodies may be larger than the default (an offline scanner's batch). */
export interface LargerBody {
  method: string;
  path: RegExp;
  maxBytes: number;
}

/**
 * 413 `payload_too_large` for a body over `maxBytes` (the route's own in `larger`, else the default). A declared Content-Length is judged at once; a
 * chunked body is counted as the route reads it, never read ahead (hono's bodyLimit buffers it
 * first), so a route that refuses the request before reading (an unknown API key) reads nothing.
 */
export function bodyLimit(defaultMaxBytes: number, larger: readonly LargerBody[] = []): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const maxBytes = larger.find((route) => route.method === c.req.method && route.path.test(c.req.path))?.maxBytes ?? defaultMaxBytes;
    const tooLarge = () => new ApiError(413, "payload_too_large", `The request body is larger than ${maxBytes} bytes.`, { limit: maxBytes });
    const declared = c.req.header("content-length");
    if (declared !== undefined && !c.req.header("transfer-encoding")) {
      if (Number(declared) > maxBytes) throw tooLarge();
      return next();
    }
    let received = 0;
    let exceeded = false;
    const counted = body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > maxBytes) {
          exceeded = true;
          controller.error(tooLarge());
        } else {
          controller.enqueue(chunk);
        }
      },
    }));
    c.req.raw = new Request(c.req.raw, { body: counted, duplex: "half" } as RequestInit);
    await next();
    // Whatever the reader made of the cut-off stream (invalid JSON, say), the cause is the size.
    if (exceeded) c.res = errorResponse(c, tooLarge());
  };
}
