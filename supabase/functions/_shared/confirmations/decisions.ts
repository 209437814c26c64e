// The person's decisions on a confirmation link, for its page (api/confirmations): view it, prepare
// what their wallet signs, approve it, refuse it. Each opens the link as the page's signed-in person
// (mcp_confirmations.open_confirmation: the token's row, theirs, untampered). An approval checks the
// wallet's signature before the link is used up, claims the link (single use), and runs the action
// through its domain's operation as the person (their grant's client, limited to the action's one
// scope), so the same validation, SQL and RLS decide as for REST. Each decision (an approval that
// claimed the link, a refusal) is audited in mcp.tool_calls (auditDecision) before it is answered.
import { getAddress, verifyMessage } from "viem";
import { personScope, sha256 } from "../auth/mcp-oauth.ts";
import { ANONYMOUS, type Principal } from "../auth/principal.ts";
import type { Config } from "../config.ts";
import { matchesSecret } from "../crypto/constant-time.ts";
import type { Database } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";
import { validationError } from "../http/validation.ts";
import { createSiweNonce, linkCryptoAddress } from "../identity/operations.ts";
import { LinkCryptoAddressSchema } from "../identity/schemas.ts";
import { checkSiweMessage } from "../identity/siwe.ts";
import { auditDecision, type DecisionRecord } from "../mcp/audit.ts";
import { type Answer, contextFor, JsonText, type Operation, operation, type OperationContext, runOperation } from "../operations/operation.ts";
import { recordDeposit as recordDepositOperation, saveSettings, sponsorshipVaultOf } from "../sponsorship/operations.ts";
import { RecordDepositSchema, SaveSettingsSchema } from "../sponsorship/schemas.ts";
import {
  actionHash, bindingOf, type ConfirmationKind, displayRows, hex, isKind, KINDS, settingsMessage, walletLinkMessage, walletLinkStatement,
} from "./actions.ts";
import { notFound, sponsorState, statusBody, type StatusRow } from "./operations.ts";

const ID = /^[0-9a-f]{24}$/;
const TOKEN = /^mcf_[A-Za-z0-9_-]{43}$/;
const NO_STORE = { "Cache-Control": "no-store" };

/** The link the page asks about, and who asks: its id and token, and the page's signed-in person. */
export interface LinkRequest {
  id: string;
  token: string;
  person: { userId: string; email: string };
}

/** A decision that sends a body: the request's JSON (undefined when it was not JSON), checked after the link. */
export interface LinkRequestWithBody extends LinkRequest {
  body: unknown;
}

/** Whether `id` and `token` have a link's shape; a request for anything else finds no link. */
export const isLinkShaped = (id: string, token: string): boolean => ID.test(id) && TOKEN.test(token);

/**
 * The context of the page's person: known by the sign-in pages' browser session, not by an API
 * credential, so no principal of the API; the database scope is theirs.
 */
export const decisionContext = (services: { db: Database; config: Config }, userId: string, requestId: string): OperationContext =>
  contextFor(services, ANONYMOUS, requestId, personScope(userId));

interface OpenRow extends StatusRow {
  mine: boolean;
  user_id: string;
  client_id: string;
  grant_id: string;
  client_name: string;
  binding: Uint8Array;
}

interface Opened {
  row: OpenRow;
  kind: ConfirmationKind;
  tokenHash: Uint8Array;
  person: { userId: string; email: string };
}

/** The link as its page may use it: the token's row, the person's own, untampered. */
async function openLink(context: OperationContext, { id, token, person }: LinkRequest): Promise<Opened> {
  const { config } = context;
  if (!isLinkShaped(id, token)) throw notFound();
  const tokenHash = sha256(token);
  const [row] = await context.db.statement((tx) => tx<OpenRow[]>`
    select * from mcp_confirmations.open_confirmation(${id}, ${tokenHash})`);
  if (!row) throw notFound();
  if (!row.mine) {
    throw new ApiError(403, "confirmation_of_another_user", `This link was made for another account; you are signed in as ${person.email}.`);
  }
  if (!isKind(row.kind) || !untampered(config, row, tokenHash)) {
    throw new ApiError(409, "confirmation_tampered", "This link's stored action no longer matches what the assistant asked for; it cannot be approved.");
  }
  return { row, kind: row.kind, tokenHash, person };
}

function untampered(config: Config, row: OpenRow, tokenHash: Uint8Array): boolean {
  const hash = actionHash(row.kind, row.action);
  const binding = bindingOf(config, {
    userId: row.user_id, clientId: row.client_id, grantId: row.grant_id, kind: row.kind, actionHash: hash, tokenHash, expiresAt: row.expires_at,
  });
  return matchesSecret(hex(hash), [hex(row.action_hash)]) && matchesSecret(hex(binding), [hex(row.binding)]);
}

