// Lists the tools of an external MCP server (external-servers.ts) with the MCP SDK's client over
// Streamable HTTP:
//   * every exchange through outboundFetch: in production only public addresses (SSRF);
//   * a deadline per try (ASSISTANT_MCP_TIMEOUT_MS) covering connect and every page of tools/list;
//   * transient failures (no connection, a timeout, HTTP 408, 429, 5xx) tried again with backoff,
//     honouring Retry-After; anything else (401, a protocol error) is final;
//   * a response at most MAX_RESPONSE_BYTES, at most LIST_MAX_PAGES pages.
// A failure is reported with a short reason, never with the server's URL or headers.
import { Client, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport, type Tool } from "@modelcontextprotocol/client";
import { isTransientStatus, parseRetryAfter, type RetryPolicy, withRetries } from "../outbound/retry.ts";
import { outboundFetch, type OutboundFetch } from "../outbound/outbound-fetch.ts";
import type { ExternalMcpServer } from "./external-servers.ts";
import { ASSISTANT_CLIENT_INFO } from "./in-memory.ts";

const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
const LIST_MAX_PAGES = 10;
const LIST_RETRY_POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 2_000 };

export interface ListingOptions {
  timeoutMs: number;
  /** Production: only public addresses (the configuration already allows https servers only). */
  publicOnly: boolean;
}

/** A failure to list a server's tools, with what the client may be told of it. */
export class ListingFailure extends Error {
  constructor(readonly reason: string, readonly transient: boolean, readonly retryAfterMs?: number, options?: ErrorOptions) {
    super(reason, options);
  }
}

/** The HTTP status and Retry-After of the latest response of a try, seen by its fetch. */
interface LastResponse {
  status?: number;
  retryAfterMs?: number;
}

function recordingFetch(fetch: OutboundFetch, last: LastResponse, signal: AbortSignal): OutboundFetch {
  return async (url, init = {}) => {
    const response = await fetch(url, { ...init, signal: init.signal ? AbortSignal.any([init.signal, signal]) : signal });
    last.status = response.status;
    last.retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    return response;
  };
}

/** What went wrong in one try, for the retry decision and the report. */
function failureOf(error: unknown, last: LastResponse, timedOut: boolean, timeoutMs: number): ListingFailure {
  if (error instanceof ListingFailure) return error;
  if (timedOut || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)) {
    return new ListingFailure(`no answer within ${timeoutMs} ms`, true, undefined, { cause: error });
  }
  const status = error instanceof SdkHttpError ? error.status : last.status !== undefined && last.status >= 400 ? last.status : undefined;
  if (status !== undefined) return new ListingFailure(`the server answered HTTP ${status}`, isTransientStatus(status), last.retryAfterMs, { cause: error });
  const code = (error as { code?: unknown; cause?: { code?: unknown } }).cause?.code ?? (error as { code?: unknown }).code;
  if (code === "EREFUSEDADDRESS") return new ListingFailure("its address is not public", false, undefined, { cause: error });
  if (typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EAI_AGAIN|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|UND_ERR)/.test(code)) {
    return new ListingFailure("the server could not be reached", true, undefined, { cause: error });
  }
  if (error instanceof SdkError && (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.SendFailed)) {
    return new ListingFailure("the connection to the server failed", true, undefined, { cause: error });
  }
  return new ListingFailure("the server's answer was not a usable MCP tools list", false, undefined, { cause: error });
}

/** One try: connect, list every page (within the client's page cap), close. */
async function listOnce(server: ExternalMcpServer, fetch: OutboundFetch, options: ListingOptions): Promise<Tool[]> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error("deadline")), options.timeoutMs);
  const { signal } = deadline;
  const last: LastResponse = {};
  const client = new Client(ASSISTANT_CLIENT_INFO, { listMaxPages: LIST_MAX_PAGES });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.headers },
    fetch: recordingFetch(fetch, last, signal),
  });
  try {
    const requestOptions = { timeout: options.timeoutMs, signal };
    await client.connect(transport, requestOptions);
    const { tools } = await client.listTools(undefined, requestOptions);
    return tools;
  } catch (error) {
    throw failureOf(error, last, signal.aborted, options.timeoutMs);
  } finally {
    clearTimeout(timer);
    // Ends whatever the try left in flight (the client's own timeout does not abort its request).
    deadline.abort(new Error("done"));
    await client.close().catch(() => {});
  }
}

/** The server's tools, tried again on transient failures; throws a ListingFailure. */
export function listExternalTools(server: ExternalMcpServer, options: ListingOptions): Promise<Tool[]> {
  const fetch = outboundFetch({ publicOnly: options.publicOnly, maxResponseBytes: MAX_RESPONSE_BYTES });
  return withRetries(() => listOnce(server, fetch, options), LIST_RETRY_POLICY, {
    transient: (error) => (error instanceof ListingFailure && error.transient ? { retryAfterMs: error.retryAfterMs } : undefined),
  });
}
