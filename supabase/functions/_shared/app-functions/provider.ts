// The AI provider of transcribe-audio and rename-chat-for-event: any server speaking OpenAI's API
// (ASSISTANT_BASE_URL, ASSISTANT_API_KEY), reached with the real `openai` client. The client's own
// retries are off because it would wait as long as any Retry-After asks; calls go through
// withRetries instead: a connection failure, a timeout, 408, 429 and 5xx are tried again with
// jittered backoff, or after the provider's Retry-After when it is at most RETRY_POLICY.maxDelayMs.
import OpenAI from "openai";
import type { Config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { isTransientStatus, parseRetryAfter, type RetryPolicy, type Transient, withRetries } from "../http/retry.ts";

/** Three tries; a Retry-After over 4 s is not waited for (the failure is answered instead). */
export const RETRY_POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 4000 };

/** Why function `name` cannot call the provider (for 503 provider_not_configured), or undefined when it can. */
export const missingProvider = (name: string) => (config: Config) =>
  config.ASSISTANT_API_KEY ? undefined : `No AI provider is configured for ${name}: set ASSISTANT_API_KEY (and ASSISTANT_BASE_URL for one other than OpenAI).`;

/** The provider's client (build it once per app), or undefined without ASSISTANT_API_KEY. */
export function providerClient(config: Config): OpenAI | undefined {
  if (!config.ASSISTANT_API_KEY) return undefined;
  return new OpenAI({ baseURL: config.ASSISTANT_BASE_URL, apiKey: config.ASSISTANT_API_KEY, maxRetries: 0, timeout: config.ASSISTANT_TIMEOUT_MS });
}

/** Whether the provider's failure is worth another try, and the wait it asked for (retry-after-ms or Retry-After). */
function transient(error: unknown): Transient | undefined {
  if (error instanceof OpenAI.APIUserAbortError) return undefined;
  if (error instanceof OpenAI.APIConnectionError) return {};
  if (!(error instanceof OpenAI.APIError) || error.status === undefined || !isTransientStatus(error.status)) return undefined;
  const milliseconds = error.headers?.get("retry-after-ms");
  return { retryAfterMs: milliseconds && /^\d+(\.\d+)?$/.test(milliseconds) ? Number(milliseconds) : parseRetryAfter(error.headers?.get("retry-after")) };
}

/** Calls the provider, trying again while its failure is transient; throws the last failure as it was. */
export const callProvider = <T>(call: () => Promise<T>, signal: AbortSignal): Promise<T> =>
  withRetries(call, RETRY_POLICY, { transient, signal });

/**
 * The provider's failure as the service answers it: 503 provider_unavailable (it may work again
 * soon; with its Retry-After) or 502 provider_error (it refused the request: the key or the model,
 * say). Never the provider's own message, which may quote the key. Anything else is rethrown.
 */
export function providerFailure(error: unknown): ApiError {
  if (!(error instanceof OpenAI.APIError)) throw error;
  const details = error.status === undefined ? undefined : { providerStatus: error.status };
  const wait = transient(error);
  if (!wait) return new ApiError(502, "provider_error", `The AI provider refused the request (HTTP ${error.status ?? "none"}).`, details);
  const seconds = wait.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(wait.retryAfterMs / 1000));
  return new ApiError(503, "provider_unavailable", "The AI provider is unavailable; try again shortly.", details,
    seconds === undefined ? undefined : { "Retry-After": String(seconds) });
}
