// The backend MCP endpoint with a real MCP client, in-process: tools answer exactly what REST
// answers, REST errors come back as isError results with their codes, and every call is audited.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { connectClient, inProcessFetch, toolError } from "./mcp-fixtures.ts";

const URL_ = "http://localhost/mcp/backend";
let t: TestContext;
let user: UserWithKey;
let client: Client;

const event = {
  name: "MCP meetup",
  startsAt: "2026-12-05T19:00:00+01:00",
  endsAt: "2026-12-05T23:00:00+01:00",
  timeZone: "Europe/Berlin",
  status: "PUBLISHED",
};

beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey([]);
  client = await connectClient(URL_, { headers: { "x-api-key": user.key }, fetch: inProcessFetch(t.app) });
});
afterAll(async () => {
  await client?.close();
  await t.close();
});

describe("tools/list", () => {
  it("lists every tool with a title, annotations and input and output schemas", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ["list_operations", "call_api", "get_me", "list_events", "create_event", "list_hubs", "search_venues",
      "register_nft_collection", "create_checkout_session", "get_checkout_session", "retry_checkout_webhook",
      "list_checkout_webhook_deliveries", "build_checkout_payment", "encode_contract_call", "confirm_checkout_payment",
      "check_sponsorship_eligibility", "complete_sponsored_transaction", "cancel_sponsored_transaction", "record_sponsorship_deposit", "record_sponsorship_usage"]) {
      expect(names).toContain(name);
    }
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.outputSchema, tool.name).toBeDefined();
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint"] as const) {
        expect(typeof tool.annotations?.[hint], `${tool.name} ${hint}`).toBe("boolean");
      }
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.get_me!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.delete_event!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.create_event!.inputSchema.required).toEqual(expect.arrayContaining(["name", "startsAt", "endsAt", "timeZone"]));
  });
});

describe("tools/call", () => {
  it("a read tool answers what REST answers: its JSON as structuredContent, its text as the text content", async () => {
    const result = await client.callTool({ name: "get_me", arguments: {} });
    const restText = await (await t.call("/api/v3/me", { key: user.key })).text();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(JSON.parse(restText));
    expect(result.content).toEqual([{ type: "text", text: restText }]);
  });

  it("a write tool creates through the REST route and answers its body", async () => {
    const result = await client.callTool({ name: "create_event", arguments: event });
    expect(result.isError).toBeFalsy();
    const created = result.structuredContent as { id: string; name: string; ownerId: string };
    expect(created).toMatchObject({ name: event.name, ownerId: user.id });
    const rest = await (await t.call(`/api/v3/events/${created.id}`, { key: user.key })).json();
    expect(created).toEqual(rest);
  });

  it("a REST error is an isError result with the REST code: missing_permission", async () => {
    const result = await client.callTool({ name: "retry_checkout_webhook", arguments: { checkoutId: "65f1c0a2b3d4e5f601234567" } });
    expect(result.isError).toBe(true);
    expect(result).toMatchObject(toolError("missing_permission"));
    expect(JSON.stringify(result.content)).toContain("missing_permission");
  });

  it("invalid arguments answer validation_failed, like REST", async () => {
    const result = await client.callTool({ name: "get_event", arguments: { eventId: "not-an-id" } });
    expect(result.isError).toBe(true);
    expect(result).toMatchObject(toolError("validation_failed"));
  });

  it("the raw API tool lists operations and calls one by its id", async () => {
    const listed = await client.callTool({ name: "list_operations", arguments: {} });
    const ids = (listed.structuredContent as { items: Array<{ operationId: string }> }).items.map((o) => o.operationId);
    expect(ids).toContain("createCheckoutSession");
    expect(ids).toContain("getEvent");
    expect(ids).not.toContain("getHealth");

    const created = await client.callTool({ name: "call_api", arguments: { operationId: "createHub", body: { name: "Raw hub", hubType: "group" } } });
    expect(created.isError).toBeFalsy();
    const hub = created.structuredContent as { id: string };
    const read = await client.callTool({ name: "call_api", arguments: { operationId: "getHub", pathParameters: { hubId: hub.id } } });
    expect(read.structuredContent).toEqual(await (await t.call(`/api/v3/hubs/${hub.id}`, { key: user.key })).json());

    const refused = await client.callTool({ name: "call_api", arguments: { operationId: "retryCheckoutWebhook", pathParameters: { checkoutId: hub.id } } });
    expect(refused).toMatchObject(toolError("missing_permission"));
    // The ids derived from method and path before operationIds existed are not aliases.
    const unknown = await client.callTool({ name: "call_api", arguments: { operationId: "post_api_v3_hubs" } });
    expect(unknown).toMatchObject(toolError("unknown_operation"));
  });

  it("encodes a contract call", async () => {
    const result = await client.callTool({
      name: "encode_contract_call",
      arguments: { signature: "function transfer(address to, uint256 amount)", args: ["0x71C7656EC7ab88b098defB751B7401B5f6d8976F", "1000"] },
    });
    expect(result.structuredContent).toMatchObject({ selector: "0xa9059cbb" });
    expect((result.structuredContent as { callData: string }).callData).toMatch(/^0xa9059cbb0{24}71c7656ec7ab88b098defb751b7401b5f6d8976f0{61}3e8$/);
  });

  it("serves the stateless 2026-07-28 revision too", async () => {
    const modern = await connectClient(URL_, { headers: { "x-api-key": user.key }, fetch: inProcessFetch(t.app), versionNegotiation: { pin: "2026-07-28" } });
    const result = await modern.callTool({ name: "get_me", arguments: {} });
    expect(result.structuredContent).toMatchObject({ id: user.id });
    await modern.close();
  });
});

describe("the audit", () => {
  it("records every call with the user, key, outcome and redacted arguments; readable at /api/v3/me/mcp-audit", async () => {
    const secret = "cs_live_this-is-a-client-secret-0123456789";
    await client.callTool({ name: "get_checkout_session", arguments: { checkoutId: "65f1c0a2b3d4e5f601234567", clientSecret: secret } });
    const response = await t.call("/api/v3/me/mcp-audit?take=100", { key: user.key });
    expect(response.status).toBe(200);
    const page = await response.json();
    expect(page).toMatchObject({ take: 100, page: 1, hasMore: false });
    const calls = page.items as Array<Record<string, unknown>>;
    const byTool = (name: string) => calls.find((call) => call.tool === name)!;
    expect(byTool("get_checkout_session")).toMatchObject({
      endpoint: "backend", outcome: "error", errorCode: "not_found", httpStatus: 404, apiKeyId: user.keyId,
      arguments: { checkoutId: "65f1c0a2b3d4e5f601234567", clientSecret: "[redacted]" },
    });
    expect(byTool("create_event")).toMatchObject({ outcome: "ok", errorCode: null, httpStatus: 201, arguments: { name: event.name } });
    expect(byTool("retry_checkout_webhook")).toMatchObject({ outcome: "error", errorCode: "missing_permission", httpStatus: 403 });
    expect(byTool("get_event")).toMatchObject({ outcome: "error", errorCode: "validation_failed", arguments: { eventId: "not-an-id" } });
    expect(typeof byTool("get_me").requestId).toBe("string");

    const stored = await t.owner`select tool_calls::text as row from mcp.tool_calls`;
    const text = stored.map((r) => r.row).join("\n");
    expect(text).not.toContain(secret);
    expect(text).not.toContain(user.key);

    // Another user sees none of them.
    const other = await t.userWithKey();
    const theirs = await (await t.call("/api/v3/me/mcp-audit", { key: other.key })).json();
    expect(theirs.items).toEqual([]);
  });
});
