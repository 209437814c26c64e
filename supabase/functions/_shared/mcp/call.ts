// A tools/call's transaction (Database.open). The endpoint decides that a call runs in one; the
// tool opens it when its operation starts, so BEGIN, the caller's scope and the savepoint go out
// in the same write as the operation's first statement, and the connection is held only while the
// operation and its record run. The endpoint took the rate limit before, in a statement of its own.
// A refusal as it opens (a key revoked meanwhile) is answered by the endpoint over HTTP, as before a
// call.
import type { OpenTransaction } from "../db/open-transaction.ts";

export class McpCall {
  private taken = false;
  private refusal: unknown;
  private finished: Promise<void> | undefined;

  constructor(private readonly open: () => Promise<OpenTransaction>) {}

  /**
   * Runs `work` in the call's transaction, which `work` must finish (commit or abandon); undefined
   * when another tool of the request already took it. `refused` tells whether the transaction's
   * opening was refused (then nothing ran and nothing is recorded).
   */
  take<T>(work: (transaction: OpenTransaction, refused: (error: unknown) => void) => Promise<T>): Promise<T> | undefined {
    if (this.taken) return undefined;
    this.taken = true;
    const refused = (error: unknown) => {
      this.refusal = error;
    };
    // A transaction that cannot open (the database is down) is refused like a refused scope.
    const running = this.open().then((transaction) => work(transaction, refused), (error) => {
      refused(error);
      throw error;
    });
    this.finished = running.then(() => {}, () => {});
    return running;
  }

  /**
   * After the SDK answered (a JSON answer once the tool finished, or an event stream that it is
   * still writing): waits for the tool, then throws a refusal of the call's opening, to be answered
   * over HTTP with its status (401, 429, 503), or hands the answer on.
   */
  async settle(response: Response): Promise<Response> {
    await this.finished;
    if (this.refusal === undefined) return response;
    await response.body?.cancel().catch(() => {});
    throw this.refusal;
  }
}
