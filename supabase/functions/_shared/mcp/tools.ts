// Tools of both MCP endpoints: a definition (name, title, zod input and output schemas, annotations)
// bound to the operation it runs (_shared/<domain>/operations.ts), and the wrapper that runs every
// call the same way: arguments validated, the operation run as the caller, the answer turned into
// structuredContent or an isError result carrying the error's code, and the call audited. A
// tools/call runs in one transaction the endpoint opened (the caller's scope and rate limit): the
// operation's statements and the record of the call commit together, and a failed operation is
// rolled back to the savepoint after the scope and recorded as failed.
import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { DbScope, Tx } from "../db/database.ts";
import type { McpCall } from "./call.ts";
import { ApiError, errorBody } from "../http/errors.ts";
import { validationError } from "../http/validation.ts";
import { type Answer, JsonText, type Operation, type OperationContext, runOperation } from "../operations/operation.ts";
import { auditToolCall, type McpEndpoint, recordToolCall, type ToolCallRecord } from "./audit.ts";

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
  /** The REST route's response schema: structuredContent is exactly the operation's answer. */
  output: O;
  annotations: ToolAnnotations;
  /** What the tool runs, as the caller. */
  operation: Operation<never>;
  /** The operation's input from the validated arguments (without it, the arguments themselves). */
  toInput?: (args: z.output<I>) => unknown;
  /** For a tool that runs another operation named by its arguments (call_api): that operation, when they name one. */
  dispatchesTo?: (args: unknown) => Operation<never> | undefined;
}

/** A definition whose operation takes the validated arguments as they are, or through `toInput`. */
export function define<I extends z.ZodObject, O extends z.ZodType, OpIn>(
  definition: Omit<ToolDefinition<I, O>, "operation" | "toInput"> & ({ operation: Operation<z.output<I>> } | { operation: Operation<OpIn>; toInput: (args: z.output<I>) => OpIn }),
): ToolDefinition<I, O> {
  return definition as unknown as ToolDefinition<I, O>;
}

/** Who is calling, for the operations and the audit. */
export interface ToolSession {
  endpoint: McpEndpoint;
  /** The operations' context as the caller: each statement in a transaction of its own. */
  context: OperationContext;
  /** The caller's database scope: a record written outside a call transaction is written in it. */
  scope: DbScope;
  /** A tools/call's transaction, opened by the endpoint in the caller's scope and rate limit. */
  call?: McpCall;
  /** Public endpoint: the OAuth client, grant and scopes recorded with each call. */
  oauth?: { clientId: string; grantId: string; scopes: string[] };
}

/**
 * Whether a tools/call of `definition` with `args` runs inside the call's transaction: not when the
 * operation it runs commits on its own (or, for a dispatching tool, when the arguments name none).
 */
export function runsInCallTransaction(definition: ToolDefinition | undefined, args: unknown): boolean {
  if (definition === undefined) return false;
  const operation = definition.dispatchesTo ? definition.dispatchesTo(args) : definition.operation;
  return operation !== undefined && !operation.ownTransactions;
}

