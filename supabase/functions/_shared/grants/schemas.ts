// A person's MCP grant (their consent to one MCP client on the public MCP endpoint, given on the
// OAuth consent page) as every surface answers it.
import { z } from "@hono/zod-openapi";
import { CreatedAt, ObjectId, Timestamp } from "../http/openapi.ts";

export const McpGrantSchema = z
  .object({
    id: ObjectId.describe("The grant's id: DELETE /api/v3/me/mcp-grants/{grantId} revokes it"),
    clientId: z.string().describe("The MCP client: a metadata-document URL, a registered id or a pre-registered one"),
    clientName: z.string().describe("The name the client gave itself when it was approved (unverified)"),
    redirectUri: z.string().describe("Where the client received its authorization code (tells you which app it is)"),
    scopes: z.array(z.string()).openapi({ example: ["events:read", "hubs:read"] }).describe("The scopes you allowed; the client's tools and tokens are limited to them"),
    resource: z.string().describe("The protected resource the tokens are for (the public MCP endpoint)"),
    createdAt: CreatedAt,
    lastUsedAt: Timestamp.nullable().describe("Last request with one of its access tokens (to the minute, UTC); null when never used"),
  })
  .openapi("McpGrant")
  .describe("Your consent to one MCP client on the public MCP endpoint");

export const McpGrantListSchema = z.object({ items: z.array(McpGrantSchema).describe("Your live grants") }).openapi("McpGrantList");
