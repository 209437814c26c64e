import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { McpGrantListSchema } from "../../_shared/grants/schemas.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, pathIds } from "../../_shared/http/openapi.ts";

export const listMcpGrants = createRoute({
  operationId: "listMcpGrants",
  method: "get",
  path: "/api/v3/me/mcp-grants",
  tags: ["Identity"],
  summary: "The MCP clients you allowed to use your account",
  description: "Your live OAuth grants on the public MCP endpoint, newest first (at most 200), as `{ items: [...] }`. " +
    "Revoked grants are not listed.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: {
    200: { description: "Live grants", content: { "application/json": { schema: McpGrantListSchema } } },
    ...errorResponses(401),
  },
});

export const revokeMcpGrant = createRoute({
  operationId: "revokeMcpGrant",
  method: "delete",
  path: "/api/v3/me/mcp-grants/{grantId}",
  tags: ["Identity"],
  summary: "Revoke an MCP grant",
  description: "Ends the grant: its refresh tokens stop working at once, its access tokens at their next request. " +
    "Revoking a grant already revoked answers 204 again; another user's grant, or an unknown id, 404.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: pathIds("grantId") },
  responses: {
    204: { description: "Revoked" },
    ...errorResponses(400, 401, 404),
  },
});
