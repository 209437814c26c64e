import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";
import { translateDatabaseError } from "../../supabase/functions/_shared/db/database-errors.ts";
import { createEvent, eventBody, postEvent } from "../events/event-fixtures.ts";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let t: TestContext;
let user: UserWithKey;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey();
});
afterAll(() => t.close());
afterEach(() => vi.restoreAllMocks());

describe("routing errors use the one error body", () => {
  it.each(["/nope", "/api/v3/nope", "/api/v3/me/crypto-addresses/0xabc/extra"])("unknown path %s answers 404 not_found", async (path) => {
    const body = await expectErrorBody(await t.call(path, { key: user.key }), 404, "not_found");
    expect(body.message).toContain(path);
  });

  it("POST /health answers 405 method_not_allowed with Allow: GET", async () => {
    const response = await t.call("/health", { method: "POST" });
    const allow = response.headers.get("allow");
    await expectErrorBody(response, 405, "method_not_allowed");
    expect(allow?.split(/,\s*/)).toContain("GET");
    expect(allow?.split(/,\s*/)).not.toContain("POST");
  });

  it("PUT /api/v3/me answers 405 method_not_allowed with an Allow header", async () => {
    const response = await t.call("/api/v3/me", { method: "PUT", key: user.key, json: {} });
    const allow = response.headers.get("allow");
    await expectErrorBody(response, 405, "method_not_allowed");
    expect(allow?.split(/,\s*/)).toContain("GET");
    expect(allow?.split(/,\s*/)).not.toContain("PUT");
  });

  it("a path that takes both GET and POST lists both in Allow", async () => {
    const response = await t.call("/api/v3/me/crypto-addresses", { method: "PATCH", key: user.key, json: {} });
    const allow = response.headers.get("allow")?.split(/,\s*/) ?? [];
    await expectErrorBody(response, 405, "method_not_allowed");
    expect(allow).toEqual(expect.arrayContaining(["GET", "POST"]));
  });
});

describe("request bodies", () => {
  it("malformed JSON answers 400 invalid_json", async () => {
    const response = await t.call("/api/v3/me/crypto-addresses", {
      method: "POST",
      key: user.key,
      headers: { "content-type": "application/json" },
      body: '{"message": "unterminated',
    });
    await expectErrorBody(response, 400, "invalid_json");
  });

  it("a JSON body sent as another Content-Type answers 415 unsupported_media_type", async () => {
    const response = await t.call("/api/v3/me/crypto-addresses", {
      method: "POST",
      key: user.key,
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ message: "m", signature: `0x${"00".repeat(65)}`, connector: "metamask" }),
    });
    await expectErrorBody(response, 415, "unsupported_media_type");
  });

  it("a missing body answers 400 validation_failed", async () => {
    const response = await t.call("/api/v3/me/crypto-addresses", { method: "POST", key: user.key });
    await expectErrorBody(response, 400, "validation_failed");
  });

  it("a body without the required fields answers 400 validation_failed naming them", async () => {
    const response = await t.call("/api/v3/me/crypto-addresses", { method: "POST", key: user.key, json: { connector: "metamask" } });
    const body = await expectErrorBody(response, 400, "validation_failed");
    const paths = (body.details.issues as Array<{ path: string }>).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["message", "signature"]));
    expect(paths).not.toContain("connector");
  });

  it("a body over BODY_LIMIT_BYTES answers 413 payload_too_large", async () => {
    const small = await createTestContext({ BODY_LIMIT_BYTES: "2048" });
    try {
      const owner = await small.userWithKey();
      const json = { message: "x".repeat(3000), signature: `0x${"00".repeat(65)}`, connector: "metamask" };
      await expectErrorBody(
        await small.call("/api/v3/me/crypto-addresses", { method: "POST", key: owner.key, json }),
        413,
        "payload_too_large",
      );
      // Without a Content-Length header the limit is enforced on the stream.
      const streamed = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(JSON.stringify(json)));
          controller.close();
        },
      });
      const response = await small.app.request("/api/v3/me/crypto-addresses", {
        method: "POST",
        headers: { "x-api-key": owner.key, "content-type": "application/json" },
        body: streamed,
        duplex: "half",
      } as RequestInit);
      await expectErrorBody(response, 413, "payload_too_large");
      // A body under the limit reaches the handler (which then judges its content).
      const under = { message: "x".repeat(1000), signature: `0x${"00".repeat(65)}`, connector: "metamask" };
      await expectErrorBody(
        await small.call("/api/v3/me/crypto-addresses", { method: "POST", key: owner.key, json: under }),
        400,
        "siwe_message_invalid",
      );
    } finally {
      await small.close();
    }
  });
});

