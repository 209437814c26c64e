// A loopback proxy that adds a credential: the MCP conformance suite sends no auth header, so it
// talks to this proxy, which forwards every request to the real gateway with the credential's
// headers set (x-api-key for /mcp/backend; `Authorization: Bearer` with an OAuth access token for /mcp).
// Everything else passes through as sent, Host and Origin included, so the suite's DNS-rebinding
// scenario reaches the endpoint's own checks; bodies stream both ways (SSE answers included).
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

export interface CredentialProxy {
  /** http://127.0.0.1:<port>: the gateway's paths under the proxy's origin. */
  url: string;
  /** How many requests went through, for the test to see the suite did talk to the endpoint. */
  requests(): number;
  close(): Promise<void>;
}

export async function startCredentialProxy(target: string, credential: Record<string, string>): Promise<CredentialProxy> {
  const upstream = new URL(target);
  let count = 0;
  const server = createServer((incoming, outgoing) => {
    count += 1;
    const headers: IncomingHttpHeaders = { ...incoming.headers };
    for (const [name, value] of Object.entries(credential)) headers[name.toLowerCase()] = value;
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(`proxy: ${error.message}`);
    });
    incoming.pipe(forwarded);
  });
  await listenOnLoopback(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
