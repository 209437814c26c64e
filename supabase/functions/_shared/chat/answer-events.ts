// The events of one answer as the assistant makes them: sent while the answer is written, read in
// order by whoever answers the request (chat-with-assistant writes them as Server-Sent Events). The
// assistant never waits for its reader; what it sent before the reader came is kept until read.
import type { ChatStreamEvent, ChatStreamEvents } from "./stream-events.ts";

export class AnswerEvents implements AsyncIterable<ChatStreamEvent> {
  private readonly unread: ChatStreamEvent[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  send<K extends keyof ChatStreamEvents>(type: K, data: ChatStreamEvents[K]): void {
    if (this.closed) return;
    this.unread.push({ type, data } as ChatStreamEvent);
    this.wake?.();
  }

  /** The last event was sent. */
  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ChatStreamEvent> {
    for (;;) {
      while (this.unread.length) yield this.unread.shift()!;
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
