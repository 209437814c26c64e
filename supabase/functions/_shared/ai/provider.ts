// The AI provider of the app functions (the assistant, transcriptions, room names): any server that
// speaks OpenAI's API (ASSISTANT_BASE_URL, ASSISTANT_API_KEY), reached with the real `openai` client. The client's own
// retries are off: it waits as long as a Retry-After asks, however long, and an abort during its wait
// only counts after the wait. So a stream is opened here with our own tries (retry.ts): a connection
// failure, a timeout, 408, 429 and 5xx are tried again with jittered backoff or after the Retry-After
// the provider names, unless it names more than RETRY_POLICY.maxDelayMs; the caller's signal ends the
// waiting at once. Once a stream has started nothing is retried (its text already reached the person).
import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { Stream } from "openai/streaming";
import type { Config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { isTransientStatus, parseRetryAfter, type RetryPolicy, type Transient, withRetries } from "../outbound/retry.ts";

/** Three tries before the stream starts; a Retry-After over 4 s is not waited for (the caller answers it). */
export const RETRY_POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 4000 };

/** Why function `name` cannot call the provider (for 503 provider_not_configured), or undefined when it can. */
export const missingProvider = (name: string) => (config: Config) =>
  config.ASSISTANT_API_KEY ? undefined : `No AI provider is configured for ${name}: set ASSISTANT_API_KEY (and ASSISTANT_BASE_URL for one other than OpenAI).`;

/** The provider's client (build it once per app), or undefined without ASSISTANT_API_KEY. */
export function providerClient(config: Config): OpenAI | undefined {
  if (!config.ASSISTANT_API_KEY) return undefined;
  return new OpenAI({ baseURL: config.ASSISTANT_BASE_URL, apiKey: config.ASSISTANT_API_KEY, maxRetries: 0, timeout: config.ASSISTANT_TIMEOUT_MS });
}

/** `requested` when it is one of `allowed`, else the first of them; another name is 400 `code`. */
function chosen(requested: string | undefined, allowed: readonly string[], code: string, what: string): string {
  if (requested === undefined) return allowed[0]!;
  if (allowed.includes(requested)) return requested;
  throw new ApiError(400, code, `${what} ${JSON.stringify(requested)} is not offered here.`, { allowed });
}

export const chooseModel = (config: Config, requested?: string) => chosen(requested, config.ASSISTANT_MODELS, "unknown_model", "The model");
export const chooseProvider = (config: Config, requested?: string) => chosen(requested, config.ASSISTANT_PROVIDERS, "unknown_provider", "The AI provider");

/** What the provider's failure says about trying again: a retry-after-ms or Retry-After it sent, when it sent one. */
function transient(error: unknown): Transient | undefined {
  if (error instanceof OpenAI.APIUserAbortError) return undefined;
  if (error instanceof OpenAI.APIConnectionError) return {};
  if (!(error instanceof OpenAI.APIError) || error.status === undefined || !isTransientStatus(error.status)) return undefined;
  const milliseconds = error.headers?.get("retry-after-ms");
  return { retryAfterMs: milliseconds && /^\d+(\.\d+)?$/.test(milliseconds) ? Number(milliseconds) : parseRetryAfter(error.headers?.get("retry-after")) };
}

/**
 * The provider's failure as the service answers it: 503 provider_unavailable (it may work again
 * soon; with the provider's Retry-After) or 502 provider_error (it refused the request: the
 * configuration's key or model, say). Never the provider's own message, which may quote the key.
 * Anything but the provider's error is rethrown.
 */
export function providerFailure(error: unknown): ApiError {
  if (!(error instanceof OpenAI.APIError)) throw error;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ApiError(503, "provider_unavailable", "The AI provider did not answer in time; try again shortly.");
  }
  const wait = transient(error);
  if (wait) {
    const seconds = wait.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(wait.retryAfterMs / 1000));
    return new ApiError(503, "provider_unavailable", "The AI provider is unavailable; try again shortly.",
      error.status === undefined ? undefined : { providerStatus: error.status }, seconds === undefined ? undefined : { "Retry-After": String(seconds) });
  }
  if (error.status === undefined) return new ApiError(502, "provider_error", "The AI provider's answer could not be read.");
  return new ApiError(502, "provider_error", `The AI provider refused the request (HTTP ${error.status}).`, { providerStatus: error.status });
}

/** Calls the provider, trying again while its failure is transient (RETRY_POLICY); throws the last failure as it was. */
export const callProvider = <T>(call: () => Promise<T>, signal: AbortSignal): Promise<T> =>
  withRetries(call, RETRY_POLICY, { transient, signal });

/** Opens a streamed completion, with the tries of RETRY_POLICY; throws the last failure as it was. */
export function openCompletionStream(
  client: OpenAI,
  params: Omit<ChatCompletionCreateParamsStreaming, "stream">,
  signal: AbortSignal,
): Promise<Stream<ChatCompletionChunk>> {
  return callProvider(() => client.chat.completions.create({ ...params, stream: true }, { signal }), signal);
}
