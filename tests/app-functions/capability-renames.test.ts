// A tool renamed on the service's MCP surface keeps the operator's switch in the assistant's registry:
// the rename migration carries the row over instead of leaving discovery to add the new name enabled.
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cloneTemplateDatabase } from "../setup/test-context.ts";

const RENAMES = readFileSync(new URL("../../supabase/migrations/20261128000600_mcp_tool_renames.sql", import.meta.url), "utf8");

let database: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
let sql: postgres.Sql;
beforeAll(async () => {
  database = await cloneTemplateDatabase();
  sql = postgres(database.url, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await sql.end();
  await database.drop();
});

const capability = (toolName: string, enabled: boolean, source = "service") =>
  sql`insert into chat.capabilities (source, server_name, tool_name, input_schema, enabled)
      values (${source}, 'eventhub-public', ${toolName}, '{"type":"object"}', ${enabled})`;
const rows = async () =>
  (await sql<{ source: string; tool_name: string; enabled: boolean }[]>`
    select source, tool_name, enabled from chat.capabilities order by source, tool_name`).map((row) => ({ ...row }));

it("a tool the operator turned off stays off under its new name", async () => {
  await sql`delete from chat.capabilities`;
  await capability("show_my_ticket", false);
  await capability("show_my_ticket", true, "https://tools.example.org/mcp"); // an external server's tool of that name is not ours
  await sql.unsafe(RENAMES);
  expect(await rows()).toEqual([
    { source: "https://tools.example.org/mcp", tool_name: "show_my_ticket", enabled: true },
    { source: "service", tool_name: "get_my_ticket_link", enabled: false },
  ]);
});

it("leaves both rows alone when discovery already recorded the new name", async () => {
  await sql`delete from chat.capabilities`;
  await capability("show_my_ticket", false);
  await capability("get_my_ticket_link", true);
  await sql.unsafe(RENAMES);
  expect(await rows()).toEqual([
    { source: "service", tool_name: "get_my_ticket_link", enabled: true },
    { source: "service", tool_name: "show_my_ticket", enabled: false },
  ]);
});
