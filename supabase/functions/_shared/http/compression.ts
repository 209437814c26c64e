// Response compression for every function (createBaseApp): gzip when the client accepts it, with
// `Vary: Accept-Encoding`, through Hono's compress (CompressionStream: Deno, Node 20 and Supabase's
// Edge Runtime all have it). Its content-type filter leaves event streams (the assistant's answers,
// MCP's SSE) and already-compressed types (images, archives) alone, and it skips any answer that
// already names a Content-Encoding.
import type { MiddlewareHandler } from "hono";
import { compress } from "hono/compress";

/** Smaller answers travel as they are: gzip's header and the CPU cost more than they save. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

const gzip = compress({ encoding: "gzip", threshold: COMPRESSION_THRESHOLD_BYTES });

const isJson = (response: Response) => /^application\/json\b/i.test(response.headers.get("content-type") ?? "");

/**
 * Hono's threshold reads Content-Length, which a JSON answer built from a string does not carry yet:
 * it is given here (the body is already whole in memory), so JSON under the threshold is never compressed.
 */
export function compression(): MiddlewareHandler {
  return (c, next) =>
    gzip(c, async () => {
      await next();
      if (c.res.body && isJson(c.res) && !c.res.headers.has("content-length")) {
        const bytes = new Uint8Array(await c.res.arrayBuffer());
        const headers = new Headers(c.res.headers);
        headers.set("content-length", String(bytes.byteLength));
        c.res = new Response(bytes, { status: c.res.status, statusText: c.res.statusText, headers });
      }
    });
}
