// TRACE, TRACK and other methods no route serves, on the real Deno gateway over raw sockets (a
// fetch client refuses to send TRACE): every function, the API and the app functions alike,
// answers 405 method_not_allowed in the one error body with a request id and an Allow header, and
// nothing fails in the log.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
let gateway: GatewayProcess;

beforeAll(async () => {
  t = await createTestContext();
  gateway = await startGatewayProcess({ DATABASE_URL: t.url });
});
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await t.close();
});

/** One request written as is on a fresh connection; the parsed response once the server closes it. */
function exchange(method: string, path: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: Number(new URL(gateway.url).port) });
    let raw = "";
    socket.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    socket.once("error", reject);
    socket.once("close", () => {
      const [head, ...rest] = raw.split("\r\n\r\n");
      const [statusLine, ...lines] = head!.split("\r\n");
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
    socket.once("connect", () => socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
  });
}

const PATHS = [
  "/api/v3/me",
  "/health",
  "/mcp",
  "/functions/v1/api/v3/me",
  "/functions/v1/chat-with-assistant",
  "/functions/v1/transcribe-audio",
  "/functions/v1/discover-mcp-capabilities",
  "/functions/v1/rename-chat-for-event",
];

describe("a method no route serves", () => {
  it.each(PATHS.flatMap((path) => ["TRACE", "TRACK", "PROPFIND", "get"].map((method) => [method, path])))(
    "%s %s answers 405 method_not_allowed in the one error body",
    async (method, path) => {
      const response = await exchange(method, path);
      expect(response.status).toBe(405);
      expect(response.headers["content-type"]).toMatch(/^application\/json/);
      expect(response.headers.allow).toBeTruthy();
      const body = JSON.parse(response.body);
      expect(body).toMatchObject({ error: true, code: "method_not_allowed", request_id: response.headers["x-request-id"] });
      expect(body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  it("leaves no failure in the gateway's log", () => {
    expect(gateway.output()).not.toMatch(/TypeError|Method is forbidden|Internal Server Error/);
  });
});
