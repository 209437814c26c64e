// A loopback TCP proxy in front of PostgreSQL that counts what a client sends: statements (each
// simple Query or extended-protocol Execute message) and round trips (each time the client speaks
// again after the server answered). So a figure like "statements and round trips per MCP call" is
// measured on the wire, not inferred from the code.
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { listenOnLoopback } from "../lib/listen.ts";

export interface WireCounts {
  statements: number;
  roundTrips: number;
}

export interface WireCounter {
  port: number;
  counts: WireCounts;
  reset(): void;
  close(): Promise<void>;
}

/** Frontend messages after the startup packet: a type byte and a 4-byte length that counts itself. */
function countMessages(state: { buffer: Buffer; started: boolean }, chunk: Buffer, onMessage: (type: string) => void): void {
  state.buffer = Buffer.concat([state.buffer, chunk]);
  for (;;) {
    if (!state.started) {
      // StartupMessage (or SSLRequest): a length, then the body, no type byte.
      if (state.buffer.length < 4) return;
      const length = state.buffer.readInt32BE(0);
      if (state.buffer.length < length) return;
      state.buffer = state.buffer.subarray(length);
      state.started = true;
      continue;
    }
    if (state.buffer.length < 5) return;
    const length = state.buffer.readInt32BE(1);
    if (state.buffer.length < 1 + length) return;
    onMessage(String.fromCharCode(state.buffer[0]!));
    state.buffer = state.buffer.subarray(1 + length);
  }
}

export async function startWireCounter(target: { host: string; port: number }): Promise<WireCounter> {
  const counts: WireCounts = { statements: 0, roundTrips: 0 };
  const server: Server = createServer((client: Socket) => {
    const upstream = createConnection(target);
    const state = { buffer: Buffer.alloc(0), started: false };
    let serverSpokeLast = true;
    client.on("data", (chunk) => {
      if (serverSpokeLast) counts.roundTrips++;
      serverSpokeLast = false;
      countMessages(state, chunk, (type) => {
        if (type === "Q" || type === "E") counts.statements++;
      });
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      serverSpokeLast = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await listenOnLoopback(server);
  const port = (server.address() as { port: number }).port;
  return {
    port,
    counts,
    reset: () => {
      counts.statements = 0;
      counts.roundTrips = 0;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
