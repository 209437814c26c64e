// A response of Server-Sent Events written as the work goes: `event: <type>` and one `data:` line of
// JSON per event (JSON never holds a raw line break). A client that goes away cancels the body: the
// stream then aborts its signal, and what is sent after that is dropped. With `keepAliveMs`, a stream
// that has sent nothing for that long sends a comment line (`: keep-alive`, which every SSE client
// skips), so that proxies and load balancers do not close it as idle while a tool runs.

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

/** `Events`: each event's name and the type of its data (chat/stream-events.ts). */
export class EventStream<Events extends Record<string, unknown> = Record<string, unknown>> {
  readonly response: Response;
  private readonly gone = new AbortController();
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  private lastSentAt = Date.now();
  private keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(headers: Record<string, string> = {}, keepAliveMs?: number) {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.closed = true;
        clearInterval(this.keepAlive);
        this.gone.abort();
      },
    });
    if (keepAliveMs !== undefined) {
      this.keepAlive = setInterval(() => {
        if (Date.now() - this.lastSentAt >= keepAliveMs) this.write(KEEP_ALIVE);
      }, Math.max(10, Math.floor(keepAliveMs / 2)));
    }
    this.response = new Response(body, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-store", "x-accel-buffering": "no", ...headers },
    });
  }

  /** Aborted when the client cancelled the body (closed the connection). */
  get clientGone(): AbortSignal {
    return this.gone.signal;
  }

  send<K extends keyof Events & string>(type: K, data: Events[K]): void {
    this.write(encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.controller.close();
  }

  private write(bytes: Uint8Array): void {
    if (this.closed) return;
    this.lastSentAt = Date.now();
    this.controller.enqueue(bytes);
  }
}
