// When a failed delivery is tried again: exponential backoff with full jitter (a random wait
// between 0 and the attempt's ceiling, so receivers coming back from an outage are not hit by every
// dispatcher at once), the ceiling doubling from 10 s up to 6 h. A receiver's Retry-After (seconds
// or an HTTP date) replaces the backoff, bounded to 1 s .. 6 h. A delivery gives up (failed) when
// its next attempt would fall more than 3 days after it was queued: with these numbers that is
// 29-42 attempts (1st-99th percentile of a simulation; median 35).

const RETRY_BASE_MS = 10_000;
export const RETRY_CAP_MS = 6 * 60 * 60 * 1000;
export const RETRY_HORIZON_MS = 3 * 24 * 60 * 60 * 1000;
const MIN_WAIT_MS = 1000;

export interface RetryInput {
  /** Attempts made before this one (0 for the first). */
  previousAttempts: number;
  /** When the delivery was queued: the 3-day horizon runs from there. */
  queuedAt: Date;
  now: Date;
  /** The receiver's Retry-After header, when it sent one. */
  retryAfter?: string | null;
  random?: () => number;
}

/** The next attempt's time, or null to give up. */
export function nextAttemptAt({ previousAttempts, queuedAt, now, retryAfter, random = Math.random }: RetryInput): Date | null {
  const asked = retryAfter ? retryAfterMs(retryAfter, now) : null;
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.min(previousAttempts, 30));
  const wait = asked ?? random() * ceiling;
  const next = new Date(now.getTime() + Math.min(RETRY_CAP_MS, Math.max(MIN_WAIT_MS, wait)));
  return next.getTime() - queuedAt.getTime() > RETRY_HORIZON_MS ? null : next;
}

/** Retry-After as milliseconds from now (delta-seconds or an HTTP date), or null when unreadable. */
function retryAfterMs(value: string, now: Date): number | null {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}
