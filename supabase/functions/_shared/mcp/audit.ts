// The audit of MCP tool calls (migration 20261123001300_mcp.sql): one row per call, on both endpoints,
// readable by the user at GET /api/v3/me/mcp-audit. Arguments are stored with secrets redacted;
// tokens and keys are never written (the key is named by its id, which the database takes from the
// transaction it entered with the key). The person's decisions on confirmation links (approve,
// refuse) are recorded in the same table (endpoint "confirmation", 20261123001500_mcp_confirmations.sql).
import type { Database, Tx } from "../db/database.ts";
import type { ApiKeyScope, DbScope } from "../db/scopes.ts";
import { wellFormed } from "../http/validation.ts";

export type McpEndpoint = "backend" | "public";

/** What every record holds, whoever made it. */
interface AuditedRecord {
  /** As the client sent them; redacted here before they are stored. */
  arguments: unknown;
  outcome: "ok" | "error";
  /** The stable error code of a failed call (the REST error body's `code`), else null. */
  errorCode: string | null;
  /** The status of the REST route the tool called, when it called one. */
  httpStatus: number | null;
  durationMs: number;
  requestId: string;
}

export interface ToolCallRecord extends AuditedRecord {
  endpoint: McpEndpoint;
  tool: string;
  /** Public endpoint: the OAuth client, grant and the token's scopes. */
  clientId?: string | null;
  grantId?: string | null;
  scopes?: string[];
}

/** The person's decision on their confirmation link (the database takes the client, grant and kind from the link). */
export interface DecisionRecord extends AuditedRecord {
  confirmationId: string;
  /** The link's token hash: the record is written only for the link the person opened with it. */
  tokenHash: Uint8Array;
  decision: "approve" | "refuse";
  /** The scope the approved action ran with; none for a refusal. */
  scopes: string[];
}

const REDACTED = "[redacted]";

/** Argument names whose values are secrets wherever they appear (any nesting, any case). */
const SECRET_NAME = /secret|password|passphrase|token|api[-_]?key|authorization|private[-_]?key|mnemonic|seed[-_]?phrase|cookie|credential/i;
/** Values that are secrets whatever their name: API keys, bearer tokens, JWTs, webhook secrets, raw 32-byte keys. */
const SECRET_VALUE = [
  /\bsk_[a-z0-9]{8}_[A-Za-z0-9_-]{20,}/g,
  /\bwhsec_[A-Za-z0-9+/=_-]{16,}/g,
  /\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
];
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** The arguments with every secret replaced by "[redacted]": by name (clientSecret, apiKey, ...) and by form. */
export function redactArguments(value: unknown, depth = 0): unknown {
  if (depth > 20) return REDACTED;
  if (typeof value === "string") {
    return SECRET_VALUE.reduce((text, pattern) => text.replace(pattern, REDACTED), wellFormed(value));
  }
  if (Array.isArray(value)) return value.map((item) => redactArguments(item, depth + 1));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [
      wellFormed(name),
      SECRET_NAME.test(name) || (typeof item === "string" && /key/i.test(name) && PRIVATE_KEY.test(item)) ? REDACTED : redactArguments(item, depth + 1),
    ]));
  }
  return value;
}

const MAX_ARGUMENT_BYTES = 16 * 1024;

/** Redacted, and clipped to a note when larger than 16 KiB (a call's record must never fail on its size). */
function auditedArguments(value: unknown): unknown {
  const redacted = redactArguments(value ?? {});
  const text = JSON.stringify(redacted) ?? "null";
  const bytes = new TextEncoder().encode(text).length;
  return bytes <= MAX_ARGUMENT_BYTES ? redacted : { clipped: true, bytes };
}

/**
 * Stores one record with `write` (given the redacted arguments and the whole milliseconds). Never
 * throws: what was done is answered even when its record cannot be written, and the failure is
 * logged (without arguments). Used for what commits on its own (an operation with its own
 * transactions, a link's decision, a refused call): there a failing record would undo an outcome whose
 * effects (a linked wallet, a recorded deposit) other transactions already made. A call that runs in
 * one transaction records itself with recordToolCall instead, and commits with its record.
 */
