// What only the real Deno gateway shows, over raw sockets: long URLs and large
// header sections get the one error body from the app, and a connection that does not deliver a
// request head in time is closed.
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

const HEADER_TIMEOUT_MS = 1000;

let t: TestContext;
let gateway: GatewayProcess;
let port: number;

beforeAll(async () => {
  t = await createTestContext();
  gateway = await startGatewayProcess({ DATABASE_URL: t.url, HEADER_TIMEOUT_MS: String(HEADER_TIMEOUT_MS) });
  port = Number(new URL(gateway.url).port);
});
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await t.close();
});

interface Connection {
  socket: Socket;
  /** Everything received so far. */
  received: () => string;
  /** Resolves with the milliseconds from opening to the server's close, or null if still open after `ms`. */
  closedWithin: (ms: number) => Promise<number | null>;
}

function open(): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const opened = Date.now();
    let received = "";
    const closed = new Promise<number>((done) => socket.once("close", () => done(Date.now() - opened)));
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    socket.on("error", () => {}); // a reset counts as closed
    socket.once("connect", () =>
      resolve({
        socket,
        received: () => received,
        closedWithin: (ms) => Promise.race([closed, new Promise<null>((done) => setTimeout(() => done(null), ms))]),
      }));
    socket.once("error", reject);
  });
}

function parseResponse(raw: string) {
  const [head, ...rest] = raw.split("\r\n\r\n");
  const [statusLine, ...lines] = head!.split("\r\n");
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  return { status: Number(statusLine!.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

/** One request written at once on a fresh connection (Connection: close); the parsed response. */
async function exchange(target: string, headerLines: string[] = []) {
  const connection = await open();
  connection.socket.write([`GET ${target} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close", ...headerLines, "", ""].join("\r\n"));
  expect(await connection.closedWithin(10_000)).not.toBeNull();
  return parseResponse(connection.received());
}

async function expectErrorResponse(response: ReturnType<typeof parseResponse>, status: number, code: string, requestId: string) {
  expect(response.status, response.body).toBe(status);
  expect(response.headers["x-request-id"]).toBe(requestId);
  const body = JSON.parse(response.body);
  expect(body).toMatchObject({ error: true, code, request_id: requestId });
}

describe("the app answers its own limits before Deno's server refuses", () => {
  it("a 10 KiB URL answers 414 uri_too_long in the error body with x-request-id", async () => {
    const response = await exchange(`/health?pad=${"x".repeat(10 * 1024)}`, ["X-Request-Id: long-url-e2e"]);
    await expectErrorResponse(response, 414, "uri_too_long", "long-url-e2e");
  });

  it("a 20 KiB header answers 431 headers_too_large", async () => {
    const response = await exchange("/health", ["X-Request-Id: big-header-e2e", `X-Padding: ${"x".repeat(20 * 1024)}`]);
    await expectErrorResponse(response, 431, "headers_too_large", "big-header-e2e");
  });

  it("110 header fields answer 431 headers_too_large", async () => {
    const fields = Array.from({ length: 110 }, (_, i) => `X-Field-${i}: v`);
    const response = await exchange("/health", ["X-Request-Id: many-fields-e2e", ...fields]);
    await expectErrorResponse(response, 431, "headers_too_large", "many-fields-e2e");
  });
});

describe(`a connection waits at most HEADER_TIMEOUT_MS (${HEADER_TIMEOUT_MS} ms here) for a request head`, () => {
  /** Whether `raw` holds a whole response (the gateway's bodies carry a Content-Length). */
  const complete = (raw: string) => {
    const response = parseResponse(raw);
    return raw.includes("\r\n\r\n") && Buffer.byteLength(response.body, "latin1") === Number(response.headers["content-length"]);
  };

  it("trickled header lines after a served request: the connection is closed, nothing more is answered", async () => {
    const connection = await open();
    connection.socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await expect.poll(() => complete(connection.received())).toBe(true);
    expect(parseResponse(connection.received()).status).toBe(200);
    const answered = connection.received().length;

    connection.socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let lines = 0;
    const trickle = setInterval(() => connection.socket.writable && connection.socket.write(`X-Slow-${lines++}: v\r\n`), 200);
    try {
      expect(await connection.closedWithin(HEADER_TIMEOUT_MS + 5000)).not.toBeNull();
      expect(lines).toBeGreaterThan(1); // still trickling when the server closed
    } finally {
      clearInterval(trickle);
    }
    expect(connection.received().length).toBe(answered);
  });

  it("a connection that sends nothing is closed", async () => {
    const connection = await open();
    expect(await connection.closedWithin(HEADER_TIMEOUT_MS + 5000)).not.toBeNull();
    expect(connection.received()).toBe("");
  });

  it("a request whose body takes longer than the timeout is still answered (it is in flight once its head is read)", async () => {
    const { key } = await t.userWithKey();
    const connection = await open();
    connection.socket.write(`POST /api/v3/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, HEADER_TIMEOUT_MS + 300));
    connection.socket.write("{}");
    await expect.poll(() => complete(connection.received()), { timeout: 10_000 }).toBe(true);
    expect(JSON.parse(parseResponse(connection.received()).body).code).toBe("validation_failed");
  });
});
