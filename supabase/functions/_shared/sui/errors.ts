// How a Sui node's failures reach the service. Two kinds matter to a caller: the node could not
// be reached or did not answer (SuiUnavailable: the same call may succeed later, a 503), and the
// node refused a transaction it will never accept, as signed (SuiRejected: build a new one).
import { RpcError } from "@mysten/sui/grpc";

/** The node was unreachable, timed out, or answered with a transient gRPC status. */
export class SuiUnavailable extends Error {
  override readonly name: string = "SuiUnavailable";
  constructor(message: string, readonly grpcCode?: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The service's Sui address cannot pay for gas (no SUI coin holds the budget): a 503 as well. */
export class SuiUnfunded extends SuiUnavailable {
  override readonly name = "SuiUnfunded";
}

/** The node refused the transaction before execution (signature, stale gas coin, malformed). */
export class SuiRejected extends Error {
  override readonly name = "SuiRejected";
  constructor(message: string, readonly grpcCode: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

// gRPC statuses that say the request itself is wrong; every other status may pass on retry
// (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, and INTERNAL, which is also what the
// gRPC-web transport reports when fetch itself fails or times out).
const REFUSALS = new Set(["INVALID_ARGUMENT", "FAILED_PRECONDITION", "NOT_FOUND", "ALREADY_EXISTS", "OUT_OF_RANGE"]);

function rpcCode(error: unknown): string | undefined {
  if (error instanceof RpcError) return error.code;
  // Another copy of the runtime (a bundler's): the same shape.
  const candidate = error as { name?: unknown; code?: unknown };
  return candidate?.name === "RpcError" && typeof candidate.code === "string" ? candidate.code : undefined;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 500);
}

/**
 * Awaits a call to the node. A refusal of a transaction becomes SuiRejected when `refusable`
 * (execution), otherwise (a read we built wrong) it stays an error of ours; the rest is SuiUnavailable.
 */
export async function fromSui<T>(call: Promise<T>, options: { refusable?: boolean } = {}): Promise<T> {
  try {
    return await call;
  } catch (error) {
    const code = rpcCode(error);
    if (code && REFUSALS.has(code)) {
      if (options.refusable) throw new SuiRejected(`The Sui node refused the transaction: ${messageOf(error)}`, code, { cause: error });
      throw new Error(`The Sui node refused a read (${code}): ${messageOf(error)}`, { cause: error });
    }
    if (code) {
      throw new SuiUnavailable(`The Sui node did not answer: ${messageOf(error)}`, code, { cause: error });
    }
    throw error;
  }
}
