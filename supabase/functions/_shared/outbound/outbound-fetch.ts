// A fetch for requests to hosts that are not the service's own (the MCP SDK's transport, webhook
// deliveries): sent with node:http(s), so that in production the connection's own DNS lookup refuses every
// address that is not public (public-address-lookup.ts; fetch has no such hook), an address literal
// likewise. Redirects are answered as they are, never followed; a response body larger than
// `maxResponseBytes` fails while it is read; each request has a connection of its own.
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { publicAddressLookup, refusedAddressLiteral, requestHostname } from "./public-address-lookup.ts";

export interface OutboundFetchOptions {
  /** Only public unicast addresses (production). */
  publicOnly: boolean;
  maxResponseBytes: number;
}

export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const publicOnlyLookup = publicAddressLookup();

/** Statuses whose response has no body (a Response refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function requestBody(body: BodyInit | null | undefined): string | Uint8Array | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError("outboundFetch sends string and byte bodies only");
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("The request was aborted", "AbortError");
}

/** `body`, failing once more than `maxBytes` have passed (the source is then cancelled: its connection closes). */
function capped(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  let received = 0;
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > maxBytes) controller.error(new Error(`the response is larger than ${maxBytes} bytes`));
      else controller.enqueue(chunk);
    },
  }));
}

export function outboundFetch({ publicOnly, maxResponseBytes }: OutboundFetchOptions): OutboundFetch {
  return (input, init = {}) => {
    const url = new URL(input);
    if (url.protocol !== "http:" && url.protocol !== "https:") return Promise.reject(new TypeError(`refused ${url.protocol} URL`));
    const hostname = requestHostname(url);
    const literalRefused = publicOnly ? refusedAddressLiteral(hostname) : null;
    if (literalRefused) return Promise.reject(Object.assign(new Error(`refused ${hostname}: ${literalRefused}`), { code: "EREFUSEDADDRESS" }));
    const { signal } = init;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const body = requestBody(init.body);
    const headers = Object.fromEntries(new Headers(init.headers));
    if (body !== undefined) headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    return new Promise((resolve, reject) => {
      const request = (url.protocol === "https:" ? https : http).request({
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: init.method ?? "GET",
        headers,
        agent: false,
        lookup: publicOnly ? publicOnlyLookup : undefined,
      });
      const onAbort = () => request.destroy(abortReason(signal!));
      signal?.addEventListener("abort", onAbort, { once: true });
      request.on("error", (error) => {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      });
      request.on("response", (response) => {
        response.on("close", () => signal?.removeEventListener("abort", onAbort));
        const responseHeaders = new Headers();
        for (let i = 0; i < response.rawHeaders.length; i += 2) responseHeaders.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!);
        const status = response.statusCode ?? 502;
        const hasBody = !NULL_BODY_STATUSES.has(status) && init.method !== "HEAD";
        if (!hasBody) response.resume();
        resolve(new Response(hasBody ? capped(Readable.toWeb(response) as ReadableStream<Uint8Array>, maxResponseBytes) : null, {
          status,
          statusText: response.statusMessage,
          headers: responseHeaders,
        }));
      });
      request.end(body);
    });
  };
}
