// The retry helper of transient upstream failures (_shared/outbound/retry.ts): exponential backoff with
// full jitter under a cap, Retry-After honoured (or no retry when it asks for more than the cap),
// permanent failures and the last one thrown as they were, an abort ending the waiting.
import { describe, expect, it } from "vitest";
import { isTransientStatus, parseRetryAfter, retryDelayMs, withRetries } from "../../supabase/functions/_shared/outbound/retry.ts";

const POLICY = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };

class Busy extends Error {
  constructor(readonly retryAfterMs?: number) {
    super("busy");
  }
}
const transient = (error: unknown) => (error instanceof Busy ? { retryAfterMs: error.retryAfterMs } : undefined);

/** `work` failing with `failures` in turn, then answering "done"; the waits it was given. */
function scripted(failures: Error[]) {
  const waits: number[] = [];
  let calls = 0;
  const work = async () => {
    const failure = failures[calls++];
    if (failure) throw failure;
    return "done";
  };
  const sleep = async (ms: number) => void waits.push(ms);
  return { work, sleep, waits, calls: () => calls };
}

describe("retryDelayMs", () => {
  it("waits a random share of base × 2^(attempt-1), never past the cap", () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, POLICY, {}, () => 0.999))).toEqual([99, 199, 399, 799, 999]);
    expect(retryDelayMs(3, POLICY, {}, () => 0)).toBe(0);
    expect(retryDelayMs(3, POLICY, {}, () => 0.5)).toBe(200);
  });

  it("waits what Retry-After asks, and not at all when it asks for more than the cap", () => {
    expect(retryDelayMs(1, POLICY, { retryAfterMs: 700 }, () => 0.999)).toBe(700);
    expect(retryDelayMs(1, POLICY, { retryAfterMs: 1_001 })).toBeUndefined();
  });
});

describe("withRetries", () => {
  it("tries again after transient failures, with growing waits, until it succeeds", async () => {
    const { work, sleep, waits, calls } = scripted([new Busy(), new Busy(), new Busy()]);
    expect(await withRetries(work, POLICY, { transient, sleep, random: () => 0.5 })).toBe("done");
    expect(calls()).toBe(4);
    expect(waits).toEqual([50, 100, 200]);
  });

  it("honours Retry-After between tries", async () => {
    const { work, sleep, waits } = scripted([new Busy(300)]);
    expect(await withRetries(work, POLICY, { transient, sleep })).toBe("done");
    expect(waits).toEqual([300]);
  });

  it("throws the last failure once the tries run out", async () => {
    const last = new Busy();
    const { work, sleep, calls } = scripted([new Busy(), new Busy(), new Busy(), last]);
    await expect(withRetries(work, POLICY, { transient, sleep })).rejects.toBe(last);
    expect(calls()).toBe(POLICY.attempts);
  });

  it("never retries a permanent failure, nor one whose Retry-After is past the cap", async () => {
    const permanent = new Error("bad request");
    const first = scripted([permanent]);
    await expect(withRetries(first.work, POLICY, { transient, sleep: first.sleep })).rejects.toBe(permanent);
    expect(first.calls()).toBe(1);
    const tooLong = new Busy(5_000);
    const second = scripted([tooLong]);
    await expect(withRetries(second.work, POLICY, { transient, sleep: second.sleep })).rejects.toBe(tooLong);
    expect(second.calls()).toBe(1);
  });

  it("stops waiting and trying once aborted", async () => {
    const controller = new AbortController();
    const failure = new Busy(900);
    let calls = 0;
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    await expect(withRetries(async () => {
      calls++;
      throw failure;
    }, POLICY, { transient, signal: controller.signal })).rejects.toBe(failure);
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(800);
  });
});

describe("parseRetryAfter and isTransientStatus", () => {
  it("reads delay-seconds and HTTP dates", () => {
    const now = Date.parse("2026-11-25T10:00:00Z");
    expect(parseRetryAfter("2", now)).toBe(2_000);
    expect(parseRetryAfter("Wed, 25 Nov 2026 10:00:03 GMT", now)).toBe(3_000);
    expect(parseRetryAfter("Wed, 25 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it("calls timeouts, rate limits and server failures transient, but not 501 or a client's error", () => {
    expect([408, 429, 500, 502, 503, 504].every(isTransientStatus)).toBe(true);
    expect([400, 401, 403, 404, 501].some(isTransientStatus)).toBe(false);
  });
});
