// Retries of transient upstream failures (an MCP server, a provider) with exponential backoff:
// "full jitter" (a random wait up to base × 2^(attempt-1), capped), so that many callers failing
// together do not come back together. An upstream that names its wait (Retry-After) is waited for
// exactly that long, or not retried at all when it asks for longer than the cap: the caller's own
// deadline is worth more than a late success. Only what `transient` recognises is retried; any
// other error, and the last one, reaches the caller as it was thrown.

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** A failure worth trying again, with the wait the upstream asked for, when it asked. */
export interface Transient {
  retryAfterMs?: number;
}

export interface RetryOptions {
  /** Whether `error` is transient (and the wait it names); undefined for a failure that retrying would repeat. */
  transient(error: unknown): Transient | undefined;
  /** Stops waiting and trying: the wait ends at once and the last error is thrown. */
  signal?: AbortSignal;
  /** For tests: the random source and the clock's wait. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The wait before try `attempt + 1` (attempt counts from 1), or undefined when the upstream asks for more than the cap. */
export function retryDelayMs(attempt: number, policy: RetryPolicy, transient: Transient, random: () => number = Math.random): number | undefined {
  if (transient.retryAfterMs !== undefined) return transient.retryAfterMs <= policy.maxDelayMs ? Math.max(0, transient.retryAfterMs) : undefined;
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
}

const sleepFor = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/** Runs `work` (told its try number) until it succeeds, fails for good, or the tries run out. */
export async function withRetries<T>(work: (attempt: number) => Promise<T>, policy: RetryPolicy, options: RetryOptions): Promise<T> {
  const { random = Math.random, sleep = sleepFor, signal } = options;
  for (let attempt = 1;; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      const transient = attempt < policy.attempts && !signal?.aborted ? options.transient(error) : undefined;
      const delay = transient && retryDelayMs(attempt, policy, transient, random);
      if (delay === undefined) throw error;
      await sleep(delay, signal);
      if (signal?.aborted) throw error;
    }
  }
}

/**
 * A Retry-After header as milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110 10.2.3);
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** HTTP statuses that say "try again later": a timeout, too many requests, a server-side failure (but 501, which stays). */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}
