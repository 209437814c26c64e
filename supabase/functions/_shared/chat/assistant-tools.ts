// The assistant's tools: the service's public MCP tools, called through the MCP SDK's Client linked in
// memory to a new public MCP server per call (no HTTP hop), as the signed-in person behind the
// in-app assistant's OAuth grant (chat.assistant_grant). So a call is what the same call on /mcp
// is: the same definitions, scopes, validation, one transaction with its audit record
// (endpoint public, this client and grant), and confirmation links bound to this grant.
//
// An app session is the person themselves, so the grant holds every public scope (as in
// discover-mcp-capabilities): what protects them from a steered model is that a write runs only when
// they approve that exact call in the app (assistant.ts), and that wallet and money actions are only
// ever links, a few a turn. Revoking the grant turns the assistant's tools off until the person turns
// them on again (chat.assistant_grant).
//
// Offered to the model: the tools the registry holds from the service (source 'service'), enabled
// and not withdrawn, that the server lists for these scopes. Each is sorted by what running it on
// the model's word may do: read (changes nothing), link (makes a confirmation link, and nothing
// else) or write (anything else).
import type { Client, Tool } from "@modelcontextprotocol/client";
import type { Server } from "@modelcontextprotocol/server";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { MCP_SCOPES } from "../auth/mcp-oauth.ts";
import { type Principal, scopeOf } from "../auth/principal.ts";
import { McpCall } from "../mcp/call.ts";
import { connectInMemory } from "../mcp/in-memory.ts";
import { type ToolSession, toolErrorOf } from "../mcp/tools.ts";
import { contextFor, type OperationContext } from "../operations/operation.ts";

/** The public MCP tool server (_shared/mcp/public-server.ts), handed in by the function. */
export interface PublicToolSurface {
  /** A new public MCP server for `session`, listing the tools `scopes` allow. */
  server(session: ToolSession, scopes: readonly string[]): Server;
  /** Whether a call of `name` with `args` runs in one transaction with its record (as on /mcp). */
  runsInCallTransaction(name: string, args: unknown): boolean;
  /** The tools that only make a confirmation link. */
  linkTools: ReadonlySet<string>;
}

/** The scopes the assistant of an app session holds: all of the public tools'. */
export const APP_SESSION_SCOPES = MCP_SCOPES;

export type ToolKind = "read" | "link" | "write";

export interface OfferedTool {
  name: string;
  title: string;
  kind: ToolKind;
  destructive: boolean;
  function: ChatCompletionFunctionTool;
}

/** What a call answered: the tool's structured answer, or its error. */
export type ToolAnswer = { ok: true; result: Record<string, unknown> } | { ok: false; error: { code: string; message: string } };

/** A name OpenAI accepts for a function. */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function kindOf(tool: Tool, linkTools: ReadonlySet<string>): ToolKind {
  if (tool.annotations?.readOnlyHint === true) return "read";
  return linkTools.has(tool.name) ? "link" : "write";
}

function asFunction(tool: Tool): ChatCompletionFunctionTool {
  const { $schema: _dialect, ...parameters } = tool.inputSchema as Record<string, unknown>;
  const title = tool.title ?? tool.annotations?.title;
  return {
    type: "function",
    function: { name: tool.name, description: [title, tool.description].filter(Boolean).join(": "), parameters },
  };
}

type AssistantPrincipal = Extract<Principal, { kind: "oauth" }>;

/** A new public MCP server for the person behind the assistant's grant; `call` is a tools/call's transaction. */
function serverFor(surface: PublicToolSurface, context: OperationContext, principal: AssistantPrincipal, call?: McpCall): Server {
  const scope = scopeOf(principal);
  const session: ToolSession = {
    endpoint: "public",
    context: contextFor({ db: context.database, config: context.config }, principal, context.requestId, scope),
    scope,
    call,
    oauth: { clientId: principal.clientId, grantId: principal.grantId, scopes: principal.scopes },
  };
  return surface.server(session, principal.scopes);
}

async function withClient<T>(server: Server, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectInMemory(server);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

export class AssistantToolbox {
  private constructor(
    private readonly surface: PublicToolSurface,
    private readonly context: OperationContext,
    private readonly principal: AssistantPrincipal,
    readonly offered: ReadonlyMap<string, OfferedTool>,
  ) {}

  /**
   * The person's toolbox: their assistant grant, and the tools on offer now. The grant is made on
   * first use; once they revoked it, only again when `enable` (their explicit act): else 403
   * assistant_disabled.
   */
  static async open(surface: PublicToolSurface, context: OperationContext, resource: string, enable: boolean): Promise<AssistantToolbox> {
    if (context.principal.kind !== "session") throw new Error("the assistant acts for an app session");
    const [[grant], registered] = await Promise.all([
      context.db.statement((tx) => tx<{ grant_id: string; client_id: string }[]>`
        select grant_id, client_id from chat.assistant_grant(${APP_SESSION_SCOPES as string[]}, ${resource}, ${enable})`),
      context.db.statement((tx) => tx<{ tool_name: string }[]>`
        select tool_name from chat.capabilities where source = 'service' and enabled and withdrawn_at is null`),
    ]);
    const principal: AssistantPrincipal = {
      kind: "oauth", userId: context.principal.userId, clientId: grant!.client_id, grantId: grant!.grant_id, scopes: [...APP_SESSION_SCOPES],
    };
    const enabled = new Set(registered.map((row) => row.tool_name));
    const listed = await withClient(serverFor(surface, context, principal), async (client) => (await client.listTools()).tools);
    const offered = new Map<string, OfferedTool>();
    for (const tool of listed) {
      if (!enabled.has(tool.name) || !FUNCTION_NAME.test(tool.name)) continue;
      offered.set(tool.name, {
        name: tool.name,
        title: tool.title ?? tool.annotations?.title ?? tool.name,
        kind: kindOf(tool, surface.linkTools),
        destructive: tool.annotations?.destructiveHint === true,
        function: asFunction(tool),
      });
    }
    return new AssistantToolbox(surface, context, principal, offered);
  }

  /** Runs the tool as the person through a new in-memory MCP link. */
  async call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const { surface, context, principal } = this;
    const call = surface.runsInCallTransaction(name, args) ? new McpCall(() => context.database.open(scopeOf(principal))) : undefined;
    try {
      const result = await withClient(serverFor(surface, context, principal, call), (client) => client.callTool({ name, arguments: args }));
      if (!result.isError) return { ok: true, result: (result.structuredContent ?? {}) as Record<string, unknown> };
      return { ok: false, error: toolErrorOf(result) ?? { code: "tool_failed", message: "The tool failed." } };
    } catch (error) {
      console.error(`[${this.context.requestId}] assistant tool ${name} failed:`, error instanceof Error ? error.message : error);
      return { ok: false, error: { code: "tool_failed", message: "The tool could not be run." } };
    }
  }
}
