// The public MCP endpoint's tools with a real MCP Client and OAuth access tokens.
// Each tool is listed only when the grant holds its scopes and is otherwise refused with HTTP 403
// insufficient_scope naming them; the write tools answer what REST answers the same person (read
// back with an API key of theirs); the request_* tools change nothing and return a single-use link
// whose status the same client (only) can poll; two approvals racing for one link: one wins.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { MCP_SCOPES, READ_SCOPES, sha256 } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { createApiKey, linkAddress } from "../../scripts/lib/admin-operations.ts";
import { eventBody } from "../events/event-fixtures.ts";
import postgres from "postgres";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createOAuthTestContext, issueTokens, mcpRequest, type OAuthTestContext, RESOURCE, ROOT } from "./oauth-fixtures.ts";
import { toolError } from "./mcp-fixtures.ts";

/** The decided scope of every public tool (written out here, not read from the code under test). */
const EXPECTED_SCOPES: Record<string, string[]> = {
  list_events: ["events:read"], get_event: ["events:read"],
  create_event: ["events:write"], update_event: ["events:write"], delete_event: ["events:write"],
  list_hubs: ["hubs:read"], get_hub: ["hubs:read"],
  create_hub: ["hubs:write"], update_hub: ["hubs:write"], delete_hub: ["hubs:write"], join_hub: ["hubs:write"], leave_hub: ["hubs:write"],
  search_venues: ["venues:read"],
  list_nft_collections: ["checkout:read"], get_nft_collection: ["checkout:read"], get_checkout_session: ["checkout:read"],
  list_checkout_webhook_deliveries: ["checkout:read"],
  get_sponsorship_balance: ["sponsorship:read"], list_sponsorship_usage: ["sponsorship:read"],
  list_sponsorship_deposits: ["sponsorship:read"], get_sponsorship_settings: ["sponsorship:read"],
  list_my_wallets: ["wallet:link"], request_wallet_link: ["wallet:link"],
  request_sponsorship_settings_change: ["sponsorship:write"], request_sponsored_deposit: ["sponsorship:write"],
  get_confirmation_status: ["wallet:link", "sponsorship:write"], // any one of them
  reserve_spot: ["reservations:write"], cancel_reservation: ["reservations:write"],
  list_my_reservations: ["reservations:read"], get_my_ticket_link: ["reservations:read"], get_event_access: ["reservations:read"],
  get_reservation: ["reservations:read", "checkin:read"], // any one of them
  list_event_reservations: ["checkin:read"], get_check_in_counts: ["checkin:read"],
  approve_reservation: ["checkin:write"], decline_reservation: ["checkin:write"], check_in_by_reservation: ["checkin:write"],
  undo_check_in: ["checkin:write"], bind_bracelet: ["checkin:write"],
};
const ANY_ONE_SCOPE = new Set(["get_confirmation_status", "get_reservation"]);
const allows = (name: string, scopes: readonly string[]) =>
  ANY_ONE_SCOPE.has(name) ? EXPECTED_SCOPES[name]!.some((s) => scopes.includes(s)) : EXPECTED_SCOPES[name]!.every((s) => scopes.includes(s));
const SPONSOR = privateKeyToAccount(generatePrivateKey()).address;
const OTHER = privateKeyToAccount(generatePrivateKey()).address;

let ctx: OAuthTestContext;
let userId: string;
let key: string;
let full: { access_token: string; clientId: string };
let readOnly: { access_token: string; clientId: string };
let stranger: { access_token: string; clientId: string };
let linkOnly: { access_token: string };

