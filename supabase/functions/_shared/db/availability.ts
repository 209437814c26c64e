import postgres from "postgres";
import { ApiError } from "../http/errors.ts";

/** How long a client should wait before retrying while the database is away: it is usually back within seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** A 503 the caller should retry after DATABASE_RETRY_AFTER_SECONDS. */
export const databaseRetryLater = (code: string, message: string) =>
  new ApiError(503, code, message, undefined, { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) });

export const databaseUnavailable = () => databaseRetryLater("database_unavailable", "The database is not reachable right now; retry shortly.");

// postgres.js's own connection errors, and the socket's.
const CONNECTION_ERROR_CODES = new Set([
  "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT",
  "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ENOTFOUND",
]);

/**
 * Whether `error` says the database could not be reached or went away, rather than that it refused
 * the request: a lost connection, or the server shutting down, starting up or out of connections
 * (SQLSTATE class 08, 57P01-57P03, 53300).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof postgres.PostgresError) {
    return error.code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(error.code);
  }
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && CONNECTION_ERROR_CODES.has(code);
}

const PROBE_INTERVAL_MS = 250;

/**
 * Whether the database answers, so that an outage costs each request a fast 503 rather than a wait
 * in postgres.js's queue behind reconnect attempts. A lost connection makes a probe ask (`probe`, one
 * `select 1`); requests go on meanwhile. While probes fail the database is down: waiting requests are
 * refused and new ones are refused before they queue, and the probe repeats every 250 ms, so the
 * first request after the database is back is served.
 */
export class Availability {
  private state: "up" | "probing" | "down" = "up";
  private readonly waiting = new Set<(error: ApiError) => void>();

  constructor(private readonly probe: () => Promise<unknown>, private readonly probeTimeoutMs: number) {}

  get down(): boolean {
    return this.state === "down";
  }

  /** Throws the 503 while the database is down. */
  refuseWhileDown(): void {
    if (this.state === "down") throw databaseUnavailable();
  }

  /** An error a statement met: a connection-level one starts probing, unless a probe runs already. */
  noticed(error: unknown): void {
    if (this.state !== "up" || !isDatabaseUnavailable(error)) return;
    this.state = "probing";
    void this.probeUntilUp();
  }

  /**
   * What `start` waits for (a connection, a statement), refused with the 503 at once while the
   * database is down (then `start` is not called), as soon as it is found down, or after
   * `timeoutMs`. What arrives after its waiter gave up goes to `late` (a reserved connection must be
   * released).
   */
  wait<T>(start: () => Promise<T>, timeoutMs: number, late: (value: T) => void = () => {}): Promise<T> {
    this.refuseWhileDown();
    const waiting = start();
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const give = (error: ApiError) => {
        if (settled) return;
        settled = true;
        cleanUp();
        reject(error);
      };
      const timer = setTimeout(() => give(databaseUnavailable()), timeoutMs);
      const cleanUp = () => {
        clearTimeout(timer);
        this.waiting.delete(give);
      };
      this.waiting.add(give);
      waiting.then(
        (value) => {
          if (settled) return late(value);
          settled = true;
          cleanUp();
          resolve(value);
        },
        (error) => {
          if (settled) return;
          settled = true;
          cleanUp();
          reject(error);
        },
      );
    });
  }

  private async probeUntilUp(): Promise<void> {
    while (!(await this.answers())) {
      if (this.state !== "down") {
        this.state = "down";
        console.error("[db] the database does not answer: requests get 503 database_unavailable until it does");
        for (const give of [...this.waiting]) give(databaseUnavailable());
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
    if (this.state === "down") console.error("[db] the database answers again");
    this.state = "up";
  }

  private async answers(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.probeTimeoutMs)));
    try {
      return await Promise.race([this.probe().then(() => true, () => false), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
