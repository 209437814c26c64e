// The discover-mcp-capabilities function's route, also described in the API's OpenAPI document.
import { DiscoverAnswerSchema, DiscoverRequestSchema } from "../chat/schemas.ts";
import { functionRoute } from "./routes.ts";
import { jsonContent } from "../http/openapi.ts";

export const discoverRoute = functionRoute({
  name: "discover-mcp-capabilities",
  operationId: "discoverMcpCapabilities",
  summary: "Discover and register the MCP tools the assistant may offer",
  description: "Lists the tools of the service's own public MCP surface (for an app session: every public tool, run as you) " +
    "and of each MCP server the service is configured with, and registers them: `new_capabilities` counts the tools seen " +
    "for the first time. A server that cannot be reached within its deadline (three tries with backoff) is reported in " +
    "`servers` with status `failed`; the call still succeeds. The assistant offers the registered, enabled tools. " +
    "Rate limited per person (DISCOVER_MCP_CAPABILITIES_RATE_LIMIT_PER_MINUTE, 6 by default).",
  body: DiscoverRequestSchema,
  bodyRequired: false,
  response: { description: "What was discovered", ...jsonContent(DiscoverAnswerSchema) },
});