const connect = async (token: string) => {
  const client = new Client({ name: "public-tools-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(RESOURCE), { fetch: ctx.fetch, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
};
const rest = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
  const response = await ctx.call(path, { key, ...init });
  return { status: response.status, body: response.status === 204 ? null : await response.json() };
};
type Result = { isError?: boolean; structuredContent?: Record<string, unknown> };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;

beforeAll(async () => {
  ctx = await createOAuthTestContext();
  full = await issueTokens(ctx, "ada@example.com", [...MCP_SCOPES]);
  readOnly = await issueTokens(ctx, "ada@example.com", [...READ_SCOPES], "http://127.0.0.1:7778/cb");
  stranger = await issueTokens(ctx, "bob@example.com", [...MCP_SCOPES]);
  linkOnly = await issueTokens(ctx, "ada@example.com", ["wallet:link"], "http://127.0.0.1:7779/cb");
  const [user] = await ctx.owner<{ id: string }[]>`select id from core.users where email = 'ada@example.com'`;
  userId = user!.id;
  key = (await createApiKey(ctx.adminDb, { userId, name: "rest", permissions: {} })).key;
  await linkAddress(ctx.adminDb, { userId, address: SPONSOR, chainId: "31337", connector: "injected" });
});
afterAll(async () => {
  await ctx?.close();
});

describe("public MCP tools and their scopes", () => {
  it("lists exactly the tools the grant's scopes allow", async () => {
    for (const [token, scopes] of [[full.access_token, MCP_SCOPES], [readOnly.access_token, READ_SCOPES], [linkOnly.access_token, ["wallet:link"]]] as const) {
      const client = await connect(token);
      const listed = (await client.listTools()).tools;
      const expected = Object.keys(EXPECTED_SCOPES).filter((name) => allows(name, scopes)).sort();
      expect(listed.map((t) => t.name).sort()).toEqual(expected);
      if (scopes.length === 1) expect(expected).toEqual(["get_confirmation_status", "list_my_wallets", "request_wallet_link"]);
      for (const tool of listed) {
        expect(tool.title, tool.name).toBeTruthy();
        expect(tool.outputSchema, tool.name).toBeDefined();
        expect(Object.keys(tool.annotations ?? {}).sort(), tool.name)
          .toEqual(["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint", "title"]);
        if (tool.name.startsWith("request_")) expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      }
      await client.close();
    }
  });

  it("refuses every tool outside the grant with 403 insufficient_scope naming its scopes", async () => {
    for (const [name, scopes] of Object.entries(EXPECTED_SCOPES)) {
      if (allows(name, READ_SCOPES)) continue;
      const response = await mcpRequest(ctx, { authorization: `Bearer ${readOnly.access_token}`, "mcp-protocol-version": "2025-11-25" },
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });
      expect(response.status, name).toBe(403);
      const body = await response.json();
      expect(body, name).toMatchObject({ code: "insufficient_scope", details: { requiredScopes: scopes } });
      expect(response.headers.get("www-authenticate"), name).toContain(`scope="${scopes.join(" ")}"`);
    }
  });

  it("records each refused call in the audit, with the code it was refused with", async () => {
    const response = await mcpRequest(ctx, { authorization: `Bearer ${readOnly.access_token}`, "mcp-protocol-version": "2025-11-25" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "delete_event", arguments: { eventId: "0123456789abcdef01234567" } } });
    expect(response.status).toBe(403);
    const unknown = await mcpRequest(ctx, { authorization: `Bearer ${readOnly.access_token}`, "mcp-protocol-version": "2025-11-25" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "drop_everything", arguments: { all: true } } });
    expect(unknown.status).toBe(200);
    // The audit row of a refused call is written beside its answer, not before it: wait for it.
    const records = () => ctx.owner<{ tool: string; error_code: string; http_status: number | null; client_id: string; arguments: unknown }[]>`
      select tool, error_code, http_status, client_id, arguments from mcp.tool_calls
      where tool in ('delete_event', 'drop_everything') and client_id = ${readOnly.clientId} order by id`;
    await vi.waitFor(async () => expect(await records()).toEqual(expect.arrayContaining([
      { tool: "delete_event", error_code: "insufficient_scope", http_status: 403, client_id: readOnly.clientId, arguments: { eventId: "0123456789abcdef01234567" } },
      { tool: "drop_everything", error_code: "unknown_tool", http_status: null, client_id: readOnly.clientId, arguments: { all: true } },
    ])), { timeout: 5_000, interval: 50 });
  });
});