const VALID = Symbol("validated arguments");
const INVALID = Symbol("invalid arguments");
const SENT = Symbol("arguments as sent");
/** What validation hands the tool: the arguments as sent (for the audit), and their validated value or the issues. */
type Checked = {
  [VALID]?: unknown;
  [INVALID]?: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>;
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
 * The input schema as the SDK sees it: the same JSON Schema, but the tool receives the arguments as
 * sent beside their validated value (defaults applied), so the audit records what the client sent;
 * and a failed validation reaches the tool instead of ending as the SDK's own error text, so that it
 * is answered with REST's code and audited like every other call.
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
        const checked: Checked = result.issues ? { [INVALID]: result.issues, [SENT]: value } : { [VALID]: result.value, [SENT]: value };
        return { value: checked };
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

function invalidArguments(issues: NonNullable<Checked[typeof INVALID]>, requestId: string): ToolAnswer {
  const error = validationError(issues, "arguments");
  return { status: 400, body: errorBody(requestId, error.code, error.message, error.details) };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** What a call answered: an operation's status and body (its JSON text as the database wrote it, when it did), or an error body. */
interface ToolAnswer {
  status: number;
  body: unknown;
  text?: string;
}

function answerOf(answer: Answer): ToolAnswer {
  if (answer.body instanceof JsonText) return { status: answer.status, body: JSON.parse(answer.body.text), text: answer.body.text };
  return { status: answer.status, body: answer.body ?? {} };
}

/**
 * 2xx: the body as structuredContent, and as text (the JSON text as the database wrote it, when it
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
 * Runs the tool's operation and records the call. In the call's transaction (when the endpoint
 * opened one): the record commits with the operation's writes, or after they were rolled back to the
 * savepoint; a record that cannot be written undoes the operation, which then answers an error. A
 * call whose scope or rate limit was refused as the transaction opened is neither run nor recorded:
 * the endpoint answers that refusal over HTTP. Without a call transaction (operations that commit on
 * their own), the record is a statement of its own after the operation, and never fails the call.
 */
async function runTool(definition: ToolDefinition, checked: Checked, session: ToolSession): Promise<ToolAnswer> {
  const started = performance.now();
  const { context } = session;
  const call = runsInCallTransaction(definition, checked[VALID] ?? checked[SENT]) && session.call?.take() ? session.call.transaction : undefined;
  const record = (answer: ToolAnswer): ToolCallRecord => {
    const ok = answer.status >= 200 && answer.status < 300;
    const code = !ok && isObject(answer.body) && typeof answer.body.code === "string" ? answer.body.code : null;
    return {
      endpoint: session.endpoint,
      tool: definition.name,
      arguments: checked[SENT],
      outcome: ok ? "ok" : "error",
      errorCode: ok ? null : (code ?? `http_${answer.status}`),
      httpStatus: answer.status,
      durationMs: performance.now() - started,
      requestId: context.requestId,
      clientId: session.oauth?.clientId,
      grantId: session.oauth?.grantId,
      scopes: session.oauth?.scopes,
    };
  };
  let answer: ToolAnswer;
  let failed = true;
  try {
    const issues = checked[INVALID];
    if (issues) {
      answer = invalidArguments(issues, context.requestId);
    } else {
      const args = checked[VALID];
      const input = definition.toInput ? definition.toInput(args as never) : args;
      answer = answerOf(await runOperation(definition.operation, call ? { ...context, db: call.scoped } : context, input as never));
      failed = false;
    }
  } catch (error) {
    answer = answerOfError(error, context.requestId, definition.name);
  }
  if (!call) {
    await auditToolCall(context.database, session.scope, record(answer));
    return answer;
  }
  if (await call.opened.then(() => false, () => true)) {
    await call.abandon();
    return answer;
  }
  try {
    const last = (tx: Tx) => recordToolCall(tx, record(answer));
    await (failed ? call.commitAfterFailure(last) : call.commit(last));
    return answer;
  } catch (error) {
    // Nothing was committed: neither what the operation did nor its record.
    console.error(`[${context.requestId}] MCP call of ${definition.name} could not be recorded:`, error instanceof Error ? error.message : error);
    return answerOfError(new ApiError(503, "audit_unavailable", "The call could not be recorded, so nothing it did was kept; try again."), context.requestId, definition.name);
  }
}

/**
 * A new McpServer with `definitions`, each running its operation for `session` (one server per HTTP
 * request: nothing is shared between callers). `calledTool` (see serveMcpRequest): the request is a
 * tools/call of that tool, and when it is one of `definitions` only that one is registered; any
 * other request (tools/list, initialize, an unknown tool) gets every definition.
 */
export function buildToolServer(
  info: { name: string; version: string; instructions: string },
  definitions: Readonly<Record<string, ToolDefinition>>,
  session: ToolSession,
  calledTool?: string,
): McpServer {
  const server = new McpServer({ name: info.name, version: info.version }, { instructions: info.instructions });
  const keys = calledTool !== undefined && Object.hasOwn(definitions, calledTool) ? [calledTool] : Object.keys(definitions);
  for (const key of keys) {
    const definition = definitions[key]!;
    server.registerTool(definition.name, {
      title: definition.title,
      description: definition.description,
      ...schemasOf(definition),
      annotations: { title: definition.title, ...definition.annotations },
    }, (async (checked: Checked) => toToolResult(await runTool(definition, checked, session), session.context.requestId)) as never);
  }
  return server;
}
