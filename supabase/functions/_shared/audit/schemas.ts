// A record of the MCP audit as every surface answers it: a tool call on either MCP endpoint, or the
// person's decision on a confirmation link's page.
import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../http/listing.ts";
import { CreatedAt, ObjectId } from "../http/openapi.ts";

/** Where a record comes from: an MCP endpoint's tool call, or a decision on a confirmation link's page. */
export const AUDIT_ENDPOINTS = ["backend", "public", "confirmation"] as const;

export const McpToolCallSchema = z
  .object({
    id: z.string().describe("The record's id (decimal)"),
    endpoint: z.enum(AUDIT_ENDPOINTS).describe("backend: /mcp/backend with an API key; public: the OAuth MCP endpoint; confirmation: not a tool call but your " +
        "decision on a confirmation link's page (tool approve_<kind> or refuse_<kind>, e.g. approve_wallet_link)"),
    tool: z.string().describe("The tool called (confirmation: approve_<kind> or refuse_<kind>)"),
    arguments: z.unknown().describe("The call's arguments (confirmation: the link's action), secrets replaced by \"[redacted]\"; over 16 KiB, `{clipped, bytes}`"),
    outcome: z.enum(["ok", "error"]).describe("confirmation: ok when approved (or refused), error when the approval failed"),
    errorCode: z.string().nullable().describe("The stable error code of a failed call (as in REST); confirmation: the REST route's, or approval_interrupted " +
        "when the answer came after the link was given up"),
    httpStatus: z.number().int().nullable().describe("The status of the REST operation the tool (or the approved action) called"),
    durationMs: z.number().int().describe("How long the call took, in milliseconds"),
    requestId: z.string().describe("The MCP request's (or the confirmation page's request's) x-request-id"),
    apiKeyId: ObjectId.nullable().describe("backend: the API key that called (its id; keys are never recorded)"),
    clientId: z.string().nullable().describe("public and confirmation: the OAuth client (for a confirmation, the one that asked)"),
    grantId: z.string().nullable().describe("public and confirmation: your grant to that client"),
    scopes: z.array(z.string()).describe("public: the scopes of the access token; confirmation: the scope the approved action ran with"),
    confirmationId: ObjectId.nullable().describe("confirmation: the link decided"),
    createdAt: CreatedAt,
  })
  .openapi("McpToolCall")
  .describe("One MCP tool call of yours, or your decision on a confirmation link");

export const McpAuditQuery = listQuerySchema({
  endpoint: z.enum(AUDIT_ENDPOINTS).optional().describe("Only records of this endpoint (confirmation: decisions on links); omitted: all"),
  outcome: z.enum(["ok", "error"]).optional().describe("Only successful (ok) or failed (error) calls; omitted: both"),
});