describe("write tools answer what REST answers the person", () => {
  it("creates, changes and deletes an event", async () => {
    const client = await connect(full.access_token);
    const created = await call(client, "create_event", eventBody({ status: "PUBLISHED" }));
    expect(created.isError).toBeFalsy();
    const id = created.structuredContent!.id as string;
    expect((await rest(`/api/v3/events/${id}`)).body).toEqual(created.structuredContent);
    const updated = await call(client, "update_event", { eventId: id, changes: { description: "Now with a band" } });
    expect(updated.structuredContent).toMatchObject({ description: "Now with a band" });
    expect((await rest(`/api/v3/events/${id}`)).body).toEqual(updated.structuredContent);
    // Another person's assistant cannot change it: REST's owner rule.
    const other = await connect(stranger.access_token);
    const refused = await call(other, "update_event", { eventId: id, changes: { description: "x" } });
    expect(refused).toMatchObject(toolError("not_event_owner"));
    expect(await call(client, "delete_event", { eventId: id })).toMatchObject({ structuredContent: {} });
    expect((await rest(`/api/v3/events/${id}`)).status).toBe(404);
    // Every call on the event is audited (SPEC 5.3): its person, client and outcome, the refused one with REST's code.
    const [bob] = await ctx.owner<{ id: string }[]>`select id from core.users where email = 'bob@example.com'`;
    expect(await ctx.owner`
      select user_id, endpoint, client_id, tool, outcome, error_code, http_status from mcp.tool_calls
      where arguments->>'eventId' = ${id} order by id`).toEqual([
      { user_id: userId, endpoint: "public", client_id: full.clientId, tool: "update_event", outcome: "ok", error_code: null, http_status: 200 },
      { user_id: bob!.id, endpoint: "public", client_id: stranger.clientId, tool: "update_event", outcome: "error", error_code: "not_event_owner", http_status: 403 },
      { user_id: userId, endpoint: "public", client_id: full.clientId, tool: "delete_event", outcome: "ok", error_code: null, http_status: 204 },
    ]);
    await Promise.all([client.close(), other.close()]);
  });

  it("creates and changes a hub, and joins and leaves another person's", async () => {
    const client = await connect(full.access_token);
    const created = await call(client, "create_hub", { name: "Ada's circle", hubType: "group", status: "PUBLISHED" });
    const hubId = created.structuredContent!.id as string;
    const updated = await call(client, "update_hub", { hubId, changes: { description: "Weekly" } });
    expect((await rest(`/api/v3/hubs/${hubId}`)).body).toEqual(updated.structuredContent);

    const bob = await connect(stranger.access_token);
    const bobs = (await call(bob, "create_hub", { name: "Bob's club", hubType: "group", status: "PUBLISHED" })).structuredContent!.id as string;
    const joined = await call(client, "join_hub", { hubId: bobs });
    expect(joined.structuredContent!.membersIDs).toContain(userId);
    expect((await rest(`/api/v3/hubs/${bobs}`)).body).toEqual(joined.structuredContent);
    expect(await call(client, "leave_hub", { hubId: bobs })).toMatchObject({ structuredContent: {} });
    expect((await rest(`/api/v3/hubs/${bobs}`)).body.membersIDs).not.toContain(userId);
    expect(await call(client, "leave_hub", { hubId: bobs })).toMatchObject(toolError("not_a_member"));
    await Promise.all([client.close(), bob.close()]);
  });

  it("reads wallets, sponsorship and collections as REST does", async () => {
    const client = await connect(full.access_token);
    expect((await call(client, "list_my_wallets")).structuredContent).toEqual((await rest("/api/v3/me/crypto-addresses")).body);
    const sponsor = { walletAddress: SPONSOR, chainId: 31337 };
    const query = `walletAddress=${SPONSOR}&chainId=31337`;
    expect((await call(client, "get_sponsorship_settings", sponsor)).structuredContent).toEqual((await rest(`/api/v3/sponsorship/settings?${query}`)).body);
    expect((await call(client, "list_sponsorship_usage", sponsor)).structuredContent).toEqual((await rest(`/api/v3/sponsorship/usage?${query}`)).body);
    expect((await call(client, "list_sponsorship_deposits", sponsor)).structuredContent).toEqual((await rest(`/api/v3/sponsorship/deposits?${query}`)).body);
    expect((await call(client, "list_nft_collections")).structuredContent).toEqual((await rest("/api/v3/nft-collection")).body);
    // Bob is not the sponsor's owner: REST's 404.
    const bob = await connect(stranger.access_token);
    expect(await call(bob, "get_sponsorship_settings", sponsor)).toMatchObject(toolError("sponsor_not_found"));
    await Promise.all([client.close(), bob.close()]);
  });
});

