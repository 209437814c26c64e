// The backend MCP endpoint on the real Deno gateway, with a real MCP client over HTTP: at /mcp/backend
// and at the Supabase function path /functions/v1/api/mcp/backend.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatewayProcess, type GatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { connectClient, INITIALIZE, rpcInit, toolError } from "./mcp-fixtures.ts";

let t: TestContext;
let gateway: GatewayProcess;
let user: UserWithKey;

beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey();
  gateway = await startGatewayProcess({ DATABASE_URL: t.url, WEBHOOK_DISPATCH: "false", CHECKOUT_RECONCILE_SECONDS: "0", RELAYER_LOOP_SECONDS: "0" });
});
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await t.close();
});

describe("the backend MCP endpoint over HTTP", () => {
  for (const path of ["/mcp/backend", "/functions/v1/api/mcp/backend"]) {
    it(`initializes, lists tools and calls them at ${path}`, async () => {
      const client = await connectClient(gateway.url + path, { headers: { "x-api-key": user.key } });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("call_api");
      const me = await client.callTool({ name: "get_me", arguments: {} });
      expect(me.structuredContent).toEqual(await (await fetch(`${gateway.url}/api/v3/me`, { headers: { "x-api-key": user.key } })).json());
      const created = await client.callTool({ name: "create_hub", arguments: { name: "Gateway hub", hubType: "group" } });
      expect(created.structuredContent).toMatchObject({ name: "Gateway hub", ownerId: user.id });
      const refused = await client.callTool({ name: "retry_checkout_webhook", arguments: { checkoutId: "65f1c0a2b3d4e5f601234567" } });
      expect(refused).toMatchObject(toolError("missing_permission"));
      await client.close();
    });
  }

  it("refuses Bearer tokens, browser origins, bad protocol versions and GET in the one error body", async () => {
    const url = `${gateway.url}/mcp/backend`;
    await expectErrorBody(await fetch(url, rpcInit(INITIALIZE, { authorization: "Bearer x.y.z" })), 401, "wrong_auth_scheme");
    await expectErrorBody(await fetch(url, rpcInit(INITIALIZE, { "x-api-key": user.key, origin: "http://evil.example" })), 403, "origin_not_allowed");
    await expectErrorBody(await fetch(url, rpcInit(INITIALIZE, { "x-api-key": user.key, "mcp-protocol-version": "2000-01-01" })), 400, "unsupported_protocol_version");
    const get = await fetch(url, { headers: { "x-api-key": user.key, accept: "text/event-stream" } });
    await expectErrorBody(get, 405, "method_not_allowed");
  });

  it("has audited the calls", async () => {
    const page = await (await fetch(`${gateway.url}/api/v3/me/mcp-audit?take=100`, { headers: { "x-api-key": user.key } })).json();
    expect(page.items.map((call: { tool: string }) => call.tool)).toEqual(expect.arrayContaining(["get_me", "create_hub", "retry_checkout_webhook"]));
  });
});
