// The public MCP endpoint's tools and the scopes each needs. The definitions and implementations are
// the MCP core's (api/mcp/backend: each calls its REST route in-process, here as the person behind
// the OAuth grant), so a tool answers exactly what REST answers that person. A tool is listed, and
// callable, only when the grant holds every scope it needs.
import type { InProcessApp } from "../../../_shared/mcp/call-route.ts";
import type { ToolDefinition, ToolImplementations } from "../../../_shared/mcp/tools.ts";
import { backendImplementations } from "../backend/implementations.ts";
import { backendTools } from "../backend/tools.ts";

/** Every scope each public tool needs. */
export const PUBLIC_TOOL_SCOPES = {
  list_events: ["events:read"],
  get_event: ["events:read"],
  list_hubs: ["hubs:read"],
  get_hub: ["hubs:read"],
  search_venues: ["venues:read"],
} as const satisfies Partial<Record<keyof typeof backendTools, readonly string[]>>;

export type PublicToolName = keyof typeof PUBLIC_TOOL_SCOPES;
type PublicTools = Pick<typeof backendTools, PublicToolName>;

export function isPublicTool(name: string): name is PublicToolName {
  return Object.hasOwn(PUBLIC_TOOL_SCOPES, name);
}

/** The definitions the grant's scopes allow. */
export function toolsFor(scopes: readonly string[]): Partial<PublicTools> {
  const allowed: Partial<Record<PublicToolName, ToolDefinition>> = {};
  for (const name of Object.keys(PUBLIC_TOOL_SCOPES) as PublicToolName[]) {
    if (PUBLIC_TOOL_SCOPES[name].every((scope) => scopes.includes(scope))) allowed[name] = backendTools[name];
  }
  return allowed as Partial<PublicTools>;
}

export function publicImplementations(app: InProcessApp): ToolImplementations<PublicTools> {
  const all = backendImplementations(app);
  return Object.fromEntries((Object.keys(PUBLIC_TOOL_SCOPES) as PublicToolName[]).map((name) => [name, all[name]])) as ToolImplementations<PublicTools>;
}
