// A record of the MCP audit as every surface answers it: a tool call on either MCP endpoint, or the
// person's decision on a confirmation link's page.
import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../http/listing.ts";
import { ObjectId } from "../http/openapi.ts";

/** Where a record comes from: an MCP endpoint's tool call, or a decision on a confirmation link's page. */
export const AUDIT_ENDPOINTS = ["backend", "public", "confirmation"] as const;

export const McpToolCallSchema = z
  .object({
    id: z.string().openapi({ description: "The record's id (decimal)" }),
    endpoint: z.enum(AUDIT_ENDPOINTS).openapi({
      description: "backend: /mcp/backend with an API key; public: the OAuth MCP endpoint; confirmation: not a tool call but your " +
        "decision on a confirmation link's page (tool approve_<kind> or refuse_<kind>, e.g. approve_wallet_link)",
    }),
    tool: z.string(),
    arguments: z.unknown().openapi({
      description: "The call's arguments (confirmation: the link's action), secrets replaced by \"[redacted]\"; over 16 KiB, `{clipped, bytes}`",
    }),
    outcome: z.enum(["ok", "error"]).openapi({ description: "confirmation: ok when approved (or refused), error when the approval failed" }),
    errorCode: z.string().nullable().openapi({
      description: "The stable error code of a failed call (as in REST); confirmation: the REST route's, or approval_interrupted " +
        "when the answer came after the link was given up",
    }),
    httpStatus: z.number().int().nullable().openapi({ description: "The status of the REST operation the tool (or the approved action) called" }),
    durationMs: z.number().int(),
    requestId: z.string().openapi({ description: "The MCP request's (or the confirmation page's request's) x-request-id" }),
    apiKeyId: ObjectId.nullable().openapi({ description: "backend: the API key that called (its id; keys are never recorded)" }),
    clientId: z.string().nullable().openapi({ description: "public and confirmation: the OAuth client (for a confirmation, the one that asked)" }),
    grantId: z.string().nullable().openapi({ description: "public and confirmation: your grant to that client" }),
    scopes: z.array(z.string()).openapi({ description: "public: the scopes of the access token; confirmation: the scope the approved action ran with" }),
    confirmationId: ObjectId.nullable().openapi({ description: "confirmation: the link decided" }),
    createdAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("McpToolCall");

export const McpAuditQuery = listQuerySchema({
  endpoint: z.enum(AUDIT_ENDPOINTS).optional(),
  outcome: z.enum(["ok", "error"]).optional(),
});
