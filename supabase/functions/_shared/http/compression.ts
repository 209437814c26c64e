// Response compression for every function (createBaseApp): gzip when the client accepts it, with
// `Vary: Accept-Encoding`, through Hono's compress (the web's CompressionStream, which Deno and
// Node 20 have; tested under both: tests/http in process on Node, the bench on the Deno gateway). Its content-type filter leaves event streams (the assistant's answers,
// MCP's SSE) and already-compressed types (images, archives) alone, and it skips any answer that
// already names a Content-Encoding.
import type { Context, MiddlewareHandler } from "hono";
import { compress } from "hono/compress";
import { parseAccept } from "hono/utils/accept";

/** Smaller answers travel as they are: gzip's header and the CPU cost more than they save. */
const COMPRESSION_THRESHOLD_BYTES = 1024;

const gzip = compress({ encoding: "gzip", threshold: COMPRESSION_THRESHOLD_BYTES });

const isJson = (response: Response) => /^application\/json\b/i.test(response.headers.get("content-type") ?? "");

/**
 * Hono's threshold reads Content-Length, which a JSON answer built from a string does not carry yet:
 * it is given here, so JSON under the threshold is never compressed. Only for a client that takes
 * gzip: for any other the answer goes out as built, unread and unbuffered (streamed lists stay streamed).
 */
export function compression(): MiddlewareHandler {
  return (c, next) =>
    gzip(c, async () => {
      await next();
      if (!acceptsGzip(c.req.header("accept-encoding"))) return;
      if (c.res.body && isJson(c.res) && !c.res.headers.has("content-length")) {
        const bytes = new Uint8Array(await c.res.arrayBuffer());
        const headers = new Headers(c.res.headers);
        headers.set("content-length", String(bytes.byteLength));
        c.res = new Response(bytes, { status: c.res.status, statusText: c.res.statusText, headers });
      }
    });
}

/** Whether an Accept-Encoding header takes gzip (named, or by `*`, with a q above 0). */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const accepts = parseAccept(header);
  const gzip = accepts.find((accept) => accept.type.toLowerCase() === "gzip") ?? accepts.find((accept) => accept.type === "*");
  return gzip !== undefined && gzip.q > 0;
}

const gzippedOnce = new WeakMap<Uint8Array, Promise<Uint8Array<ArrayBuffer>>>();

/**
 * A large body that never changes (the docs page's 4 MB script), gzipped on its first request and
 * then served from memory: compressing it per request would cost about 70 ms of CPU each time.
 * The middleware leaves an answer that names its Content-Encoding alone.
 */
export async function precompressed(c: Context, body: Uint8Array<ArrayBuffer>, headers: Record<string, string>): Promise<Response> {
  const varying = { ...headers, vary: "Accept-Encoding" };
  if (!acceptsGzip(c.req.header("accept-encoding"))) return c.body(body, 200, varying);
  let gzipped = gzippedOnce.get(body);
  if (!gzipped) {
    const stream = new Response(body).body!.pipeThrough(new CompressionStream("gzip"));
    gzippedOnce.set(body, gzipped = new Response(stream).arrayBuffer().then((bytes) => new Uint8Array(bytes)));
  }
  return c.body(await gzipped, 200, { ...varying, "content-encoding": "gzip" });
}
