// Tools of both MCP endpoints: a definition (name, title, zod input and output schemas, annotations)
// kept apart from its implementation (usually one REST route, called in-process with callRoute), and
// the wrapper that runs every call the same way: arguments validated, the implementation run, the
// answer turned into structuredContent (2xx) or an isError result carrying the REST error's code,
// and the call audited.
import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Database, DbScope } from "../db/database.ts";
import { ApiError, errorBody } from "../http/errors.ts";
import { auditToolCall, type McpEndpoint } from "./audit.ts";
import type { RouteAnswer, RouteCall } from "./call-route.ts";

export interface ToolAnnotations {
  /** Changes nothing. */
  readOnlyHint: boolean;
  /** May overwrite or delete (false: only adds). Meaningless when read-only. */
  destructiveHint: boolean;
  /** Repeating the call with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** Reaches outside the service (a chain, a geocoder, a store's webhook endpoint). */
  openWorldHint: boolean;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  /** The REST route's response schema: structuredContent is exactly the route's JSON answer. */
  output: O;
  annotations: ToolAnnotations;
}

/**
 * The answer of an implementation: a REST route's status and JSON body (and its text as sent), or a
 * body of its own (200).
 */
export type ToolAnswer = Pick<RouteAnswer, "status" | "body"> & Partial<Pick<RouteAnswer, "text">>;

export interface ToolContext {
  /** Calls a REST route in-process as the MCP caller (see call-route.ts). */
  route(call: RouteCall): Promise<RouteAnswer>;
  requestId: string;
}

export type ToolImplementation<D extends ToolDefinition> = (args: z.output<D["input"]>, context: ToolContext) => Promise<ToolAnswer>;

/** Implementations keyed by tool name, each typed by its definition. */
export type ToolImplementations<Defs extends Record<string, ToolDefinition>> = { [K in keyof Defs]: ToolImplementation<Defs[K]> };

/** Who is calling, for the implementations and the audit. */
export interface ToolSession {
  endpoint: McpEndpoint;
  db: Database;
  /** The caller's database scope: the audit record is written in it. */
  scope: DbScope;
  requestId: string;
  context: ToolContext;
  /** Public endpoint: the OAuth client, grant and scopes recorded with each call. */
  oauth?: { clientId: string; grantId: string; scopes: string[] };
}

const INVALID = Symbol("invalid arguments");
const SENT = Symbol("arguments as sent");
type Invalid = {
  [INVALID]: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>;
  [SENT]: unknown;
};

/** Deep-freezes a cached JSON Schema: the SDK reads it on every request and must never change it. */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) frozen(item);
    Object.freeze(value);
  }
  return value;
}

type JsonSchemaConverter = NonNullable<StandardSchemaWithJSON["~standard"]["jsonSchema"]>;

/**
 * A zod schema's JSON Schema conversion, memoised per schema, direction and target. The SDK converts
 * a tool's input and output schemas on every tools/list and again on every tools/call (the output
 * schema for the result's projection, the input schema for the Mcp-Param header check): 19% of the
 * gateway's CPU under tools/call load. The schemas are module constants, so once per process is enough.
 */
const conversions = new WeakMap<object, Map<string, unknown>>();
function memoisedJsonSchema(schema: z.ZodType): JsonSchemaConverter {
  const convert = schema["~standard"].jsonSchema as JsonSchemaConverter;
  let done = conversions.get(schema);
  if (!done) conversions.set(schema, done = new Map());
  const cached = (io: "input" | "output") => (options: Parameters<JsonSchemaConverter["input"]>[0]) => {
    // Only the SDK's own call shape ({ target }) is cached; anything else is converted as before.
    if (Object.keys(options ?? {}).some((k) => k !== "target")) return convert[io](options);
    const key = `${io}:${options?.target}`;
    if (!done.has(key)) done.set(key, frozen(convert[io](options)));
    return done.get(key) as Record<string, unknown>;
  };
  return { input: cached("input"), output: cached("output") };
}

/**
 * The input schema as the SDK sees it: the same JSON Schema, but a failed validation reaches the
 * tool (marked) instead of ending as the SDK's own error text, so that it is answered with the REST
 * code `validation_failed` and audited like every other call.
 */
function auditedInput(schema: z.ZodObject): StandardSchemaWithJSON {
  const standard = schema["~standard"];
  return {
    "~standard": {
      version: 1,
      vendor: "eventhub-mcp",
      jsonSchema: memoisedJsonSchema(schema),
      validate: (value: unknown) => {
        const result = standard.validate(value);
        if (result instanceof Promise) throw new Error("tool input schemas must validate synchronously");
        return result.issues ? { value: { [INVALID]: result.issues, [SENT]: value } } : result;
      },
    },
  } as StandardSchemaWithJSON;
}

/**
 * The output schema as the SDK sees it: the memoised JSON Schema, advertised in tools/list, and no
 * validation on the way out. An answer is the REST route's own JSON, which REST sends unvalidated
 * too (the SQL builds it); checking it again here cost a zod parse of every page per call. Clients
 * validate structuredContent against the advertised schema (the SDK's Client does, so every tool
 * test checks each answer against its schema).
 */
