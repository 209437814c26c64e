// Reading the MCP audit (written by _shared/mcp/audit.ts), for every surface. RLS
// (tool_calls_select_owner) shows the caller their own records only: no owner filter here.
import type { z } from "@hono/zod-openapi";
import { containsPattern, cursorValue, pageClauses } from "../db/paging.ts";
import { pagingOf, toPage } from "../http/listing.ts";
import { ok, operation } from "../operations/operation.ts";
import type { AUDIT_ENDPOINTS, McpAuditQuery, McpToolCallSchema } from "./schemas.ts";

interface ToolCallRow {
  id: string;
  endpoint: typeof AUDIT_ENDPOINTS[number];
  tool: string;
  arguments: unknown;
  outcome: "ok" | "error";
  error_code: string | null;
  http_status: number | null;
  duration_ms: number;
  request_id: string;
  api_key_id: string | null;
  client_id: string | null;
  grant_id: string | null;
  scopes: string[];
  confirmation_id: string | null;
  created_at: Date;
  cursor_value: string;
}

const toolCallOf = (row: ToolCallRow): z.output<typeof McpToolCallSchema> => ({
  id: row.id,
  endpoint: row.endpoint,
  tool: row.tool,
  arguments: row.arguments,
  outcome: row.outcome,
  errorCode: row.error_code,
  httpStatus: row.http_status,
  durationMs: row.duration_ms,
  requestId: row.request_id,
  apiKeyId: row.api_key_id,
  clientId: row.client_id,
  grantId: row.grant_id,
  scopes: row.scopes,
  confirmationId: row.confirmation_id,
  createdAt: row.created_at.toISOString(),
});

export const listToolCalls = operation({
  name: "audit.listToolCalls",
  async run({ db }, query: z.output<typeof McpAuditQuery>) {
    const paging = pagingOf(query);
    // The records have no updated_at: they never change, so updatedAt sorts as createdAt.
    const rows = await db.statement((tx) => {
      const { after, orderAndLimit } = pageClauses(tx, "t", paging);
      return tx<ToolCallRow[]>`
        select t.id::text as id, t.endpoint, t.tool, t.arguments, t.outcome, t.error_code, t.http_status, t.duration_ms,
               t.request_id, t.api_key_id, t.client_id, t.grant_id, t.scopes, t.confirmation_id, t.created_at, ${cursorValue(tx, "t", paging)}
        from (select x.*, x.created_at as updated_at from mcp.tool_calls x) t
        where true
          ${query.endpoint ? tx`and t.endpoint = ${query.endpoint}` : tx``}
          ${query.outcome ? tx`and t.outcome = ${query.outcome}` : tx``}
          ${query.search ? tx`and t.tool ilike ${containsPattern(query.search)}` : tx``}
          ${after}
        ${orderAndLimit}`;
    });
    return ok(toPage(rows, paging, toolCallOf));
  },
});
