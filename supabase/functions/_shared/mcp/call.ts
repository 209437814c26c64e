// A tools/call's transaction (Database.open): opened by the endpoint, in the caller's scope and with
// its rate limit, as soon as it knows the call runs in one; taken and finished by the tool (tools.ts
// runTool: the operation, then its record and COMMIT); released by the endpoint when no tool took it.
import type { OpenTransaction } from "../db/database.ts";

export class McpCall {
  private state: "open" | "taken" | "released" = "open";

  constructor(readonly transaction: OpenTransaction) {}

  /** The tool takes the transaction (false if the endpoint already released it); it must then finish it. */
  take(): boolean {
    if (this.state !== "open") return false;
    this.state = "taken";
    return true;
  }

  /**
   * After the SDK answered: a refusal of the scope or the rate limit (an unknown key, 429) is
   * thrown, to be answered over HTTP as before the call; otherwise the answer, whose end (or the
   * client's hang-up) releases the transaction if no tool took it.
   */
  async settle(response: Response): Promise<Response> {
    const refusal = await this.transaction.opened.then(() => undefined, (error: unknown) => error);
    if (refusal !== undefined) {
      await response.body?.cancel().catch(() => {});
      await this.releaseUnused();
      throw refusal;
    }
    // Taken: the tool finishes it. A JSON answer is complete, so no tool will take it any more.
    if (this.state !== "open") return response;
    if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
      await this.releaseUnused();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        await this.releaseUnused();
        controller.close();
      },
      cancel: async (reason) => {
        await this.releaseUnused();
        await reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  private async releaseUnused(): Promise<void> {
    if (this.state !== "open") return;
    this.state = "released";
    await this.transaction.abandon();
  }
}
