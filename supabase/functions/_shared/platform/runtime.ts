// The one place that touches Deno globals, so every other module runs under Deno and Node.
interface Conn {
  readonly localAddr: { port: number };
  readonly remoteAddr: { hostname: string; port: number };
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  closeWrite(): Promise<void>;
  close(): void;
  setNoDelay(noDelay?: boolean): void;
}

/**
 * What a handler is told about the request's connection besides the request (Deno.ServeHandlerInfo's
 * shape; a Hono app reads it as `c.env`): its peer, the client or the proxy in front.
 */
export interface ConnectionInfo {
  remoteAddr?: { hostname?: string; port?: number };
}

interface HandlerInfo {
  remoteAddr: { hostname?: string; port?: number };
  /** Settles once the response has been sent (rejects when it could not be). */
  completed: Promise<void>;
}

type Handler = (request: Request, connection: ConnectionInfo) => Response | Promise<Response>;

declare const Deno:
  | {
    env: { toObject(): Record<string, string> };
    serve(
      options: { hostname?: string; port?: number; onListen?: () => void },
      handler: (request: Request, info: HandlerInfo) => Response | Promise<Response>,
    ): { addr: { port: number }; shutdown(): Promise<void> };
    listen(options: { hostname?: string; port?: number }): { accept(): Promise<Conn>; close(): void };
    connect(options: { hostname: string; port: number }): Promise<Conn>;
  }
  | undefined;

export type Environment = Record<string, string | undefined>;

/** Supabase's Edge Runtime: keeps a function alive after its response for promises handed to waitUntil. */
declare const EdgeRuntime: { waitUntil(task: Promise<unknown>): void } | undefined;

/**
 * Where work may outlive the response that started it: Supabase's Edge Runtime (which keeps the
 * function alive until the task settles); undefined elsewhere, where a long-running process does
 * that work in its own loops.
 */
export function afterResponseHost(): ((task: Promise<unknown>) => void) | undefined {
  if (typeof EdgeRuntime === "undefined" || typeof EdgeRuntime?.waitUntil !== "function") return undefined;
  return (task) => EdgeRuntime!.waitUntil(task);
}

export function runtimeEnvironment(): Environment {
  if (typeof Deno !== "undefined") return Deno.env.toObject();
  return (globalThis as { process?: { env: Environment } }).process?.env ?? {};
}

export interface ServeOptions {
  hostname?: string;
  port?: number;
  /** Close a connection that waits longer than this for a complete request head (see serveGuarded). */
  headerTimeoutMs?: number;
}

interface Server {
  shutdown(): Promise<void>;
}

/** Serves a fetch handler with Deno (production, `npm start`); resolves once it listens. */
export function serve(handler: Handler, options: ServeOptions = {}): Promise<Server> {
  if (typeof Deno === "undefined") throw new Error("serve() needs Deno; under Node call app.request() instead");
  const { headerTimeoutMs, ...address } = options;
  return headerTimeoutMs === undefined ? denoServe(address, handler) : serveGuarded(handler, address, headerTimeoutMs);
}

async function denoServe(
  address: { hostname?: string; port?: number },
  handler: (request: Request, info: HandlerInfo) => Response | Promise<Response>,
): Promise<{ addr: { port: number }; shutdown(): Promise<void> }> {
  let listening!: () => void;
  const listened = new Promise<void>((resolve) => (listening = resolve));
  const server = Deno!.serve({ ...address, onListen: () => listening() }, handler);
  await listened;
  return server;
}

/**
 * Deno.serve has no header-read timeout (denoland/deno#3515; measured on 2.9.5): a client that sends
 * nothing, or one header line every few seconds, holds its connection forever. So the public
 * socket is ours: each connection is relayed to Deno.serve on a loopback port and closed once it
 * has waited `timeoutMs` for a request head, counted from the accept and from the end of each
 * response (Go's ReadHeaderTimeout, which also bounds idle keep-alive; an upgraded connection such as
 * a WebSocket would be closed too, and none is served). A request finds its relay by its remote
 * port, the relay's end of the loopback connection, and the handler is told the relay's client as the
 * peer (Deno.serve's own peer is the relay). The relay costs throughput (docs/performance.md).
 */
async function serveGuarded(handler: Handler, address: { hostname?: string; port?: number }, timeoutMs: number): Promise<Server> {
  const relays = new Map<number, Relay>();
  const inner = await denoServe({ hostname: "127.0.0.1", port: 0 }, (request, info) => {
    const relay = info.remoteAddr.port === undefined ? undefined : relays.get(info.remoteAddr.port);
    relay?.requestStarted(info.completed);
    return handler(request, { remoteAddr: relay?.client });
  });
  const listener = Deno!.listen(address);
  let stopping = false;
  const accepting = (async () => {
    while (!stopping) {
      try {
        void relay(await listener.accept(), inner.addr.port, timeoutMs, relays);
      } catch (error) {
        if (stopping) break;
        // Out of file descriptors, say: keep serving the connections there are, and try again.
        console.error("[gateway] accepting a connection failed:", error);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  })();
  return {
    shutdown: async () => {
      stopping = true;
      listener.close();
      await accepting;
      // Lets requests in flight finish; each relay then sees its loopback end close.
      await inner.shutdown();
    },
  };
}

interface Relay {
  /** The peer of the relayed connection. */
  client: { hostname: string; port: number };
  requestStarted(completed: Promise<void>): void;
}

async function relay(client: Conn, port: number, timeoutMs: number, relays: Map<number, Relay>): Promise<void> {
  let upstream: Conn | undefined;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let active = 0;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    if (upstream) relays.delete(upstream.localAddr.port);
    for (const conn of [client, upstream]) {
      try {
        conn?.close();
      } catch { /* already closed by the peer */ }
    }
  };
  const awaitHead = () => {
    if (!closed) timer = setTimeout(close, timeoutMs);
  };
  awaitHead();
  try {
    upstream = await Deno!.connect({ hostname: "127.0.0.1", port });
  } catch {
    return close();
  }
  if (closed) return upstream.close(); // timed out while connecting
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  relays.set(upstream.localAddr.port, {
    client: { hostname: client.remoteAddr.hostname, port: client.remoteAddr.port },
    requestStarted(completed) {
      active += 1;
      clearTimeout(timer);
      completed.catch(() => {}).finally(() => {
        active -= 1;
        if (active === 0) awaitHead();
      });
    },
  });
  void pump(client, upstream);
  // The server is done with the connection once its side ends (for example after Connection: close).
  await pump(upstream, client);
  close();
}

async function pump(from: Conn, to: Conn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    for (let n = await from.read(buffer); n !== null; n = await from.read(buffer)) {
      for (let sent = 0; sent < n;) sent += await to.write(buffer.subarray(sent, n));
    }
    await to.closeWrite();
  } catch { /* one side is closed; the relay closes both */ }
}
