// The chat's shapes shared by the app-backend functions: the ids the app names rooms and messages
// with, and what discover-mcp-capabilities answers (SPEC 4.8; the capability's fields and the
// per-server report are ours, SPEC shows none).
import { z } from "@hono/zod-openapi";
import { Timestamp } from "../http/openapi.ts";

/** A roomId or messageId as the app sends it: the database's rule (chat.is_client_id). */
export const ClientId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, "1 to 128 characters of A-Z a-z 0-9 . _ : -")
  .openapi({ example: "9b2f6c1e-3d4a-4f7e-8a90-1c2d3e4f5a6b" })
  .describe("An id the app chose: 1 to 128 characters of A-Z a-z 0-9 . _ : -");


export const DiscoverRequestSchema = z.object({}).strict().openapi("DiscoverCapabilitiesRequest").describe("No fields: the sources are the service's own public MCP tools and the servers the service is configured with " +
    "(ASSISTANT_MCP_SERVERS). An empty body, or none, is the same request.");
export type DiscoverRequest = z.infer<typeof DiscoverRequestSchema>;

export const CapabilitySchema = z.object({
  name: z.string().openapi({ example: "list_events" }).describe("The tool's name, unique within its server"),
  title: z.string().nullable().describe("The tool's display title; null when the server gave none"),
  description: z.string().describe("What the tool does, as its server describes it"),
  server: z.string().describe("The MCP server that lists the tool: the service's own (`eventhub-public`) or a configured server's name"),
  source: z.enum(["service", "external"]).describe("service: the service's public MCP tools, run as you; external: a configured MCP server"),
  inputSchema: z.record(z.string(), z.unknown()).describe("The tool's arguments, as JSON Schema"),
  annotations: z.record(z.string(), z.unknown()).nullable().describe("MCP tool annotations (readOnlyHint, destructiveHint, ...)"),
  enabled: z.boolean().describe("Whether the assistant offers the tool (the operator's switch; new tools start enabled)"),
  new: z.boolean().describe("Registered for the first time by this call"),
  firstSeenAt: Timestamp.describe("When the tool was first registered (UTC)"),
  lastSeenAt: Timestamp.describe("When a discovery last listed it (UTC)"),
}).openapi("McpCapability").describe("A tool the assistant may offer");
export type Capability = z.infer<typeof CapabilitySchema>;

export const ServerReportSchema = z.object({
  name: z.string().describe("The server's name (`eventhub-public` for the service's own)"),
  source: z.enum(["service", "external"]).describe("service: the service's own public MCP tools; external: a configured MCP server"),
  status: z.enum(["ok", "failed"]).describe("ok: listed; failed: could not be listed (see `error`)"),
  toolCount: z.number().int().describe("Tools registered from this server by this call"),
  skipped: z.number().int().describe("Tools the server listed that were not registered (a name MCP does not allow, an oversized schema, past 200)"),
  error: z.string().optional().describe("Why the server could not be listed (status failed): its tools are then left as registered before"),
}).openapi("McpServerReport").describe("How listing one MCP server went");
export type ServerReport = z.infer<typeof ServerReportSchema>;

export const DiscoverAnswerSchema = z.object({
  success: z.literal(true).describe("The discovery ran; a server that failed is reported in `servers`, not as an error"),
  capabilities: z.array(CapabilitySchema).describe("Every tool listed now, the service's first, then each server's in configuration order"),
  total_discovered: z.number().int().describe("The number of capabilities"),
  new_capabilities: z.number().int().describe("How many of them this call registered for the first time"),
  servers: z.array(ServerReportSchema).describe("One report per server: the service's own, then each configured one"),
}).openapi("DiscoverCapabilitiesResponse");
export type DiscoverAnswer = z.infer<typeof DiscoverAnswerSchema>;