describe("request ids", () => {
  it("a client-supplied X-Request-Id is echoed in the header and the error body", async () => {
    const id = "client-req-0123456789";
    const response = await t.call("/api/v3/me", { headers: { "x-request-id": id } });
    expect(response.headers.get("x-request-id")).toBe(id);
    const body = await expectErrorBody(response, 401, "missing_api_key");
    expect(body.request_id).toBe(id);
  });

  it("is echoed on successful responses too", async () => {
    const response = await t.call("/api/v3/me", { key: user.key, headers: { "x-request-id": "ok-123" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("ok-123");
  });

  it.each([
    ["404", "/nope", "GET", 404, "not_found"],
    ["405", "/health", "POST", 405, "method_not_allowed"],
    ["410", "/api/v2/events", "GET", 410, "api_version_removed"],
  ] as const)("is echoed in %s error bodies", async (_label, path, method, status, code) => {
    const response = await t.call(path, { method, headers: { "x-request-id": "trace-abc" } });
    expect(response.headers.get("x-request-id")).toBe("trace-abc");
    expect((await expectErrorBody(response, status, code)).request_id).toBe("trace-abc");
  });

  it("without one, a fresh id is generated per request and used in the body", async () => {
    const first = await t.call("/api/v3/me");
    const second = await t.call("/api/v3/me");
    const id = first.headers.get("x-request-id");
    expect(id).toMatch(UUID);
    expect(second.headers.get("x-request-id")).toMatch(UUID);
    expect(second.headers.get("x-request-id")).not.toBe(id);
    expect((await expectErrorBody(first, 401, "missing_api_key")).request_id).toBe(id);
  });

  it("an X-Request-Id with unsafe characters is replaced, not echoed", async () => {
    const unsafe = "abc\"def<script>";
    const response = await t.call("/api/v3/me", { headers: { "x-request-id": unsafe } });
    const id = response.headers.get("x-request-id");
    expect(id).not.toBe(unsafe);
    expect(id).toMatch(UUID);
    expect((await expectErrorBody(response, 401, "missing_api_key")).request_id).toBe(id);
  });
});

describe("CORS", () => {
  it("answers a preflight for /api/v3/me with 204 allowing x-api-key", async () => {
    const response = await t.call("/api/v3/me", {
      method: "OPTIONS",
      headers: {
        origin: "https://any.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-api-key",
      },
    });
    expect(response.status).toBe(204);
    const allowHeaders = response.headers.get("access-control-allow-headers")?.toLowerCase().split(/,\s*/) ?? [];
    expect(allowHeaders).toContain("x-api-key");
    expect(response.headers.get("access-control-allow-methods")).toContain("GET");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("CORS_ALLOWED_ORIGINS restricts Access-Control-Allow-Origin to the listed origins", async () => {
    const shop = await createTestContext({ CORS_ALLOWED_ORIGINS: "https://shop.example" });
    try {
      const preflight = (origin: string) =>
        shop.call("/api/v3/me", {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "x-api-key" },
        });
      const allowed = await preflight("https://shop.example");
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://shop.example");
      expect(allowed.headers.get("vary")?.toLowerCase()).toContain("origin");

      const refused = await preflight("https://evil.example");
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
      // Neither a wildcard nor a look-alike origin matches.
      expect((await preflight("https://shop.example.evil.example")).headers.get("access-control-allow-origin")).toBeNull();
      expect((await preflight("http://shop.example")).headers.get("access-control-allow-origin")).toBeNull();

      // Simple (non-preflight) requests are restricted in the same way.
      const owner = await shop.userWithKey();
      const ok = await shop.call("/api/v3/me", { key: owner.key, headers: { origin: "https://shop.example" } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://shop.example");
      const other = await shop.call("/api/v3/me", { key: owner.key, headers: { origin: "https://evil.example" } });
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await shop.close();
    }
  });

  it("exposes x-request-id to browsers", async () => {
    const response = await t.call("/api/v3/me", { key: user.key, headers: { origin: "https://any.example" } });
    expect(response.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-request-id");
  });
});

describe("removed API versions", () => {
  it.each([
    ["GET", "/api/v1/events"],
    ["GET", "/api/v1"],
    ["POST", "/api/v1/checkout/sessions"],
    ["GET", "/api/v2/hubs?take=10"],
    ["DELETE", "/api/v2/me/crypto-addresses/0xabc"],
  ])("%s %s answers 410 api_version_removed pointing to v3", async (method, path) => {
    const response = await t.call(path, { method, key: user.key });
    const body = await expectErrorBody(response, 410, "api_version_removed");
    expect(body.details.base_url).toMatch(/\/api\/v3$/);
    expect(body.details.base_url).toBe(`${t.config.PUBLIC_API_ROOT}/api/v3`);
    expect(body.details.docs_url).toBe(`${t.config.PUBLIC_API_ROOT}/api/v3/docs`);
  });

  it("the docs_url it points to is served", async () => {
    const body = await (await t.call("/api/v1/anything")).json();
    const docsPath = new URL(body.details.docs_url).pathname;
    expect((await t.call(docsPath)).status).toBe(200);
  });
});

describe("internal failures", () => {
  it("a database failure inside a handler answers 500 internal_error without internals", async () => {
    const broken = await createTestContext();
    try {
      const owner = await broken.userWithKey();
      expect((await broken.call("/api/v3/me/crypto-addresses", { key: owner.key })).status).toBe(200);
      await broken.owner.unsafe("alter table core.crypto_addresses rename to crypto_addresses_moved");
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});

      const response = await broken.call("/api/v3/me/crypto-addresses", { key: owner.key, headers: { "x-request-id": "boom-1" } });
      const text = await response.clone().text();
      const body = await expectErrorBody(response, 500, "internal_error");
      expect(body.message).toBe("The service failed to process the request.");
      expect(Object.keys(body).sort()).toEqual(["code", "error", "message", "request_id", "timestamp"]);
      expect(body.request_id).toBe("boom-1");
      for (const leak of ["crypto_addresses", "relation", "does not exist", "postgres", "select", "42P01", owner.key]) {
        expect(text.toLowerCase()).not.toContain(leak.toLowerCase());
      }
      // The cause goes to the server log, tagged with the request id, without the API key.
      expect(logged).toHaveBeenCalled();
      const logLine = logged.mock.calls.map((call) => call.map(String).join(" ")).join("\n");
      expect(logLine).toContain("boom-1");
      expect(logLine).not.toContain(owner.key);
    } finally {
      await broken.close();
    }
  });

  it("a database failure during authentication answers 500 internal_error, not 401", async () => {
    const broken = await createTestContext();
    try {
      const owner = await broken.userWithKey();
      await broken.owner.unsafe("alter function core.enter_api_key_scope(bytea, text[]) rename to enter_api_key_scope_moved");
      vi.spyOn(console, "error").mockImplementation(() => {});
      // /me enters the key's scope inside core.me_by_api_key; other routes pipeline it ahead of their statements.
      for (const path of ["/api/v3/me", "/api/v3/me/crypto-addresses"]) {
        const response = await broken.call(path, { key: owner.key });
        const body = await expectErrorBody(response, 500, "internal_error");
        expect(JSON.stringify(body)).not.toMatch(/enter_api_key_scope|function|does not exist/i);
      }
    } finally {
      await broken.close();
    }
  });
});

describe("database refusals never name the schema", () => {
  // Rules the API has no code of its own for, added to a database of its own.
  let strict: TestContext;
  let owner: UserWithKey;
  beforeAll(async () => {
    strict = await createTestContext();
    owner = await strict.userWithKey();
    await strict.owner.unsafe(`
      create unique index events_one_per_owner_and_name on community.events (owner_id, name);
      alter table community.events add constraint events_name_not_shouted check (name <> upper(name))`);
  });
  afterAll(() => strict?.close());

  const expectNoSchema = (text: string) => {
    for (const leak of ["events_one_per_owner_and_name", "events_name_not_shouted", "constraint", "sqlstate", "23505", "23514", "duplicate key"]) {
      expect(text.toLowerCase()).not.toContain(leak.toLowerCase());
    }
  };

  it("a unique violation without a code of its own answers 409 conflict, naming no constraint", async () => {
    await createEvent(strict, owner.key, { name: "Twice in a row" });
    const response = await postEvent(strict, owner.key, eventBody({ name: "Twice in a row" }));
    const text = await response.clone().text();
    const body = await expectErrorBody(response, 409, "conflict");
    expect(body.details).toBeUndefined();
    expectNoSchema(text);
  });

  it("a check violation answers 400 validation_failed, naming no constraint", async () => {
    const response = await postEvent(strict, owner.key, eventBody({ name: "SHOUTED NAME" }));
    const text = await response.clone().text();
    const body = await expectErrorBody(response, 400, "validation_failed");
    expect(body.details).toBeUndefined();
    expectNoSchema(text);
  });
});

describe("a deadlock is a request to send again, never a 500", () => {
  it("two transactions locking two rows in opposite orders: the one Postgres rolls back answers 503 transaction_conflict with Retry-After", async () => {
    await t.owner.unsafe("create table deadlock_probe (id integer primary key); insert into deadlock_probe values (1), (2)");
    let bothLocked!: () => void;
    const bothLockedFirst = new Promise<void>((resolve) => (bothLocked = resolve));
    let locked = 0;
    const lockInOrder = (first: number, second: number) => t.owner.begin(async (tx) => {
      await tx`select 1 from deadlock_probe where id = ${first} for update`;
      if (++locked === 2) bothLocked();
      await bothLockedFirst;
      await tx`select 1 from deadlock_probe where id = ${second} for update`;
    });
    const outcomes = await Promise.allSettled([lockInOrder(1, 2), lockInOrder(2, 1)]);
    const refused = outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason);
    expect(refused).toHaveLength(1);
    expect((refused[0] as { code?: string }).code).toBe("40P01");
    const answer = translateDatabaseError(refused[0]);
    expect(answer).toBeInstanceOf(ApiError);
    expect(answer).toMatchObject({ status: 503, code: "transaction_conflict" });
    expect((answer as ApiError).headers).toMatchObject({ "Retry-After": expect.stringMatching(/^\d+$/) });
  });
});