function requirePending(row: OpenRow): void {
  if (row.status !== "pending") {
    throw new ApiError(409, "confirmation_not_pending", `This link is ${row.status}.`, { status: row.status });
  }
}

/** The person, through their grant's client, limited to one scope: the operation decides the rest. */
function personPrincipal(row: { user_id: string; client_id: string; grant_id: string }, scope: string): Extract<Principal, { kind: "oauth" }> {
  return { kind: "oauth", userId: row.user_id, clientId: row.client_id, grantId: row.grant_id, scopes: [scope] };
}

/** An operation's context as the person of `row`, limited to `scope`. */
const personContext = (context: OperationContext, row: OpenRow, scope: string): OperationContext =>
  contextFor({ db: context.database, config: context.config }, personPrincipal(row, scope), context.requestId);

/** What an approval ends with: the operation's status and answer, or its error's code and message. */
interface ApprovalAnswer {
  status: number;
  body: unknown;
}

async function approvalAnswer(run: Promise<Answer>): Promise<ApprovalAnswer> {
  try {
    const answer = await run;
    return { status: answer.status, body: answer.body instanceof JsonText ? JSON.parse(answer.body.text) : (answer.body ?? null) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, body: { code: error.code, message: error.message, details: error.details } };
  }
}

/** Runs `operation` as the person with `input` validated by `schema`, exactly as its REST route validates it. */
function runAs<I>(context: OperationContext, row: OpenRow, scope: string, operation: Operation<I>, schema: { safeParse(value: unknown): { success: true; data: I } | { success: false; error: { issues: readonly { message: string }[] } } }, value: unknown): Promise<ApprovalAnswer> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return approvalAnswer(Promise.reject(validationError(parsed.error.issues)));
  return approvalAnswer(runOperation(operation, personContext(context, row, scope), parsed.data));
}

/** The chain's sponsorship vault, checksummed, or 400 sponsorship_vault_not_configured: REST's deposits/record rule. */
function vaultOf(config: Config, chainId: number): string {
  return getAddress(sponsorshipVaultOf(config, chainId));
}

/** What the page shows beside the action: the sponsor's settings, or its balance for a deposit. */
async function currentState(context: OperationContext, row: OpenRow, kind: ConfirmationKind): Promise<Record<string, unknown> | undefined> {
  const answer = await approvalAnswer(sponsorState(personContext(context, row, "sponsorship:read"), personPrincipal(row, "sponsorship:read"), kind, row.action));
  return answer.status === 200 ? answer.body as Record<string, unknown> : undefined;
}

/** The link as the page shows it: its status, what it does, and the sponsor's state beside it. */
export const viewConfirmation = operation({
  name: "confirmations.view",
  ownTransactions: true,
  async run(context, request: LinkRequest) {
    const { row, kind, person } = await openLink(context, request);
    const current = kind !== "wallet_link" && row.status === "pending" ? await currentState(context, row, kind) : undefined;
    return { status: 200, headers: NO_STORE, body: {
      ...statusBody(row),
      title: KINDS[kind].title,
      clientName: row.client_name,
      email: person.email,
      rows: displayRows(kind, row.action, current),
      signer: wantedSigner(kind, row.action),
      approval: kind === "sponsored_deposit" ? "transaction" : "signature",
    } };
  },
});

