// Discovering the MCP tools the assistant may offer (discover-mcp-capabilities): the service's own
// public MCP tools, listed through an in-memory MCP client as the signed-in person, and the tools of
// every configured external server (external-tools.ts), all at once. What was listed is registered
// in chat.capabilities as service_jobs (chat.register_capabilities): what enters the shared
// registry is the service's decision, never a caller's. A server that cannot be listed is reported,
// and its tools stay as registered before. The chat offers registered, enabled tools that are not
// withdrawn.
import type { Server } from "@modelcontextprotocol/server";
import type { Tool } from "@modelcontextprotocol/client";
import { serviceJobs } from "../db/service-jobs.ts";
import { type ExternalMcpServer, sourceOf } from "../mcp/external-servers.ts";
import { ListingFailure, listExternalTools } from "../mcp/external-tools.ts";
import { connectInMemory } from "../mcp/in-memory.ts";
import { ok, operation, type OperationContext } from "../operations/operation.ts";
import type { Capability, DiscoverAnswer, DiscoverRequest, ServerReport } from "./schemas.ts";

/** The registry's limits (chat.capabilities): a tool past them is skipped, never a failed discovery. */
const MAX_TOOLS_PER_SERVER = 200;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const MAX_DESCRIPTION_CHARS = 4000;
const MAX_TITLE_CHARS = 200;
const MAX_INPUT_SCHEMA_BYTES = 65536;
const MAX_ANNOTATIONS_BYTES = 4096;

/** A tool as the registry takes it. */
interface RegisteredTool {
  name: string;
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
}

const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;

/** The tools the registry can hold, clipped to its limits, and how many it cannot. */
function registrable(tools: readonly Tool[]): { tools: RegisteredTool[]; skipped: number } {
  const kept: RegisteredTool[] = [];
  const names = new Set<string>();
  for (const tool of tools) {
    if (kept.length === MAX_TOOLS_PER_SERVER) break;
    const annotations = tool.annotations ?? null;
    if (!TOOL_NAME.test(tool.name) || names.has(tool.name) || jsonBytes(tool.inputSchema) > MAX_INPUT_SCHEMA_BYTES ||
      (annotations && jsonBytes(annotations) > MAX_ANNOTATIONS_BYTES)) continue;
    names.add(tool.name);
    kept.push({
      name: tool.name,
      title: (tool.title ?? tool.annotations?.title)?.slice(0, MAX_TITLE_CHARS) ?? null,
      description: (tool.description ?? "").slice(0, MAX_DESCRIPTION_CHARS),
      inputSchema: tool.inputSchema,
      annotations,
    });
  }
  return { tools: kept, skipped: tools.length - kept.length };
}

/** Where tools come from: the registry's source, the server's name, and how to list them. */
interface ToolSource {
  source: string;
  name: string;
  kind: ServerReport["source"];
  list(): Promise<Tool[]>;
}

type Listing = { from: ToolSource; tools: RegisteredTool[]; skipped: number } | { from: ToolSource; error: string };

async function listFrom(from: ToolSource, requestId: string): Promise<Listing> {
  try {
    return { from, ...registrable(await from.list()) };
  } catch (error) {
    if (!(error instanceof ListingFailure)) throw error;
    // The server's name and the reason, never its URL or headers.
    console.warn(`[${requestId}] MCP server ${from.name} could not be listed: ${error.reason}`);
    return { from, error: error.reason };
  }
}

async function listThroughMcp(server: Server): Promise<Tool[]> {
  const client = await connectInMemory(server);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

export interface DiscoverySources {
  /** The service's own server name. */
  serviceName: string;
  /** A new server of the service's public MCP tools for the caller. */
  serviceTools(context: OperationContext): Server;
}

function externalSource(server: ExternalMcpServer, context: OperationContext): ToolSource {
  const { config } = context;
  return {
    source: sourceOf(server),
    name: server.name,
    kind: "external",
    list: () => listExternalTools(server, { timeoutMs: config.ASSISTANT_MCP_TIMEOUT_MS, publicOnly: config.APP_ENV === "production" }),
  };
}

/** The discovery, given the service's own tools (the public MCP surface, which lives with the API). */
export function discoverCapabilities(sources: DiscoverySources) {
  return operation<DiscoverRequest, DiscoverAnswer>({
    name: "chat.discoverCapabilities",
    // Lists over the network first, then registers in a transaction of its own, as service_jobs.
    ownTransactions: true,
    async run(context) {
      const service: ToolSource = {
        source: "service",
        name: sources.serviceName,
        kind: "service",
        list: () => listThroughMcp(sources.serviceTools(context)),
      };
      const froms = [service, ...context.config.ASSISTANT_MCP_SERVERS.map((server) => externalSource(server, context))];
      const listings = await Promise.all(froms.map((from) => listFrom(from, context.requestId)));
      const registered = await serviceJobs(context.database).transaction(async (tx) => {
        const results: Array<{ newCount: number; capabilities: Capability[] } | undefined> = [];
        for (const listing of listings) {
          if ("error" in listing) {
            results.push(undefined);
            continue;
          }
          const [row] = await tx<{ registered: { newCount: number; capabilities: Capability[] } }[]>`
            select chat.register_capabilities(${listing.from.source}, ${listing.from.name}, ${tx.json(listing.tools as never)}) as registered`;
          results.push(row!.registered);
        }
        return results;
      });
      const servers: ServerReport[] = listings.map((listing, i) => "error" in listing
        ? { name: listing.from.name, source: listing.from.kind, status: "failed", toolCount: 0, skipped: 0, error: listing.error }
        : { name: listing.from.name, source: listing.from.kind, status: "ok", toolCount: registered[i]!.capabilities.length, skipped: listing.skipped });
      const capabilities = registered.flatMap((result) => result?.capabilities ?? []);
      return ok({
        success: true as const,
        capabilities,
        total_discovered: capabilities.length,
        new_capabilities: registered.reduce((sum, result) => sum + (result?.newCount ?? 0), 0),
        servers,
      });
    },
  });
}
