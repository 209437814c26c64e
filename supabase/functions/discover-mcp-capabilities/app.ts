// The discover-mcp-capabilities function: the common rules (app-functions/app.ts), then the discovery
// (_shared/chat/capabilities.ts) as the person, given the public MCP surface's tools with every scope:
// an app session is the person themselves, not an assistant holding a grant.
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import { MCP_SCOPES } from "../_shared/auth/mcp-oauth.ts";
import { scopeOf } from "../_shared/auth/principal.ts";
import { discoverCapabilities } from "../_shared/chat/capabilities.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { runOperation } from "../_shared/operations/operation.ts";
import { PUBLIC_SERVER_INFO, publicToolServer } from "../_shared/mcp/public-server.ts";
import { discoverRoute } from "../_shared/app-functions/discover-mcp-capabilities.ts";

const discover = discoverCapabilities({
  serviceName: PUBLIC_SERVER_INFO.name,
  serviceTools: (context) => publicToolServer({ endpoint: "public", context, scope: scopeOf(context.principal) }, MCP_SCOPES),
});

export function createDiscoverMcpCapabilitiesApp(services: AppServices) {
  return createFunctionApp(services, {
    route: discoverRoute,
    ratePerMinute: (config) => config.DISCOVER_MCP_CAPABILITIES_RATE_LIMIT_PER_MINUTE,
    handle: ({ body, context }) => runOperation(discover, context, body),
  });
}
