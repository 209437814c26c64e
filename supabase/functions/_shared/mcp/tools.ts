// Tools of both MCP endpoints: a definition (name, title, zod input and output schemas, annotations)
// bound to the operation it runs (_shared/<domain>/operations.ts), and the wrapper that runs every
// call the same way: arguments validated, the operation run as the caller, the answer turned into
// structuredContent or an isError result whose text carries the error's code, and the call audited. A
// tools/call runs in one transaction the endpoint opened in the caller's scope: the
// operation's statements and the record of the call commit together, and a failed operation is
// rolled back to the savepoint after the scope and recorded as failed.
import { type CallToolResult, ProtocolError, ProtocolErrorCode, Server, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Tx } from "../db/database.ts";
import { translateDatabaseError } from "../db/database-errors.ts";
import type { DbScope } from "../db/scopes.ts";
import type { McpCall } from "./call.ts";
import { ApiError, errorBody } from "../http/errors.ts";
import { refuseLoneSurrogates, validationError, wellFormed } from "../http/validation.ts";
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
  /**
   * The toolset a client chooses it by (toolsets.ts): the OpenAPI tag of the REST operation it runs,
   * in snake case (`Check-in` is `check_in`), or `raw_api` for list_operations and call_api.
   */
  toolset: string;
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
  /**
   * How the tool is offered in read-only mode when that differs (call_api running GET operations
   * only, list_operations listing only those); without it, the tool is offered then only when its
   * annotations say readOnlyHint.
   */
  whenReadOnly?: Partial<Pick<ToolDefinition, "operation" | "dispatchesTo" | "annotations">>;
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
  /** A tools/call's transaction, opened by the endpoint in the caller's scope. */
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

/** An error result's text: the error body's code, then its message (`not_found: No event ...`). */
const ERROR_TEXT = /^([a-z][a-z0-9_]*): ([\s\S]*)$/;

/** The code and message of an isError result's text, else undefined. */
export function toolErrorOf(result: { isError?: boolean; content?: ReadonlyArray<{ type: string; text?: string }> }): { code: string; message: string } | undefined {
  const first = result.isError === true ? result.content?.[0] : undefined;
  const parts = first?.type === "text" && first.text !== undefined ? ERROR_TEXT.exec(first.text) : null;
  return parts ? { code: parts[1]!, message: parts[2]! } : undefined;
}

/**
 * 2xx: the body as structuredContent, and as text (the JSON text as the database wrote it, when it
 * is that body); otherwise an isError result whose text is the error's code and message. An error
 * carries no structuredContent: clients (the SDK 1.x Client among them) validate any they get against
 * the tool's output schema, which describes the answer, not the error body.
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
  return { content: [{ type: "text", text: `${body.code}: ${body.message}` }], isError: true };
}

function answerOfError(failure: unknown, requestId: string, tool: string): ToolAnswer {
  const error = translateDatabaseError(failure);
  if (error instanceof ApiError) return { status: error.status, body: errorBody(requestId, error.code, error.message, error.details) };
  console.error(`[${requestId}] MCP tool ${tool} failed:`, error);
  return { status: 500, body: errorBody(requestId, "internal_error", "The service failed to run the tool.") };
}

/**
 * Runs the tool's operation and records the call. In the call's transaction (when the endpoint
 * decided on one): the record commits with the operation's writes, or after they were rolled back
 * to the savepoint; a record that cannot be written undoes the operation, which then answers an
 * error. A call whose scope was refused as the transaction opened is neither kept nor
 * recorded: the endpoint answers that refusal over HTTP. Without a call transaction (operations that
 * commit on their own), the record is a statement of its own after the operation, and never fails
 * the call.
 */
