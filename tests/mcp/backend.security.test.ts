// The backend MCP endpoint's refusals, in the one error body: credentials (x-api-key only, never a
// Bearer token), browser origins, protocol versions, methods, rate limits; and the in-process
// principal that only code can hand over.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyScope } from "../../supabase/functions/_shared/db/scopes.ts";
import { hashApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { retryCheckoutWebhook } from "../../supabase/functions/_shared/checkout/operations.ts";
import { getMe } from "../../supabase/functions/_shared/identity/operations.ts";
import { contextFor, runOperation } from "../../supabase/functions/_shared/operations/operation.ts";
import { redactArguments } from "../../supabase/functions/_shared/mcp/audit.ts";
import { createTestContext, expectErrorBody, startOfRateLimitWindow, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { connectClient, inProcessFetch, INITIALIZE, LIST_TOOLS, rpcInit } from "./mcp-fixtures.ts";

const PATH = "/mcp/backend";
let t: TestContext;
let user: UserWithKey;

beforeAll(async () => {
  t = await createTestContext({ MCP_RATE_LIMIT_PER_MINUTE: "5" });
  user = await t.userWithKey();
});
afterAll(async () => t.close());

describe("credentials", () => {
  it("refuses a Bearer token with wrong_auth_scheme, as REST does", async () => {
    await expectErrorBody(await t.app.request(PATH, rpcInit(INITIALIZE, { authorization: "Bearer abc.def.ghi" })), 401, "wrong_auth_scheme");
    // The SDK client with a token provider gets the 401 too.
    await expect(connectClient(`http://localhost${PATH}`, { headers: { authorization: "Bearer abc.def.ghi" }, fetch: inProcessFetch(t.app) }))
      .rejects.toThrow();
  });

  it("offers no OAuth discovery, so an assistant connector cannot take it as its server (SPEC 5.2)", async () => {
    // A connector starts from the 401's WWW-Authenticate (RFC 9728): the backend's names no resource metadata.
    const refused = await t.app.request(PATH, rpcInit(INITIALIZE));
    expect(refused.headers.get("www-authenticate")).toBeNull();
    await expectErrorBody(refused, 401, "missing_api_key");
    for (const path of ["/.well-known/oauth-protected-resource/mcp/backend", "/.well-known/oauth-protected-resource/functions/v1/api/mcp/backend"]) {
      await expectErrorBody(await t.app.request(path), 404, "not_found");
    }
    // The metadata that does exist is the public endpoint's only.
    const metadata = await (await t.app.request("/.well-known/oauth-protected-resource")).json();
    expect(metadata.resource).toBe(`${t.config.PUBLIC_API_ROOT}/mcp`);
  });

  it("refuses a missing or unknown key", async () => {
    await expectErrorBody(await t.app.request(PATH, rpcInit(INITIALIZE)), 401, "missing_api_key");
    const unknown = `sk_abcdefgh_${"x".repeat(43)}`;
    await expectErrorBody(await t.app.request(PATH, rpcInit(INITIALIZE, { "x-api-key": unknown })), 401, "invalid_api_key");
    await expectErrorBody(await t.app.request(PATH, rpcInit(INITIALIZE, { "x-api-key": "nonsense" })), 401, "invalid_api_key");
  });
});

describe("transport", () => {
  it("refuses a browser origin (DNS-rebinding protection) with 403", async () => {
    const response = await t.app.request(PATH, rpcInit(INITIALIZE, { "x-api-key": user.key, origin: "https://evil.example" }));
    await expectErrorBody(response, 403, "origin_not_allowed");
  });

  it("answers 400 for an MCP-Protocol-Version it does not serve", async () => {
    const response = await t.app.request(PATH, rpcInit(LIST_TOOLS, { "x-api-key": user.key, "mcp-protocol-version": "1999-01-01" }));
    const body = await expectErrorBody(response, 400, "unsupported_protocol_version");
    expect(body.details.supported).toContain("2025-11-25");
  });

  it("answers GET and DELETE with 405 and Allow: POST (no stream, no sessions)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await t.app.request(PATH, { method, headers: { "x-api-key": user.key, accept: "text/event-stream" } });
      expect(response.headers.get("allow"), method).toBe("POST");
      await expectErrorBody(response, 405, "method_not_allowed");
    }
  });

  it("answers a POST with JSON-RPC over JSON or SSE", async () => {
    const response = await t.app.request(PATH, rpcInit(INITIALIZE, { "x-api-key": user.key }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/application\/json|text\/event-stream/);
    expect(await response.text()).toContain("eventhub-backend");
  });
});

describe("rate limit", () => {
  it("counts requests per key and minute in PostgreSQL: 429 rate_limited with Retry-After", async () => {
    const limited = await t.userWithKey();
    const statuses: number[] = [];
    let last: Response | undefined;
    await startOfRateLimitWindow();
    for (let i = 0; i < 7; i++) {
      last = await t.app.request(PATH, rpcInit(INITIALIZE, { "x-api-key": limited.key }));
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await expectErrorBody(last!, 429, "rate_limited");
    // Another key has a budget of its own.
    const [row] = await t.owner`select owner_id from core.api_keys where id = ${limited.keyId}`;
    const { createApiKey } = await import("../../scripts/lib/admin-operations.ts");
    const second = await createApiKey(t.adminDb, { userId: row!.owner_id, name: "second", permissions: {} });
    expect((await t.app.request(PATH, rpcInit(INITIALIZE, { "x-api-key": second.key }))).status).toBe(200);
  });
});

describe("the in-process principal", () => {
  it("cannot be injected by a request: a string-keyed env or headers are ignored", async () => {
    const principal = { kind: "api_key", scope: new ApiKeyScope(hashApiKey(user.key)) };
    await expectErrorBody(await t.app.request("/api/v3/me", {}, { principal }), 401, "missing_api_key");
    await expectErrorBody(await t.app.request("/api/v3/me", { headers: { principal: JSON.stringify(principal) } }), 401, "missing_api_key");
  });

  it("is honoured when code runs an operation as it, with each operation's permission checked per call", async () => {
    const principal = { kind: "api_key" as const, scope: new ApiKeyScope(hashApiKey(user.key)) };
    const context = contextFor({ db: t.db, config: t.config }, principal, "in-process");
    const me = await runOperation(getMe, context, {});
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: user.id });
    await expect(runOperation(retryCheckoutWebhook, context, { checkoutId: "65f1c0a2b3d4e5f601234567" }))
      .rejects.toMatchObject({ status: 403, code: "missing_permission" });
    // The handed-over scope is not changed by the operations it was used for.
    expect(principal.scope.requiredPermissions).toEqual([]);
  });
});