function jsonObject(body: unknown): Record<string, unknown> {
  if (body !== null && typeof body === "object" && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new ApiError(400, "invalid_json", "The body must be a JSON object.");
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function wantedSigner(kind: ConfirmationKind, action: Record<string, unknown>): string | null {
  return kind === "wallet_link" ? (action.address as string | null) : String(action.walletAddress);
}

/** The message the wallet signs to approve: for a wallet link with a fresh REST nonce, for settings the fixed text. */
export const prepareApproval = operation({
  name: "confirmations.prepare",
  ownTransactions: true,
  async run(context, request: LinkRequestWithBody): Promise<Answer> {
    const { config } = context;
    const { row, kind } = await openLink(context, request);
    requirePending(row);
    const body = jsonObject(request.body);
    if (typeof body.address !== "string" || !ADDRESS.test(body.address)) throw new ApiError(400, "validation_failed", "address must be the wallet's 0x address.");
    const address = getAddress(body.address);
    const wanted = wantedSigner(kind, row.action);
    if (wanted && getAddress(wanted) !== address) {
      throw new ApiError(400, "wallet_mismatch", `Sign with the wallet ${getAddress(wanted)}; your wallet is ${address}.`, { expected: getAddress(wanted) });
    }
    if (kind === "sponsorship_settings") {
      return { status: 200, headers: NO_STORE, body: { message: settingsMessage(config, settingsFields(row)) } };
    }
    if (kind === "sponsored_deposit") {
      const vault = vaultOf(config, Number(row.action.chainId));
      if (vault !== row.action.vaultAddress) throw new ApiError(409, "vault_changed", "The chain's sponsorship vault changed since this link was made; ask for a new one.");
      const transaction = { from: address, to: vault, value: `0x${BigInt(String(row.action.amountWei)).toString(16)}`, chainId: `0x${Number(row.action.chainId).toString(16)}` };
      return { status: 200, headers: NO_STORE, body: { transaction } };
    }
    const { body: nonce } = await runOperation(createSiweNonce, personContext(context, row, "wallet:link"), {});
    const message = walletLinkMessage(config, {
      id: row.id, address, chainId: Number(row.action.chainId), nonce: (nonce as { nonce: string }).nonce, now: new Date(),
    });
    return { status: 200, headers: NO_STORE, body: { message } };
  },
});

const settingsFields = (row: OpenRow) => ({
  id: row.id, walletAddress: getAddress(String(row.action.walletAddress)), chainId: Number(row.action.chainId),
  actionHash: row.action_hash, createdAt: row.created_at, expiresAt: row.expires_at,
});

/** Checks the signed message before the link is used up, so a wrong wallet or text costs nothing. */
async function checkSignedMessage(config: Config, opened: Opened, message: string, signature: `0x${string}`): Promise<void> {
  const { row, kind } = opened;
  let signer: `0x${string}`;
  if (kind === "sponsorship_settings") {
    if (message !== settingsMessage(config, settingsFields(row))) throw new ApiError(400, "message_mismatch", "The signed text is not this link's approval message.");
    signer = getAddress(String(row.action.walletAddress));
  } else {
    const claims = checkSiweMessage(message, config.SIWE_DOMAINS, new Date());
    if (claims.chainId !== String(row.action.chainId) || !message.includes(`\n${walletLinkStatement(row.id)}\n`)) {
      throw new ApiError(400, "message_mismatch", "The signed message is not this link's wallet-link message.");
    }
    signer = getAddress(claims.address);
    const wanted = wantedSigner(kind, row.action);
    if (wanted && getAddress(wanted) !== signer) throw new ApiError(400, "wallet_mismatch", `Sign with the wallet ${getAddress(wanted)}.`);
  }
  const valid = await verifyMessage({ address: signer, message, signature }).catch(() => false);
  if (!valid) throw new ApiError(400, "signature_invalid", "The signature was not made by the expected wallet over this message.");
}

/** Approves the link with the wallet's signature (or, for a deposit, its transaction): the action runs once. */
export const approveConfirmation = operation({
  name: "confirmations.approve",
  ownTransactions: true,
  async run(context, request: LinkRequestWithBody) {
    const started = performance.now();
    const opened = await openLink(context, request);
    const { row, kind, tokenHash } = opened;
    requirePending(row);
    const body = jsonObject(request.body);
    if (kind === "sponsored_deposit") {
      // The transaction is the approval: the wallet sent it from the sponsor to the vault; REST verifies it on-chain.
      if (typeof body.txHash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(body.txHash)) throw new ApiError(400, "validation_failed", "Send the deposit's txHash.");
    } else if (typeof body.message !== "string" || body.message.length > 4096 || typeof body.signature !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(body.signature)) {
      throw new ApiError(400, "validation_failed", "Send the signed message and its 65-byte signature.");
    } else {
      await checkSignedMessage(context.config, opened, body.message, body.signature as `0x${string}`);
    }
    const { db } = context;
    // Single use: one approval claims the link (pending -> approving under its row lock) for a lease.
    const [claimed] = await db.statement((tx) => tx<{ id: string; kind: string; action: unknown }[]>`
      select * from mcp_confirmations.begin_approval(${row.id}, ${tokenHash})`);
    let answer: ApprovalAnswer;
    try {
      answer = await runApproved(context, opened, claimed!, body);
    } catch (error) {
      // The claim is never left behind: an unexpected failure ends the link failed (its status says so).
      console.error(`[${context.requestId}] confirmation ${row.id} failed:`, error instanceof Error ? error.message : error);
      answer = { status: 500, body: { code: "internal_error", message: "The service failed to run the approved action." } };
    }
    const ok = answer.status >= 200 && answer.status < 300;
    const sent = kind === "sponsored_deposit" ? { txHash: body.txHash } : {};
    const error = ok ? null : pickError(answer.body);
    const outcome = error ? { error, httpStatus: answer.status, ...sent } : { result: answer.body, ...sent };
    const [finish] = await db.statement((tx) => tx<{ finished: boolean }[]>`
      select mcp_confirmations.finish_approval(${row.id}, ${tokenHash}, ${ok ? "approved" : "failed"}, ${tx.json(outcome as never)}::jsonb) as finished`);
    // Not finished: the claim outlived its lease, so the link already reads failed (approval_interrupted)
    // and stays so. The late result is not stored there; the person is told it here, and the audit keeps it.
    const late = finish?.finished ? null : {
      code: "approval_interrupted",
      message: "This approval took too long: its link was given up as interrupted before the result arrived, and stays failed. " +
        `The action's own answer came later: ${error ? `${error.code}: ${error.message}` : "it was done"}.`,
    };
    const failure = late ?? error;
    await auditDecision(context.database, personScope(request.person.userId), decisionRecord(context, opened, started, "approve", {
      outcome: failure ? "error" : "ok", errorCode: failure?.code ?? null, httpStatus: answer.status, scopes: [KINDS[kind].scope],
    }));
    const answered = late ? { error: late, httpStatus: answer.status, ...sent } : outcome;
    return { status: 200, headers: NO_STORE, body: { confirmationId: row.id, status: failure ? "failed" : "approved", outcome: answered } };
  },
});

/** The audit record of the person's decision on the link they opened (the action is its arguments). */
function decisionRecord(context: OperationContext, { row, tokenHash }: Opened, started: number, decision: DecisionRecord["decision"],
    result: Pick<DecisionRecord, "outcome" | "errorCode" | "httpStatus" | "scopes">): DecisionRecord {
  return {
    confirmationId: row.id, tokenHash, decision, arguments: row.action, ...result,
    durationMs: performance.now() - started, requestId: context.requestId,
  };
}

/** Runs the claimed action through its operation as the person (refused when the claimed row differs from the one shown). */
async function runApproved(context: OperationContext, { row, kind }: Opened, claimed: { kind: string; action: unknown },
    body: Record<string, unknown>): Promise<ApprovalAnswer> {
  if (hex(actionHash(claimed.kind, claimed.action)) !== hex(row.action_hash)) {
    return { status: 409, body: { code: "confirmation_tampered", message: "The stored action changed while it was being approved." } };
  }
  if (kind === "wallet_link") {
    return runAs(context, row, "wallet:link", linkCryptoAddress, LinkCryptoAddressSchema,
      { message: body.message, signature: body.signature, connector: row.action.connector });
  }
  if (kind === "sponsored_deposit") return recordDeposit(context, row, body.txHash as string);
  return runAs(context, row, "sponsorship:write", saveSettings, SaveSettingsSchema, row.action);
}

/**
 * Records the deposit as deposits/record does (verified on-chain: from the sponsor, to the vault,
 * succeeded, confirmed), waiting up to ~15 s for its confirmations. Only a new record of exactly
 * the action's amount approves: a transaction recorded before, or another amount, fails.
 */
async function recordDeposit(context: OperationContext, row: OpenRow, txHash: string): Promise<ApprovalAnswer> {
  const call = () => runAs(context, row, "sponsorship:write", recordDepositOperation, RecordDepositSchema,
    { walletAddress: row.action.walletAddress, chainId: row.action.chainId, txHash });
  let answer = await call();
  for (let attempt = 0; answer.status === 202 && attempt < 30; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    answer = await call();
  }
  const failed = (code: string, message: string) => ({ status: 409, body: { code, message, txHash, answer: answer.body } });
  if (answer.status === 202) return failed("deposit_not_confirmed", "The transaction was not confirmed in time; record it later with deposits/record.");
  if (answer.status === 200) return failed("transaction_already_recorded", "This transaction was recorded before; it is not this link's deposit.");
  if (answer.status === 201 && (answer.body as { amountWei?: string }).amountWei !== row.action.amountWei) {
    return failed("amount_mismatch", `The transaction sent ${(answer.body as { amountWei?: string }).amountWei} wei, not ${row.action.amountWei}; it was recorded as a deposit all the same.`);
  }
  return answer;
}

function pickError(body: unknown): { code: string; message: string } {
  const b = body as { code?: unknown; message?: unknown } | null;
  return { code: typeof b?.code === "string" ? b.code : "request_failed", message: typeof b?.message === "string" ? b.message.slice(0, 500) : "" };
}

export const refuseConfirmation = operation({
  name: "confirmations.refuse",
  ownTransactions: true,
  async run(context, request: LinkRequest) {
    const started = performance.now();
    const opened = await openLink(context, request);
    const { row, tokenHash } = opened;
    await context.db.statement((tx) => tx`select mcp_confirmations.refuse(${row.id}, ${tokenHash})`);
    await auditDecision(context.database, personScope(request.person.userId), decisionRecord(context, opened, started, "refuse", { outcome: "ok", errorCode: null, httpStatus: null, scopes: [] }));
    return { status: 200, headers: NO_STORE, body: { confirmationId: row.id, status: "refused" } };
  },
});

