import { createRoute } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { McpAuditQuery, McpToolCallSchema } from "../../_shared/audit/schemas.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { pageSchema } from "../../_shared/http/listing.ts";
import { apiKeySecurity, jsonContent } from "../../_shared/http/openapi.ts";

export const listMcpToolCalls = createRoute({
  operationId: "listMcpToolCalls",
  method: "get",
  path: "/api/v3/me/mcp-audit",
  tags: ["Identity"],
  summary: "Your MCP tool calls (the audit of both MCP endpoints)",
  description: "Every tool call made as you on the MCP endpoints, newest first: with your API keys on /mcp/backend and by " +
    "the assistants you authorised on the public endpoint, and your decisions on their confirmation links (endpoint " +
    "`confirmation`). Records are append-only and never show secrets, keys or tokens; " +
    "`search` matches the tool name. `updatedAt` sorts as `createdAt`.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { query: McpAuditQuery },
  responses: {
    200: { description: "A page of tool calls", ...jsonContent(pageSchema(McpToolCallSchema, "McpToolCallPage")) },
    ...errorResponses(400, 401),
  },
});
