// The backend MCP endpoint's toolsets and read-only mode, with a real MCP client: chosen by header
// (X-MCP-Toolsets, X-MCP-Readonly) or by path (/x/<toolsets>, /readonly, /x/<toolsets>/readonly, also
// under /api as deployed), tools/list answers only the chosen tools, a call of another is refused
// and recorded, call_api on a read-only connection runs GET operations only, and an unknown toolset
// is a 400 naming the valid ones.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendTools } from "../../supabase/functions/api/app.ts";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { eventBody } from "../events/event-fixtures.ts";
import { connectClient, inProcessFetch, INITIALIZE, LIST_TOOLS, rpcInit, toolError } from "./mcp-fixtures.ts";

const ROOT = "http://localhost";
let t: TestContext;
let user: UserWithKey;

beforeAll(async () => {
  t = await createTestContext({ MCP_RATE_LIMIT_PER_MINUTE: "1000" });
  user = await t.userWithKey();
});
afterAll(async () => t.close());

async function withClient<T>(path: string, headers: Record<string, string>, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectClient(`${ROOT}${path}`, { headers: { "x-api-key": user.key, ...headers }, fetch: inProcessFetch(t.app) });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

const listed = (path: string, headers: Record<string, string> = {}) =>
  withClient(path, headers, async (client) => (await client.listTools()).tools);
const namesOf = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name);
const inToolsets = (...toolsets: string[]) => Object.values(backendTools).filter((tool) => toolsets.includes(tool.toolset)).map((tool) => tool.name);
const eventCount = async () => Number((await t.owner`select count(*) from community.events where owner_id = ${user.id}`)[0]!.count);

describe("tools/list", () => {
  it("answers every tool without a choice, as before", async () => {
    expect(namesOf(await listed("/mcp/backend"))).toEqual(Object.keys(backendTools));
  });

  it("answers only the chosen toolsets, by header and by path alike", async () => {
    const byHeader = namesOf(await listed("/mcp/backend", { "X-MCP-Toolsets": "events, check_in" }));
    expect(byHeader).toEqual(inToolsets("events", "check_in"));
    expect(byHeader).toContain("list_events");
    expect(byHeader).toContain("check_in");
    expect(byHeader).not.toContain("call_api");
    expect(byHeader).not.toContain("get_me");
    expect(namesOf(await listed("/mcp/backend/x/events,check_in"))).toEqual(byHeader);
    expect(namesOf(await listed("/mcp/backend/x/events%2Ccheck_in"))).toEqual(byHeader); // a client that escapes the comma
    expect(namesOf(await listed("/mcp/backend/x/venues"))).toEqual(["search_venues"]);
  });

  it("answers only the tools that change nothing in read-only mode, call_api and list_operations limited to GET operations", async () => {
    const tools = await listed("/mcp/backend/readonly");
    expect(namesOf(await listed("/mcp/backend", { "X-MCP-Readonly": "true" }))).toEqual(namesOf(tools));
    expect(namesOf(tools)).toEqual(expect.arrayContaining(["list_operations", "call_api", "get_me", "list_events", "get_check_in_counts"]));
    for (const name of ["create_event", "delete_hub", "check_in", "create_checkout_session", "check_sponsorship_eligibility", "reserve_spot"]) {
      expect(namesOf(tools)).not.toContain(name);
    }
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
    await withClient("/mcp/backend/readonly", {}, async (client) => {
      const operations = (await client.callTool({ name: "list_operations", arguments: {} })).structuredContent as { items: Array<{ method: string }> };
      expect(operations.items.length).toBeGreaterThan(10);
      expect(new Set(operations.items.map((item) => item.method))).toEqual(new Set(["GET"]));
    });
  });

  it("combines toolsets and read-only mode, by path and by header", async () => {
    expect(namesOf(await listed("/mcp/backend/x/events/readonly"))).toEqual(["list_events", "get_event"]);
    expect(namesOf(await listed("/mcp/backend", { "X-MCP-Toolsets": "events", "X-MCP-Readonly": "true" }))).toEqual(["list_events", "get_event"]);
    // Both given: each narrows the choice.
    expect(namesOf(await listed("/mcp/backend/x/events,venues", { "X-MCP-Toolsets": "venues,hubs" }))).toEqual(["search_venues"]);
  });

  it("is served under /api as on Supabase (/functions/v1/api/mcp/backend/...)", async () => {
    expect(namesOf(await listed("/api/mcp/backend/x/venues"))).toEqual(["search_venues"]);
    expect(namesOf(await listed("/api/mcp/backend/x/events/readonly"))).toEqual(["list_events", "get_event"]);
    expect(namesOf(await listed("/api/mcp/backend/readonly"))).toEqual(namesOf(await listed("/mcp/backend/readonly")));
  });
});