async function runTool(definition: ToolDefinition, checked: Checked, session: ToolSession): Promise<ToolAnswer> {
  const started = performance.now();
  const { context } = session;
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
  /** The call's answer, or its failure's, with whether the operation failed. */
  const answered = async (operationContext: OperationContext): Promise<{ answer: ToolAnswer; failed: boolean }> => {
    const issues = checked[INVALID];
    if (issues) return { answer: invalidArguments(issues, context.requestId), failed: true };
    try {
      const args = checked[VALID];
      refuseLoneSurrogates(args, "arguments");
      const input = definition.toInput ? definition.toInput(args as never) : args;
      return { answer: answerOf(await runOperation(definition.operation, operationContext, input as never)), failed: false };
    } catch (error) {
      return { answer: answerOfError(error, context.requestId, definition.name), failed: true };
    }
  };
  const inCall = runsInCallTransaction(definition, checked[VALID] ?? checked[SENT])
    ? session.call?.take(async (transaction, refused) => {
      const { answer, failed } = await answered({ ...context, db: transaction.scoped });
      const refusal = await transaction.opened.then(() => undefined, (error: unknown) => error);
      if (refusal !== undefined) {
        refused(refusal);
        await transaction.abandon();
        return answer;
      }
      try {
        const last = (tx: Tx) => recordToolCall(tx, record(answer));
        await (failed ? transaction.commitAfterFailure(last) : transaction.commit(last));
        return answer;
      } catch (error) {
        // Nothing was committed: neither what the operation did nor its record. Without a database
        // the call is answered over HTTP (503 database_unavailable), like a refused opening.
        if (error instanceof ApiError && error.code === "database_unavailable") {
          refused(error);
          return answer;
        }
        console.error(`[${context.requestId}] MCP call of ${definition.name} could not be recorded:`, error instanceof Error ? error.message : error);
        return answerOfError(new ApiError(503, "audit_unavailable", "The call could not be recorded, so nothing it did was kept; try again."), context.requestId, definition.name);
      }
    })
    : undefined;
  if (inCall) return inCall;
  const { answer } = await answered(context);
  await auditToolCall(context.database, session.scope, record(answer));
  return answer;
}

/**
 * Records a call refused before any tool ran: a tool that does not exist (unknown_tool), one the
 * grant's scopes do not cover (insufficient_scope, refused over HTTP by the public endpoint), or one
 * outside the toolsets or read-only mode the client chose (tool_not_selected). Never throws, like
 * every record written apart from its call.
 */
export function auditRefusedCall(session: ToolSession, tool: string, args: unknown, errorCode: string, httpStatus: number | null): Promise<void> {
  return auditToolCall(session.context.database, session.scope, {
    endpoint: session.endpoint,
    tool: wellFormed(tool).slice(0, 128) || "(unnamed)",
    arguments: args,
    outcome: "error",
    errorCode,
    httpStatus,
    durationMs: 0,
    requestId: session.context.requestId,
    clientId: session.oauth?.clientId,
    grantId: session.oauth?.grantId,
    scopes: session.oauth?.scopes,
  });
}

/** How tools/list shows a definition: its JSON Schemas converted once per process, as the SDK's McpServer lists a tool. */
const listed = new WeakMap<ToolDefinition, Record<string, unknown>>();
function listedTool(definition: ToolDefinition): Record<string, unknown> {
  let tool = listed.get(definition);
  if (!tool) {
    const { inputSchema, outputSchema } = schemasOf(definition);
    const target = { target: "draft-2020-12" } as const;
    tool = frozen({
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema: inputSchema["~standard"].jsonSchema!.input(target),
      annotations: { title: definition.title, ...definition.annotations },
      outputSchema: outputSchema["~standard"].jsonSchema!.output(target),
    });
    listed.set(definition, tool);
  }
  return tool;
}

/**
 * A new server with `definitions`, each running its operation for `session` (one server per HTTP
 * request: nothing is shared between callers). It is the SDK's low-level Server with the two tool
 * methods: tools/list from the definitions, tools/call through runTool (arguments validated once,
 * by the tool's schema); McpServer's own layer would validate and project each call again.
 * `notSelected` says why a tool of the endpoint that is not among `definitions` was left out (the
 * client's choice of toolsets or read-only mode); a call of it is refused with that reason.
 */
export function buildToolServer(
  info: { name: string; version: string; instructions: string },
  definitions: Readonly<Record<string, ToolDefinition>>,
  session: ToolSession,
  notSelected: (name: string) => string | undefined = () => undefined,
): Server {
  const server = new Server({ name: info.name, version: info.version }, { capabilities: { tools: { listChanged: true } }, instructions: info.instructions });
  server.setRequestHandler("tools/list", () => ({ tools: Object.values(definitions).map(listedTool) }) as never);
  server.setRequestHandler("tools/call", async (request) => {
    const { name, arguments: args } = request.params;
    const definition = Object.hasOwn(definitions, name) ? definitions[name] : undefined;
    if (!definition) {
      const reason = notSelected(name);
      await auditRefusedCall(session, name, args, reason === undefined ? "unknown_tool" : "tool_not_selected", null);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, reason ?? `Tool ${name} not found`);
    }
    const checked = schemasOf(definition).inputSchema["~standard"].validate(args ?? {}) as { value: Checked };
    const result = toToolResult(await runTool(definition, checked.value, session), session.context.requestId);
    return server.projectCallToolResult(result, listedTool(definition).outputSchema as never);
  });
  return server;
}
