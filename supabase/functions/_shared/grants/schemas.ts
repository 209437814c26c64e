// A person's MCP grant (their consent to one MCP client on the public MCP endpoint, given on the
// OAuth consent page) as every surface answers it.
import { z } from "@hono/zod-openapi";
import { ObjectId } from "../http/openapi.ts";

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

export const McpGrantListSchema = z.object({ items: z.array(McpGrantSchema) }).openapi("McpGrantList");
