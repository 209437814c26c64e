// A response of Server-Sent Events written as the work goes: `event: <type>` and one `data:` line of
// JSON per event (JSON never holds a raw line break). A client that goes away cancels the body: the
// stream then aborts its signal, and what is sent after that is dropped.

const encoder = new TextEncoder();

export class EventStream {
  readonly response: Response;
  private readonly gone = new AbortController();
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;

  constructor(headers: Record<string, string> = {}) {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.closed = true;
        this.gone.abort();
      },
    });
    this.response = new Response(body, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-store", "x-accel-buffering": "no", ...headers },
    });
  }

  /** Aborted when the client cancelled the body (closed the connection). */
  get clientGone(): AbortSignal {
    return this.gone.signal;
  }

  send(type: string, data: unknown): void {
    if (this.closed) return;
    this.controller.enqueue(encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.controller.close();
  }
}
