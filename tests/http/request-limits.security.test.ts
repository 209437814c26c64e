// Limits every route gets from the base app: URL, headers and query
// size, the size of validation answers, and bodies only in UTF-8 without a content coding.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { createEvent, eventBody, EVM_COLLECTION } from "../events/event-fixtures.ts";

let t: TestContext;
let user: UserWithKey;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey();
});
afterAll(() => t.close());

async function eventCount(): Promise<number> {
  const [row] = await t.owner`select count(*)::int as n from community.events where owner_id = ${user.id}`;
  return row!.n as number;
}

const query = (count: number) => Array.from({ length: count }, (_, i) => `p${i}=`).join("&");

describe("query parameters: more than 100 answer 400 too_many_parameters before any validation", () => {
  it.each(["/api/v3/events", "/api/v3/hubs", "/health", "/api/v3/nope"])("on %s", async (path) => {
    const response = await t.call(`${path}?${query(1000)}`, { key: user.key });
    const text = await response.clone().text();
    const body = await expectErrorBody(response, 400, "too_many_parameters");
    expect(body.details).toEqual({ limit: 100 });
    expect(text.length).toBeLessThan(1000);
  });

  it("empty pairs count too, empty segments do not", async () => {
    await expectErrorBody(await t.call(`/api/v3/events?${"=&".repeat(101)}`, { key: user.key }), 400, "too_many_parameters");
    expect((await t.call(`/api/v3/events?${"&".repeat(500)}take=5`, { key: user.key })).status).toBe(200);
  });

  it("100 parameters are validated as usual, and the answer echoes 20 of their issues", async () => {
    const response = await t.call(`/api/v3/events?${query(100)}`, { key: user.key });
    const body = await expectErrorBody(response, 400, "unknown_parameter");
    expect(body.details.issueCount).toBe(100);
    expect(body.details.issues).toHaveLength(20);
    expect(body.details.issues[0]).toEqual({ path: "p0", message: "unknown parameter `p0`" });
  });
});

describe("validation answers are bounded", () => {
  const badRule = { chain: "ton", chainId: "x", collection: 7, grants: "all" };

  it("a body with many issues gets at most 20 of them, their count, and a short message", async () => {
    // 20 access rules with four faults each: every issue used to be echoed twice.
    const request = eventBody({ accessRules: Array.from({ length: 20 }, () => badRule) });
    const response = await t.call("/api/v3/events", { method: "POST", key: user.key, json: request });
    const text = await response.clone().text();
    const body = await expectErrorBody(response, 400, "validation_failed");
    expect(body.details.issues).toHaveLength(20);
    expect(body.details.issueCount).toBe(80);
    expect(body.details.issues[0].path).toBe("accessRules.0.chain");
    expect(body.message).toMatch(/^The request is invalid: accessRules\.0\.chain: [^;]+; [^;]+; [^;]+ \(and \d+ more\)$/);
    expect(text.length).toBeLessThan(3000);
    expect(await eventCount()).toBe(0);
  });

  it("a few issues are all listed, with their count", async () => {
    const response = await t.call("/api/v3/events", { method: "POST", key: user.key, json: eventBody({ visibility: "secret", status: "DRAFT" }) });
    const body = await expectErrorBody(response, 400, "validation_failed");
    expect(body.details.issues.map((i: { path: string }) => i.path)).toEqual(["visibility", "status"]);
    expect(body.details.issueCount).toBe(2);
    expect(body.message).not.toContain("more)");
  });

  it("an issue's text is clipped: a 20 KB unknown field name is not echoed", async () => {
    const response = await t.call("/api/v3/events", { method: "POST", key: user.key, json: eventBody({ ["k".repeat(20_000)]: 1 }) });
    const text = await response.clone().text();
    const body = await expectErrorBody(response, 400, "validation_failed");
    expect(body.details.issues[0].message.length).toBeLessThanOrEqual(200);
    expect(text.length).toBeLessThan(1000);
  });
});