describe("request tools create confirmation links and change nothing", () => {
  it("request_wallet_link returns a link, pending, polled by its client only", async () => {
    const client = await connect(full.access_token);
    const before = (await rest("/api/v3/me/crypto-addresses")).body;
    const asked = await call(client, "request_wallet_link", { chainId: 31337, address: OTHER });
    expect(asked.isError).toBeFalsy();
    const link = asked.structuredContent!;
    expect(link).toMatchObject({ kind: "wallet_link", status: "pending", action: { chainId: 31337, address: OTHER, connector: "injected" }, outcome: null });
    const url = new URL(link.url as string);
    expect(url.pathname).toBe(`/confirm/${link.confirmationId}`);
    const token = new URLSearchParams(url.hash.slice(1)).get("token")!;
    expect(token).toMatch(/^mcf_[A-Za-z0-9_-]{43}$/);
    // Stored hashed: neither the token nor the URL is in the database.
    const [row] = await ctx.owner`select token_hash, user_id, client_id from mcp_confirmations.confirmations where id = ${link.confirmationId as string}`;
    expect(Buffer.from(row!.token_hash).equals(Buffer.from(sha256(token)))).toBe(true);
    expect(row).toMatchObject({ user_id: userId, client_id: full.clientId });
    const dump = JSON.stringify(await ctx.owner`select * from mcp_confirmations.confirmations`);
    expect(dump).not.toContain(token);
    // Nothing was linked.
    expect((await rest("/api/v3/me/crypto-addresses")).body).toEqual(before);

    const polled = await call(client, "get_confirmation_status", { confirmationId: link.confirmationId });
    expect(polled.structuredContent).toMatchObject({ confirmationId: link.confirmationId, status: "pending", actionHash: link.actionHash });
    // Another client of the same person, and another person, see no such link.
    const other = await connect(linkOnly.access_token);
    expect(await call(other, "get_confirmation_status", { confirmationId: link.confirmationId })).toMatchObject(toolError("not_found"));
    const bob = await connect(stranger.access_token);
    expect(await call(bob, "get_confirmation_status", { confirmationId: link.confirmationId })).toMatchObject(toolError("not_found"));
    // Its audit row carries no secret (the answer's URL is not audited).
    const audited = JSON.stringify(await ctx.owner`select arguments from mcp.tool_calls where tool = 'request_wallet_link'`);
    expect(audited).not.toContain(token);
    await Promise.all([client.close(), other.close(), bob.close()]);
  });

  it("request_sponsorship_settings_change: the person's own sponsor only, the full replacement stored", async () => {
    const client = await connect(full.access_token);
    const asked = await call(client, "request_sponsorship_settings_change", { walletAddress: SPONSOR, chainId: 31337, enabledOperations: ["check_in"], actorDailyCount: 5 });
    expect(asked.structuredContent).toMatchObject({
      kind: "sponsorship_settings", status: "pending",
      action: { walletAddress: SPONSOR, chainId: 31337, enabledOperations: ["check_in"], actorDailyCount: 5, maxCostPerTxWei: null, allowedTargets: [] },
    });
    // Nothing changed yet.
    expect((await rest(`/api/v3/sponsorship/settings?walletAddress=${SPONSOR}&chainId=31337`)).body).toMatchObject({ enabledOperations: [], actorDailyCount: null });
    const bob = await connect(stranger.access_token);
    expect(await call(bob, "request_sponsorship_settings_change", { walletAddress: SPONSOR, chainId: 31337 }))
      .toMatchObject(toolError("sponsor_not_found"));
    expect(await call(client, "request_sponsorship_settings_change", { walletAddress: SPONSOR, chainId: 31337, enabledOperations: ["flying"] }))
      .toMatchObject(toolError("validation_failed"));
    // A deposit needs the chain's sponsorship vault (none is configured here): REST's own refusal.
    expect(await call(client, "request_sponsored_deposit", { walletAddress: SPONSOR, chainId: 31337, amountWei: "1000" }))
      .toMatchObject(toolError("sponsorship_vault_not_configured"));
    await Promise.all([client.close(), bob.close()]);
  });

  it("the link's page: static, no-referrer, a script-hash CSP, and its routes need the token, a session and the page's origin", async () => {
    const client = await connect(full.access_token);
    const link = (await call(client, "request_wallet_link", { chainId: 31337 })).structuredContent!;
    const page = await ctx.fetch(`${ROOT}/confirm/${link.confirmationId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*'; .*frame-ancestors 'none'/);
    expect(await page.text()).not.toContain(link.confirmationId as string);
    const token = new URLSearchParams(new URL(link.url as string).hash.slice(1)).get("token")!;
    const view = (headers: Record<string, string>) => ctx.fetch(`${ROOT}/confirm/${link.confirmationId}/view`, { method: "POST", headers });
    expect((await view({ "x-confirmation-token": token })).status, "no session").toBe(401);
    expect((await view({})).status, "no token").toBe(404);
    expect((await view({ "x-confirmation-token": token, origin: "https://evil.example" })).status, "another origin").toBe(403);
    await client.close();
  });

  it("the internal routes answer only the public MCP endpoint's in-process calls", async () => {
    const created = await ctx.call("/mcp/confirmations", { method: "POST", key, json: { kind: "wallet_link", action: { chainId: 1 } } });
    expect(created.status).toBe(404);
    const polled = await ctx.call("/mcp/confirmations/0123456789abcdef01234567", { key });
    expect(polled.status).toBe(404);
  });

  it("two approvals racing for one link: the one that waited for the row lock is refused", async () => {
    const client = await connect(full.access_token);
    const link = (await call(client, "request_wallet_link", { chainId: 31337 })).structuredContent!;
    const token = new URLSearchParams(new URL(link.url as string).hash.slice(1)).get("token")!;
    const claims = JSON.stringify({ role: "authenticated", app_user_id: userId });
    const claim = (sql: postgres.Sql) => sql<{ kind: string }[]>`
      select kind from mcp_confirmations.begin_approval(${link.confirmationId as string}, ${sha256(token)})`;
    const sessions = postgres(ctx.url, { max: 2, onnotice: () => {} });
    const first = await sessions.reserve();
    const second = await sessions.reserve();
    try {
      await first`begin`;
      await first`select set_config('request.jwt.claims', ${claims}, true)`;
      const [won] = await claim(first);
      let settled = false;
      await second`begin`;
      await second`select set_config('request.jwt.claims', ${claims}, true)`;
      const waiting = claim(second).then((rows) => `claimed: ${(rows as { kind: string }[])[0]?.kind}`, (error: Error) => `refused: ${error.message}`)
        .finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(settled, "the second approval waits for the first one's row lock").toBe(false);
      await first`commit`;
      expect(won!.kind).toBe("wallet_link");
      expect(await waiting).toBe("refused: this confirmation link is approving");
      await second`rollback`;
    } finally {
      first.release();
      second.release();
      await sessions.end();
    }
    await client.close();
  });
});