function advertisedOutput(schema: z.ZodType): StandardSchemaWithJSON {
  return {
    "~standard": { version: 1, vendor: "eventhub-mcp", validate: (value: unknown) => ({ value }), jsonSchema: memoisedJsonSchema(schema) },
  } as StandardSchemaWithJSON;
}

/** The schemas each definition registers with, built once per definition (and process). */
const registered = new WeakMap<ToolDefinition, { inputSchema: StandardSchemaWithJSON; outputSchema: StandardSchemaWithJSON }>();
function schemasOf(definition: ToolDefinition) {
  let schemas = registered.get(definition);
  if (!schemas) registered.set(definition, schemas = { inputSchema: auditedInput(definition.input), outputSchema: advertisedOutput(definition.output) });
  return schemas;
}

const pathOf = (issue: Invalid[typeof INVALID][number]) =>
  (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");

function invalidArguments(issues: Invalid[typeof INVALID], requestId: string): ToolAnswer {
  const listed = issues.slice(0, 20).map((issue) => ({ path: pathOf(issue), message: issue.message }));
  const summary = listed.slice(0, 3).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  return { status: 400, body: errorBody(requestId, "validation_failed", `The arguments are invalid: ${summary}`, { issues: listed, issueCount: issues.length }) };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * 2xx: the body as structuredContent, and as text (the route's JSON text as REST sent it, when it
 * is that body); otherwise an isError result with the error body.
 */
function toToolResult(answer: ToolAnswer, requestId: string): CallToolResult {
  if (answer.status >= 200 && answer.status < 300) {
    const structured = isObject(answer.body) ? answer.body : {};
    const text = structured === answer.body && answer.text !== undefined ? answer.text : JSON.stringify(structured);
    return { content: [{ type: "text", text }], structuredContent: structured };
  }
  const body = isObject(answer.body) && typeof answer.body.code === "string"
    ? answer.body
    : errorBody(requestId, "request_failed", `The operation answered HTTP ${answer.status}.`);
  return { content: [{ type: "text", text: `${body.code}: ${body.message}` }], structuredContent: body, isError: true };
}

function answerOfError(error: unknown, requestId: string, tool: string): ToolAnswer {
  if (error instanceof ApiError) return { status: error.status, body: errorBody(requestId, error.code, error.message, error.details) };
  console.error(`[${requestId}] MCP tool ${tool} failed:`, error);
  return { status: 500, body: errorBody(requestId, "internal_error", "The service failed to run the tool.") };
}

/**
 * A new McpServer with `definitions`, each running its implementation for `session` (one server per
 * HTTP request: nothing is shared between callers). `calledTool` (see serveMcpRequest): the request is
 * a tools/call of that tool, and when it is one of `definitions` only that one is registered; any
 * other request (tools/list, initialize, an unknown tool) gets every definition.
 */
export function buildToolServer<Defs extends Record<string, ToolDefinition>>(
  info: { name: string; version: string; instructions: string },
  definitions: Defs,
  implementations: ToolImplementations<Defs>,
  session: ToolSession,
  calledTool?: string,
): McpServer {
  const server = new McpServer({ name: info.name, version: info.version }, { instructions: info.instructions });
  const keys = calledTool !== undefined && Object.hasOwn(definitions, calledTool) ? [calledTool] : Object.keys(definitions);
  for (const key of keys as Array<keyof Defs & string>) {
    const definition = definitions[key]!;
    const implementation = implementations[key] as ToolImplementation<ToolDefinition>;
    server.registerTool(definition.name, {
      title: definition.title,
      description: definition.description,
      ...schemasOf(definition),
      annotations: { title: definition.title, ...definition.annotations },
    }, (async (args: unknown) => {
      const started = performance.now();
      let answer: ToolAnswer;
      if (isObject(args) && INVALID in args) {
        answer = invalidArguments((args as unknown as Invalid)[INVALID], session.requestId);
      } else {
        try {
          answer = await implementation(args as never, session.context);
        } catch (error) {
          answer = answerOfError(error, session.requestId, definition.name);
        }
      }
      const ok = answer.status >= 200 && answer.status < 300;
      const code = !ok && isObject(answer.body) && typeof answer.body.code === "string" ? answer.body.code : null;
      await auditToolCall(session.db, session.scope, {
        endpoint: session.endpoint,
        tool: definition.name,
        arguments: isObject(args) && INVALID in args ? (args as unknown as Invalid)[SENT] : args,
        outcome: ok ? "ok" : "error",
        errorCode: ok ? null : (code ?? `http_${answer.status}`),
        httpStatus: answer.status,
        durationMs: performance.now() - started,
        requestId: session.requestId,
        clientId: session.oauth?.clientId,
        grantId: session.oauth?.grantId,
        scopes: session.oauth?.scopes,
      });
      return toToolResult(answer, session.requestId);
    }) as never);
  }
  return server;
}
