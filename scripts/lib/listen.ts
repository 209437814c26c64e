// How the stand-ins (the local servers that replace third parties in tests and `npm start`) listen:
// on loopback, on a free port unless told one, refusing at once when the port is taken, and a
// handler's own bug answered as a 500 and logged under the stand-in's name instead of ending the
// process or leaving the client waiting.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Server as NetServer } from "node:net";

/** Listens on 127.0.0.1:`port` (0: a free one); resolves with the port, rejects when it is taken. Any TCP server (HTTP, HTTP/2, a bare socket). */
export function listenOnLoopback(server: NetServer, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export interface LoopbackServer {
  server: Server;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Stops listening and drops the open connections (streams included). */
  close(): Promise<void>;
}

export interface ServeOptions {
  port?: number;
  /** Where a handler's failure is written; console.error by default. */
  log?: (line: string) => void;
}

/** Serves `handle` on loopback; a failure of `handle` is logged as `[name] ...` and answered 500. */
export async function serveOnLoopback(
  name: string,
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void> | void,
  options: ServeOptions = {},
): Promise<LoopbackServer> {
  const log = options.log ?? console.error;
  const server = createServer((request, response) => {
    Promise.resolve().then(() => handle(request, response)).catch((error) => {
      log(`[${name}] ${request.method} ${request.url} failed: ${error instanceof Error ? error.stack ?? error.message : error}`);
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" }).end(`${name} failed: ${error instanceof Error ? error.message : error}`);
      else response.end();
    });
  });
  const port = await listenOnLoopback(server, options.port);
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
