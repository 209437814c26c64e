import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, ObjectId } from "../../_shared/http/openapi.ts";

export const McpGrantSchema = z
  .object({
    id: ObjectId,
    clientId: z.string().openapi({ description: "The MCP client: a metadata-document URL, a registered id or a pre-registered one" }),
    clientName: z.string().openapi({ description: "The name the client gave itself when it was approved (unverified)" }),
    redirectUri: z.string(),
    scopes: z.array(z.string()).openapi({ example: ["events:read", "hubs:read"] }),
    resource: z.string().openapi({ description: "The protected resource the tokens are for (the public MCP endpoint)" }),
    createdAt: z.string().openapi({ format: "date-time" }),
    lastUsedAt: z.string().nullable().openapi({ format: "date-time", description: "Last request with one of its access tokens (to the minute)" }),
  })
  .openapi("McpGrant");

export const listMcpGrants = createRoute({
  method: "get",
  path: "/api/v3/me/mcp-grants",
  tags: ["Identity"],
  summary: "The MCP clients you allowed to use your account",
  description: "Your live OAuth grants on the public MCP endpoint, newest first (at most 200), as `{ items: [...] }`. " +
    "Revoked grants are not listed.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: {
    200: { description: "Live grants", content: { "application/json": { schema: z.object({ items: z.array(McpGrantSchema) }).openapi("McpGrantList") } } },
    ...errorResponses(401),
  },
});

export const revokeMcpGrant = createRoute({
  method: "delete",
  path: "/api/v3/me/mcp-grants/{grantId}",
  tags: ["Identity"],
  summary: "Revoke an MCP grant",
  description: "Ends the grant: its refresh tokens stop working at once, its access tokens at their next request. " +
    "Revoking a grant already revoked answers 204 again; another user's grant, or an unknown id, 404.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: z.object({ grantId: ObjectId }) },
  responses: {
    204: { description: "Revoked" },
    ...errorResponses(400, 401, 404),
  },
});