async function append(record: AuditedRecord, what: string, write: (args: unknown, durationMs: number) => Promise<unknown>): Promise<void> {
  try {
    await write(auditedArguments(record.arguments), wholeMilliseconds(record.durationMs));
  } catch (error) {
    console.error(`[${record.requestId}] MCP audit of ${what} failed:`, error instanceof Error ? error.message : error);
  }
}

/**
 * The statement that appends the record of one tool call inside a transaction already in the
 * caller's scope (an MCP call's own transaction): it commits with what it records.
 */
export function recordToolCall(tx: Tx, record: ToolCallRecord) {
  return tx`
    select mcp.record_tool_call(
      ${record.endpoint}, ${record.tool}, ${tx.json(auditedArguments(record.arguments) as never)}::jsonb, ${record.outcome},
      ${record.errorCode}, ${record.httpStatus}::integer, ${wholeMilliseconds(record.durationMs)}::integer, ${record.requestId},
      ${record.clientId ?? null}, ${record.grantId ?? null}, ${record.scopes ?? []}::text[])`;
}

const wholeMilliseconds = (durationMs: number) => Math.max(0, Math.round(durationMs));

/**
 * Appends the record of one tool call, in `scope` (the caller's: the database takes the user, and for
 * an API key its id, from there). An API key's record is one statement that enters the key's scope
 * itself (core.mcp_record_tool_call), sent without a transaction block or a connection of its own;
 * any other scope's is a transaction in it. Never throws (see append).
 */
export function auditToolCall(db: Database, scope: DbScope, record: ToolCallRecord): Promise<void> {
  return append(record, record.tool, async (args, duration) => {
    if (scope.kind === "api_key" && record.clientId == null && record.grantId == null && !record.scopes?.length) {
      await db.apiKeyFunction(scope, (sql, keyHash, required) => sql<{ owner_id: string }[]>`
        select core.mcp_record_tool_call(${keyHash}, ${required}::text[], ${record.endpoint}, ${record.tool}, ${sql.json(args as never)}::jsonb,
          ${record.outcome}, ${record.errorCode}, ${record.httpStatus}::integer, ${duration}::integer, ${record.requestId}) as owner_id`,
        ([row]) => row?.owner_id);
      return;
    }
    await db.statement(scope, (tx) => recordToolCall(tx, record));
  });
}

/**
 * Appends the record of the person's decision on their confirmation link, in their scope
 * (mcp_confirmations.record_decision: tool approve_<kind> or refuse_<kind>, endpoint "confirmation").
 * Never throws (see append).
 */
export function auditDecision(db: Database, scope: DbScope, record: DecisionRecord): Promise<void> {
  return append(record, `the ${record.decision} decision on confirmation ${record.confirmationId}`, (args, duration) => db.statement(scope, (tx) => tx`
    select mcp_confirmations.record_decision(
      ${record.confirmationId}, ${record.tokenHash}, ${record.decision}, ${tx.json(args as never)}::jsonb, ${record.outcome},
      ${record.errorCode}, ${record.httpStatus}::integer, ${duration}::integer, ${record.requestId}, ${record.scopes}::text[])`));
}

/**
 * Counts one request of an API key on `endpoint` (mcp.take_rate_limit, per key and minute); over
 * `limit` it throws the 429 rate_limited ApiError with Retry-After. This also checks the key, in one
 * statement (core.mcp_take_rate_limit) sent without a transaction block or a connection of its own.
 * (The public endpoint's per-grant limit is taken by mcp_oauth.access_allowed with its token check.)
 */
export async function takeRateLimit(db: Database, scope: ApiKeyScope, endpoint: McpEndpoint, limit: number): Promise<void> {
  await db.apiKeyFunction(scope, (sql, keyHash, required) =>
    sql<{ owner_id: string }[]>`select core.mcp_take_rate_limit(${keyHash}, ${required}::text[], ${endpoint}, ${limit}::integer) as owner_id`,
    ([row]) => row?.owner_id);
}
