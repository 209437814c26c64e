// A tools/call runs in one transaction: the caller's scope and rate limit, the operation, and the
// record of the call. What the operation wrote and its record commit together; a failed operation
// is rolled back and still recorded; a record that cannot be written undoes the operation.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { connectClient, inProcessFetch, toolError } from "./mcp-fixtures.ts";

let t: TestContext;
let user: UserWithKey;
let client: Client;

const event = (name: string) => ({
  name, startsAt: "2026-12-05T19:00:00+01:00", endsAt: "2026-12-05T23:00:00+01:00", timeZone: "Europe/Berlin", status: "PUBLISHED",
});

const recordsOf = (tool: string) => t.owner<{ outcome: string; error_code: string | null; http_status: number }[]>`
  select outcome, error_code, http_status from mcp.tool_calls where user_id = ${user.id} and tool = ${tool} order by id`;
const eventsNamed = (name: string) => t.owner`select id from community.events where owner_id = ${user.id} and name = ${name}`;

beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey([]);
  client = await connectClient("http://localhost/mcp/backend", { headers: { "x-api-key": user.key }, fetch: inProcessFetch(t.app) });
});
afterEach(async () => {
  await t.owner`drop trigger if exists refuse_records on mcp.tool_calls`;
  await t.owner`drop function if exists public.refuse_tool_call_record()`;
});
afterAll(async () => {
  await client?.close();
  await t.close();
});

describe("one transaction per tools/call", () => {
  it("a write and its record commit together", async () => {
    const result = await client.callTool({ name: "create_event", arguments: event("Committed with its record") });
    expect(result.isError).toBeFalsy();
    expect(await eventsNamed("Committed with its record")).toHaveLength(1);
    expect(await recordsOf("create_event")).toEqual([{ outcome: "ok", error_code: null, http_status: 201 }]);
  });

  it("a failed operation is rolled back to after the scope and recorded with its code", async () => {
    await client.callTool({ name: "create_event", arguments: { ...event("First of a slug"), slug: "one-slug" } });
    const refused = await client.callTool({ name: "create_event", arguments: { ...event("Second of a slug"), slug: "one-slug" } });
    expect(refused.isError).toBe(true);
    expect(refused).toMatchObject(toolError("slug_taken"));
    expect(await eventsNamed("Second of a slug")).toHaveLength(0);
    expect((await recordsOf("create_event")).at(-1)).toEqual({ outcome: "error", error_code: "slug_taken", http_status: 409 });
  });

  it("a read that finds nothing is recorded as failed", async () => {
    const missing = await client.callTool({ name: "get_event", arguments: { eventId: "0123456789abcdef01234567" } });
    expect(missing).toMatchObject(toolError("not_found"));
    expect(await recordsOf("get_event")).toEqual([{ outcome: "error", error_code: "not_found", http_status: 404 }]);
  });

  it("arguments with a lone UTF-16 surrogate are refused, and the refusal is recorded with them made well-formed", async () => {
    const refused = await client.callTool({ name: "create_event", arguments: event("Gala \ud800 night") });
    expect(refused).toMatchObject(toolError("validation_failed"));
    expect(await eventsNamed("Gala \ud800 night")).toHaveLength(0);
    const [record] = await t.owner<{ outcome: string; name: string }[]>`
      select outcome, arguments ->> 'name' as name from mcp.tool_calls where user_id = ${user.id} and tool = 'create_event' order by id desc limit 1`;
    expect(record).toEqual({ outcome: "error", name: "Gala \ufffd night" });
  });

  it("when the record cannot be written, nothing the operation did is kept, and the call says so", async () => {
    const recordedBefore = (await recordsOf("create_event")).length;
    // The crash between the operation and its record: the record's insert fails inside the call's transaction.
    await t.owner.unsafe(`
      create function public.refuse_tool_call_record() returns trigger language plpgsql as $$
        begin raise exception 'the audit is down'; end $$;
      create trigger refuse_records before insert on mcp.tool_calls for each row execute function public.refuse_tool_call_record();`);
    const result = await client.callTool({ name: "create_event", arguments: event("Lost with its record") });
    expect(result.isError).toBe(true);
    expect(result).toMatchObject(toolError("audit_unavailable"));
    await t.owner`drop trigger refuse_records on mcp.tool_calls`;
    expect(await recordsOf("create_event")).toHaveLength(recordedBefore);
    expect(await eventsNamed("Lost with its record")).toHaveLength(0);
  });
});