describe("bodies are UTF-8 without a content coding, or 415", () => {
  const post = (headers: Record<string, string>, path = "/api/v3/events", json: unknown = eventBody()) =>
    t.call(path, { method: "POST", key: user.key, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(json) });

  it.each(["gzip", "br", "deflate", "GZIP", "identity, gzip", "x-custom"])("Content-Encoding: %s answers 415 unsupported_content_encoding", async (coding) => {
    const response = await post({ "content-encoding": coding });
    expect(response.headers.get("accept-encoding")).toBe("identity");
    await expectErrorBody(response, 415, "unsupported_content_encoding");
    expect(await eventCount()).toBe(0);
  });

  it.each([
    "application/json; charset=utf-16",
    'application/json; charset="UTF-16LE"',
    "application/json;charset=iso-8859-1",
    "application/json; charset=latin1",
    'application/json; foo="a;b"; charset=us-ascii',
    "application/json; charset=",
  ])("Content-Type: %s answers 415 unsupported_charset", async (contentType) => {
    await expectErrorBody(await post({ "content-type": contentType }), 415, "unsupported_charset");
    expect(await eventCount()).toBe(0);
  });

  it.each([
    ["content-encoding", "identity"],
    ["content-encoding", "IDENTITY"],
    ["content-type", "application/json; charset=utf-8"],
    ["content-type", 'application/json; charset="UTF-8"'],
    ["content-type", "application/json;charset=utf8"],
  ])("%s: %s is accepted", async (name, value) => {
    const response = await post({ [name]: value });
    expect(response.status, await response.clone().text()).toBe(201);
  });

  it("applies to every route that takes a body", async () => {
    const event = await createEvent(t, user.key);
    const rule = { chain: "evm", chainId: 1, collection: EVM_COLLECTION, grants: ["view"] };
    const requests: Array<[string, string, unknown]> = [
      ["PATCH", `/api/v3/events/${event.id}`, { name: "Renamed", accessRules: [rule] }],
      ["POST", "/api/v3/hubs", { name: "Hub", hubType: "group" }],
      ["POST", "/api/v3/me/crypto-addresses", { message: "m", signature: `0x${"00".repeat(65)}`, connector: "metamask" }],
    ];
    for (const [method, path, json] of requests) {
      const headers = { "content-type": "application/json" };
      const encoded = await t.call(path, { method, key: user.key, headers: { ...headers, "content-encoding": "gzip" }, body: JSON.stringify(json) });
      await expectErrorBody(encoded, 415, "unsupported_content_encoding");
      const utf16 = await t.call(path, { method, key: user.key, headers: { "content-type": "application/json; charset=utf-16" }, body: JSON.stringify(json) });
      await expectErrorBody(utf16, 415, "unsupported_charset");
    }
    expect((await (await t.call(`/api/v3/events/${event.id}`, { key: user.key })).json()).name).toBe(event.name);
  });
});

describe("URL and header limits answer in the error body with a request id", () => {
  it("a URL whose path and query exceed 8 KiB answers 414 uri_too_long", async () => {
    const response = await t.call(`/health?pad=${"x".repeat(8192)}`, { headers: { "x-request-id": "long-url-1" } });
    expect(response.headers.get("x-request-id")).toBe("long-url-1");
    const body = await expectErrorBody(response, 414, "uri_too_long");
    expect(body.request_id).toBe("long-url-1");
  });

  it("a URL of exactly 8 KiB is served", async () => {
    const path = "/health?pad=";
    expect((await t.call(path + "x".repeat(8192 - path.length))).status).toBe(200);
  });

  it("headers over 16 KiB answer 431 headers_too_large", async () => {
    const response = await t.call("/health", { headers: { "x-request-id": "big-1", "x-padding": "x".repeat(16 * 1024) } });
    expect(response.headers.get("x-request-id")).toBe("big-1");
    expect((await expectErrorBody(response, 431, "headers_too_large")).request_id).toBe("big-1");
  });

  it("more than 100 header fields answer 431 headers_too_large; 100 are served", async () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-field-${i}`, "v"]));
    await expectErrorBody(await t.call("/health", { headers: fields(101) }), 431, "headers_too_large");
    expect((await t.call("/health", { headers: fields(100) })).status).toBe(200);
  });

  it("a browser can read these refusals (CORS headers present)", async () => {
    const response = await t.call(`/health?pad=${"x".repeat(9000)}`, { headers: { origin: "https://any.example" } });
    expect(response.status).toBe(414);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });
});