describe("calls outside the choice", () => {
  it("are refused with a JSON-RPC error naming the reason, recorded as tool_not_selected, and change nothing", async () => {
    const before = await eventCount();
    await withClient("/mcp/backend/x/venues", {}, async (client) => {
      await expect(client.callTool({ name: "create_event", arguments: eventBody() })).rejects.toThrow(/toolset events.*did not choose/);
    });
    await withClient("/mcp/backend", { "X-MCP-Toolsets": "venues" }, async (client) => {
      await expect(client.callTool({ name: "get_me", arguments: {} })).rejects.toThrow(/toolset identity/);
    });
    await withClient("/mcp/backend/readonly", {}, async (client) => {
      await expect(client.callTool({ name: "create_event", arguments: eventBody() })).rejects.toThrow(/read-only/);
    });
    await withClient("/mcp/backend", { "X-MCP-Readonly": "true" }, async (client) => {
      await expect(client.callTool({ name: "create_event", arguments: eventBody() })).rejects.toThrow(/read-only/);
      // A tool that exists nowhere is still unknown.
      await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/no_such_tool not found/);
    });
    expect(await eventCount()).toBe(before);
    const records = await t.owner`
      select tool, error_code, outcome from mcp.tool_calls where user_id = ${user.id} and error_code in ('tool_not_selected', 'unknown_tool')
      order by id`;
    expect(records).toEqual([
      { tool: "create_event", error_code: "tool_not_selected", outcome: "error" },
      { tool: "get_me", error_code: "tool_not_selected", outcome: "error" },
      { tool: "create_event", error_code: "tool_not_selected", outcome: "error" },
      { tool: "create_event", error_code: "tool_not_selected", outcome: "error" },
      { tool: "no_such_tool", error_code: "unknown_tool", outcome: "error" },
    ]);
  });
});

describe("call_api on a read-only connection", () => {
  it("refuses every operation that is not a GET, whatever the arguments say, and runs GETs", async () => {
    const before = await eventCount();
    const hub = await (await t.call("/api/v3/hubs", { method: "POST", key: user.key, json: { name: "Kept", hubType: "group" } })).json();
    for (const [path, headers] of [["/mcp/backend/readonly", {}], ["/mcp/backend/x/raw_api", { "X-MCP-Readonly": "true" }]] as const) {
      await withClient(path, headers, async (client) => {
        const refusals = [
          { operationId: "createEvent", body: eventBody() },
          { operationId: "deleteHub", pathParameters: { hubId: hub!.id } },
          { operationId: "updateHub", pathParameters: { hubId: hub!.id }, body: { name: "Changed" } },
        ];
        for (const args of refusals) {
          const refused = await client.callTool({ name: "call_api", arguments: args });
          expect(refused, args.operationId).toMatchObject(toolError("read_only_connection"));
        }
        const read = await client.callTool({ name: "call_api", arguments: { operationId: "getHub", pathParameters: { hubId: hub!.id } } });
        expect(read.isError, JSON.stringify(read)).toBeFalsy();
        expect(read.structuredContent).toMatchObject({ id: hub!.id, name: "Kept" });
      });
    }
    expect(await eventCount()).toBe(before);
    expect((await t.owner`select name from community.hubs where id = ${hub!.id}`)[0]).toEqual({ name: "Kept" });
    const [recorded] = await t.owner`
      select count(*)::int as n from mcp.tool_calls where user_id = ${user.id} and tool = 'call_api' and error_code = 'read_only_connection'`;
    expect(recorded!.n).toBe(6);
  });

  it("runs any operation without read-only mode, as before", async () => {
    await withClient("/mcp/backend/x/raw_api", {}, async (client) => {
      const created = await client.callTool({ name: "call_api", arguments: { operationId: "createHub", body: { name: "Raw", hubType: "group" } } });
      expect(created.isError, JSON.stringify(created)).toBeFalsy();
    });
  });
});

describe("a choice that names no toolset of the endpoint", () => {
  it("is a 400 unknown_toolset in the one error body, listing the valid names, by header and by path", async () => {
    const valid = [...new Set(Object.values(backendTools).map((tool) => tool.toolset))];
    for (const [path, headers] of [["/mcp/backend", { "X-MCP-Toolsets": "events,payments" }], ["/mcp/backend/x/events,payments", {}],
      ["/mcp/backend/x/payments/readonly", {}], ["/api/mcp/backend/x/payments", {}]] as const) {
      const response = await t.app.request(path, rpcInit(LIST_TOOLS, { "x-api-key": user.key, ...headers }));
      const body = await expectErrorBody(response, 400, "unknown_toolset");
      expect(body.message).toContain("payments");
      expect(body.details).toEqual({ unknown: ["payments"], toolsets: valid });
    }
    // The SDK client gets the 400 when it connects.
    await expect(connectClient(`${ROOT}/mcp/backend/x/payments`, { headers: { "x-api-key": user.key }, fetch: inProcessFetch(t.app) })).rejects.toThrow();
  });

  it("refuses an X-MCP-Readonly that is neither true nor false", async () => {
    const response = await t.app.request("/mcp/backend", rpcInit(INITIALIZE, { "x-api-key": user.key, "X-MCP-Readonly": "yes" }));
    await expectErrorBody(response, 400, "validation_failed");
  });

  it("answers GET on a toolset path with 405, as on the endpoint itself", async () => {
    const response = await t.app.request("/mcp/backend/x/events/readonly", { headers: { "x-api-key": user.key } });
    expect(response.headers.get("allow")).toBe("POST");
    await expectErrorBody(response, 405, "method_not_allowed");
  });
});