describe("refused calls", () => {
  it("a call of a tool that does not exist is a JSON-RPC error, and recorded as unknown_tool", async () => {
    const client = await connectClient(`http://localhost${PATH}`, { headers: { "x-api-key": user.key }, fetch: inProcessFetch(t.app) });
    try {
      await expect(client.callTool({ name: "no_such_tool", arguments: { x: 1 } })).rejects.toThrow(/no_such_tool/);
    } finally {
      await client.close();
    }
    const records = await t.owner`select endpoint, error_code, outcome, arguments from mcp.tool_calls where user_id = ${user.id} and tool = 'no_such_tool'`;
    expect(records).toEqual([{ endpoint: "backend", error_code: "unknown_tool", outcome: "error", arguments: { x: 1 } }]);
  });
});

describe("redaction", () => {
  it("redacts secrets by name and by form", () => {
    expect(redactArguments({
      clientSecret: "abc", nested: { apiKey: "k", list: [{ password: "p" }] }, privateKey: `0x${"1".repeat(64)}`,
      note: `use sk_abcdefgh_${"y".repeat(43)} and Bearer eyJhbGciOi.eyJzdWIiOi.sig and whsec_${"z".repeat(32)}`,
      txHash: `0x${"1".repeat(64)}`, name: "kept",
    })).toEqual({
      clientSecret: "[redacted]", nested: { apiKey: "[redacted]", list: [{ password: "[redacted]" }] }, privateKey: "[redacted]",
      note: "use [redacted] and [redacted] and [redacted]", txHash: `0x${"1".repeat(64)}`, name: "kept",
    });
  });
});
