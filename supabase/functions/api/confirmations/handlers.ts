// Confirmation links (issue 10, item 4). A public-MCP tool that would link a wallet or change
// sponsorship settings creates a link instead; the person opens it, signed in with the sign-in
// pages' session, sees exactly what will happen and approves it with their wallet, or refuses.
//
// Two groups of routes, none in the OpenAPI document:
// - for the public MCP tools, called in-process as the OAuth principal (callRoute): create a link
//   (POST /mcp/confirmations) and poll it (GET /mcp/confirmations/{id}). Any other caller is
//   answered 404, as if they did not exist;
// - for the link's page: GET /confirm/{id} (the page; the token is in the URL's fragment, which a
//   browser never sends, so it stays out of logs and Referer headers), and the page's POSTs
//   view, prepare, approve and refuse, each with the token in X-Confirmation-Token and the
//   session cookie. The approved action runs through its REST route as the person (their OAuth
//   grant's client, limited to the scope of the action), so REST's validation, SQL and RLS decide.
//   Each decision (an approval that claimed the link, a refusal) is audited in mcp.tool_calls
//   (auditDecision) before the page gets its answer.
import type { Context } from "hono";
import { getAddress, verifyMessage } from "viem";
import { browserSession, fromForeignOrigin, personScope, randomToken, sha256 } from "../../_shared/auth/mcp-oauth.ts";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { type Principal, scopeOf } from "../../_shared/auth/principal.ts";
import type { Config } from "../../_shared/config.ts";
import { matchesSecret } from "../../_shared/crypto/constant-time.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { auditDecision, type DecisionRecord } from "../../_shared/mcp/audit.ts";
import { callRoute, type InProcessApp, type RouteAnswer } from "../../_shared/mcp/call-route.ts";
import { checkSiweMessage } from "../../_shared/identity/siwe.ts";
import { sponsorshipVaultOf } from "../../_shared/sponsorship/operations.ts";
import {
  actionHash, bindingOf, CONFIRMATION_SECONDS, type ConfirmationKind, displayRows, hex, isKind, KINDS, settingsMessage,
  walletLinkMessage, walletLinkStatement,
} from "./actions.ts";
import { confirmationPage, PAGE_HEADERS } from "./page.ts";

type C = Context<AppEnv>;

const ID = /^[0-9a-f]{24}$/;
const TOKEN = /^mcf_[A-Za-z0-9_-]{43}$/;
const TOKEN_HEADER = "x-confirmation-token";

const notFound = () => new ApiError(404, "not_found", "No such confirmation link.");

// ------------------------------------------------------------------------------------------------
// For the public MCP tools (in-process, as the OAuth principal)
// ------------------------------------------------------------------------------------------------

interface StatusRow {
  id: string;
  kind: string;
  action: Record<string, unknown>;
  action_hash: Uint8Array;
  status: string;
  outcome: unknown;
  expires_at: Date;
  created_at: Date;
  decided_at: Date | null;
}

function statusBody(row: StatusRow) {
  return {
    confirmationId: row.id,
    kind: row.kind,
    status: row.status,
    action: row.action,
    actionHash: hex(row.action_hash),
    outcome: row.outcome ?? null,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    decidedAt: row.decided_at?.toISOString() ?? null,
  };
}

/** Only the public MCP endpoint's in-process calls carry an OAuth principal; everyone else sees no route. */
function oauthPrincipal(c: C): Extract<Principal, { kind: "oauth" }> {
  const principal = c.get("principal");
  if (principal.kind !== "oauth") throw new ApiError(404, "not_found", `No route for ${c.req.method} ${c.req.path}.`);
  return principal;
}

async function createConfirmation(c: C, app: InProcessApp): Promise<Response> {
  const principal = oauthPrincipal(c);
  const config = c.get("config");
  let body: { kind?: unknown; action?: unknown };
  try {
    body = await c.req.json();
  } catch {
    throw new ApiError(400, "invalid_json", "The body must be JSON.");
  }
  const kind = typeof body?.kind === "string" && isKind(body.kind) ? body.kind : undefined;
  if (!kind) throw new ApiError(400, "validation_failed", `kind must be one of ${Object.keys(KINDS).join(", ")}.`);
  const { scope, schema } = KINDS[kind];
  if (!principal.scopes.includes(scope)) throw new ApiError(403, "insufficient_scope", `This action needs the scope ${scope}.`, { requiredScopes: [scope] });
  const parsed = (schema as typeof KINDS[ConfirmationKind]["schema"]).safeParse(body.action);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message }));
    throw new ApiError(400, "validation_failed", `The action is invalid: ${issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`).join("; ")}`, { issues, issueCount: parsed.error.issues.length });
  }
  const action = JSON.parse(JSON.stringify(parsed.data)) as Record<string, unknown>;
  if (kind === "sponsored_deposit") {
    // Where the money goes is part of the action (and of its hash): the chain's vault now.
    action.vaultAddress = vaultOf(config, Number(action.chainId));
  }
  if (kind !== "wallet_link") {
    // Owner only: the REST read answers 404 sponsor_not_found for a wallet that is not the person's.
    const current = await sponsorState(c, app, { ...principal, scopes: ["sponsorship:read"] }, kind, action);
    if (current.status !== 200) return c.json(current.body as object, current.status as 404);
  }
  const token = randomToken("mcf_");
  const tokenHash = sha256(token);
  const hash = actionHash(kind, action);
  const expiresAt = new Date(Date.now() + CONFIRMATION_SECONDS * 1000);
  const binding = bindingOf(config, { userId: principal.userId, clientId: principal.clientId, grantId: principal.grantId, kind, actionHash: hash, tokenHash, expiresAt });
  const [row] = await c.get("db").statement(scopeOf(principal), (tx) => tx<{ id: string; created_at: Date; expires_at: Date }[]>`
    select * from mcp_confirmations.create_confirmation(${principal.clientId}, ${principal.grantId}, ${kind}, ${tx.json(action as never)}::jsonb,
      ${hash}, ${binding}, ${tokenHash}, ${expiresAt})`);
  const url = `${config.PUBLIC_API_ROOT}/confirm/${row!.id}#token=${token}`;
  return c.json({
    ...statusBody({ id: row!.id, kind, action, action_hash: hash, status: "pending", outcome: null, expires_at: row!.expires_at, created_at: row!.created_at, decided_at: null }),
    url,
    instructions: `Give the person this link. They open it in a browser, see "${KINDS[kind].title}" with every detail, and approve it with ` +
      `their wallet or refuse. Nothing happens until then; poll get_confirmation_status. The link works once and expires at ${row!.expires_at.toISOString()}.`,
  }, 201, { "Cache-Control": "no-store" });
}

async function confirmationStatus(c: C): Promise<Response> {
  const principal = oauthPrincipal(c);
  const id = c.req.param("id") ?? "";
  if (!ID.test(id)) throw notFound();
  const [row] = await c.get("db").statement(scopeOf(principal), (tx) => tx<StatusRow[]>`select * from mcp_confirmations.confirmation_status(${id})`);
  if (!row) throw notFound();
  return c.json(statusBody(row), 200, { "Cache-Control": "no-store" });
}

// ------------------------------------------------------------------------------------------------
// For the link's page (the signed-in person, holding the token)
// ------------------------------------------------------------------------------------------------

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

/** The link as its page may use it: same origin, signed in, the token's row, the person's own, untampered. */
async function openLink(c: C): Promise<Opened> {
  const config = c.get("config");
  if (fromForeignOrigin(c)) {
    throw new ApiError(403, "origin_not_allowed", "Confirmation links are answered only to their own page.");
  }
  const id = c.req.param("id") ?? "";
  const token = c.req.header(TOKEN_HEADER) ?? "";
  if (!ID.test(id) || !TOKEN.test(token)) throw notFound();
  const person = await browserSession(c);
  if (!person) throw new ApiError(401, "sign_in_required", "Sign in to see and approve this link.");
  const tokenHash = sha256(token);
  const [row] = await c.get("db").statement(personScope(person.userId), (tx) => tx<OpenRow[]>`
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

/** The person, through their grant's client, limited to one scope: REST decides the rest. */
function personPrincipal(row: { user_id: string; client_id: string; grant_id: string }, scope: string): Principal {
  return { kind: "oauth", userId: row.user_id, clientId: row.client_id, grantId: row.grant_id, scopes: [scope] };
}

/** The sponsor wallet of `action` through REST as `principal`: its balance for a deposit, else its settings. */
function sponsorState(c: C, app: InProcessApp, principal: Principal, kind: string, action: Record<string, unknown>): Promise<RouteAnswer> {
  return callRoute(app, { principal }, {
    method: "GET", path: `/api/v3/sponsorship/${kind === "sponsored_deposit" ? "balance" : "settings"}`,
    query: { walletAddress: String(action.walletAddress), chainId: Number(action.chainId) },
  }, { requestId: c.get("requestId") });
}

/** The chain's sponsorship vault, checksummed, or 400 sponsorship_vault_not_configured: REST's deposits/record rule. */
function vaultOf(config: Config, chainId: number): string {
  return getAddress(sponsorshipVaultOf(config, chainId));
}

/** What the page shows beside the action: the sponsor's settings, or its balance for a deposit. */
async function currentState(c: C, app: InProcessApp, row: OpenRow): Promise<Record<string, unknown> | undefined> {
  const answer = await sponsorState(c, app, personPrincipal(row, "sponsorship:read"), row.kind, row.action);
  return answer.status === 200 ? answer.body as Record<string, unknown> : undefined;
}

async function view(c: C, app: InProcessApp): Promise<Response> {
  const { row, kind, person } = await openLink(c);
  const current = kind !== "wallet_link" && row.status === "pending" ? await currentState(c, app, row) : undefined;
  return c.json({
    ...statusBody(row),
    title: KINDS[kind].title,
    clientName: row.client_name,
    email: person.email,
    rows: displayRows(kind, row.action, current),
    signer: wantedSigner(kind, row.action),
    approval: kind === "sponsored_deposit" ? "transaction" : "signature",
  }, 200, { "Cache-Control": "no-store" });
}

async function jsonBody(c: C): Promise<Record<string, unknown>> {
  try {
    const body = await c.req.json();
    if (body !== null && typeof body === "object" && !Array.isArray(body)) return body;
  } catch { /* answered below */ }
  throw new ApiError(400, "invalid_json", "The body must be a JSON object.");
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function wantedSigner(kind: ConfirmationKind, action: Record<string, unknown>): string | null {
  return kind === "wallet_link" ? (action.address as string | null) : String(action.walletAddress);
}

/** The message the wallet signs to approve: for a wallet link with a fresh REST nonce, for settings the fixed text. */
async function prepare(c: C, app: InProcessApp): Promise<Response> {
  const { row, kind } = await openLink(c);
  requirePending(row);
  const body = await jsonBody(c);
  if (typeof body.address !== "string" || !ADDRESS.test(body.address)) throw new ApiError(400, "validation_failed", "address must be the wallet's 0x address.");
  const address = getAddress(body.address);
  const wanted = wantedSigner(kind, row.action);
  if (wanted && getAddress(wanted) !== address) {
    throw new ApiError(400, "wallet_mismatch", `Sign with the wallet ${getAddress(wanted)}; your wallet is ${address}.`, { expected: getAddress(wanted) });
  }
  if (kind === "sponsorship_settings") {
    return c.json({ message: settingsMessage(c.get("config"), settingsFields(row)) }, 200, { "Cache-Control": "no-store" });
  }
  if (kind === "sponsored_deposit") {
    const vault = vaultOf(c.get("config"), Number(row.action.chainId));
    if (vault !== row.action.vaultAddress) throw new ApiError(409, "vault_changed", "The chain's sponsorship vault changed since this link was made; ask for a new one.");
    const transaction = { from: address, to: vault, value: `0x${BigInt(String(row.action.amountWei)).toString(16)}`, chainId: `0x${Number(row.action.chainId).toString(16)}` };
    return c.json({ transaction }, 200, { "Cache-Control": "no-store" });
  }
  const nonce = await callRoute(app, { principal: personPrincipal(row, "wallet:link") }, { method: "POST", path: "/api/v3/me/crypto-addresses/nonce" },
    { requestId: c.get("requestId") });
  if (nonce.status !== 201) return c.json(nonce.body as object, nonce.status as 429);
  const message = walletLinkMessage(c.get("config"), {
    id: row.id, address, chainId: Number(row.action.chainId), nonce: (nonce.body as { nonce: string }).nonce, now: new Date(),
  });
  return c.json({ message }, 200, { "Cache-Control": "no-store" });
}

const settingsFields = (row: OpenRow) => ({
  id: row.id, walletAddress: getAddress(String(row.action.walletAddress)), chainId: Number(row.action.chainId),
  actionHash: row.action_hash, createdAt: row.created_at, expiresAt: row.expires_at,
});

/** Checks the signed message before the link is used up, so a wrong wallet or text costs nothing. */
async function checkSignedMessage(c: C, opened: Opened, message: string, signature: `0x${string}`): Promise<void> {
  const { row, kind } = opened;
  const config = c.get("config");
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

async function approve(c: C, app: InProcessApp): Promise<Response> {
  const started = performance.now();
  const opened = await openLink(c);
  const { row, kind, tokenHash, person } = opened;
  requirePending(row);
  const body = await jsonBody(c);
  if (kind === "sponsored_deposit") {
    // The transaction is the approval: the wallet sent it from the sponsor to the vault; REST verifies it on-chain.
    if (typeof body.txHash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(body.txHash)) throw new ApiError(400, "validation_failed", "Send the deposit's txHash.");
  } else if (typeof body.message !== "string" || body.message.length > 4096 || typeof body.signature !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(body.signature)) {
    throw new ApiError(400, "validation_failed", "Send the signed message and its 65-byte signature.");
  } else {
    await checkSignedMessage(c, opened, body.message, body.signature as `0x${string}`);
  }
  const db = c.get("db");
  const scope = personScope(person.userId);
  // Single use: one approval claims the link (pending -> approving under its row lock) for a lease.
  const [claimed] = await db.statement(scope, (tx) => tx<{ id: string; kind: string; action: unknown }[]>`
    select * from mcp_confirmations.begin_approval(${row.id}, ${tokenHash})`);
  let answer: ApprovalAnswer;
  try {
    answer = await runApproved(c, app, opened, claimed!, body);
  } catch (error) {
    // The claim is never left behind: an unexpected failure ends the link failed (its status says so).
    console.error(`[${c.get("requestId")}] confirmation ${row.id} failed:`, error instanceof Error ? error.message : error);
    answer = { status: 500, body: { code: "internal_error", message: "The service failed to run the approved action." } };
  }
  const ok = answer.status >= 200 && answer.status < 300;
  const sent = kind === "sponsored_deposit" ? { txHash: body.txHash } : {};
  const error = ok ? null : pickError(answer.body);
  const outcome = error ? { error, httpStatus: answer.status, ...sent } : { result: answer.body, ...sent };
  const [finish] = await db.statement(scope, (tx) => tx<{ finished: boolean }[]>`
    select mcp_confirmations.finish_approval(${row.id}, ${tokenHash}, ${ok ? "approved" : "failed"}, ${tx.json(outcome as never)}::jsonb) as finished`);
  // Not finished: the claim outlived its lease, so the link already reads failed (approval_interrupted)
  // and stays so. The late result is not stored there; the person is told it here, and the audit keeps it.
  const late = finish?.finished ? null : {
    code: "approval_interrupted",
    message: "This approval took too long: its link was given up as interrupted before the result arrived, and stays failed. " +
      `The action's own answer came later: ${error ? `${error.code}: ${error.message}` : "it was done"}.`,
  };
  const failure = late ?? error;
  await auditDecision(db, scope, decisionRecord(c, opened, started, "approve", {
    outcome: failure ? "error" : "ok", errorCode: failure?.code ?? null, httpStatus: answer.status, scopes: [KINDS[kind].scope],
  }));
  const answered = late ? { error: late, httpStatus: answer.status, ...sent } : outcome;
  return c.json({ confirmationId: row.id, status: failure ? "failed" : "approved", outcome: answered }, 200, { "Cache-Control": "no-store" });
}

/** The audit record of the person's decision on the link they opened (the action is its arguments). */
function decisionRecord(c: C, { row, tokenHash }: Opened, started: number, decision: DecisionRecord["decision"],
    result: Pick<DecisionRecord, "outcome" | "errorCode" | "httpStatus" | "scopes">): DecisionRecord {
  return {
    confirmationId: row.id, tokenHash, decision, arguments: row.action, ...result,
    durationMs: performance.now() - started, requestId: c.get("requestId"),
  };
}

/** What an approval ends with: the REST route's answer, or a refusal of the page's own. */
type ApprovalAnswer = Pick<RouteAnswer, "status" | "body">;

/** Runs the claimed action through its REST route as the person (refused when the claimed row differs from the one shown). */
async function runApproved(c: C, app: InProcessApp, { row, kind }: Opened, claimed: { kind: string; action: unknown },
    body: Record<string, unknown>): Promise<ApprovalAnswer> {
  if (hex(actionHash(claimed.kind, claimed.action)) !== hex(row.action_hash)) {
    return { status: 409, body: { code: "confirmation_tampered", message: "The stored action changed while it was being approved." } };
  }
  const requestId = c.get("requestId");
  if (kind === "wallet_link") {
    return callRoute(app, { principal: personPrincipal(row, "wallet:link") }, {
      method: "POST", path: "/api/v3/me/crypto-addresses", body: { message: body.message, signature: body.signature, connector: row.action.connector },
    }, { requestId });
  }
  if (kind === "sponsored_deposit") return recordDeposit(c, app, row, body.txHash as string);
  return callRoute(app, { principal: personPrincipal(row, "sponsorship:write") }, {
    method: "POST", path: "/api/v3/sponsorship/settings", body: row.action,
  }, { requestId });
}

/**
 * Records the deposit through REST (deposits/record verifies it on-chain: from the sponsor, to the
 * vault, succeeded, confirmed), waiting up to ~15 s for its confirmations. Only a new record of
 * exactly the action's amount approves: a transaction recorded before, or another amount, fails.
 */
async function recordDeposit(c: C, app: InProcessApp, row: OpenRow, txHash: string): Promise<ApprovalAnswer> {
  const call = () => callRoute(app, { principal: personPrincipal(row, "sponsorship:write") }, {
    method: "POST", path: "/api/v3/sponsorship/deposits/record",
    body: { walletAddress: row.action.walletAddress, chainId: row.action.chainId, txHash },
  }, { requestId: c.get("requestId") });
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

async function refuse(c: C): Promise<Response> {
  const started = performance.now();
  const opened = await openLink(c);
  const { row, tokenHash, person } = opened;
  const db = c.get("db");
  const scope = personScope(person.userId);
  await db.statement(scope, (tx) => tx`select mcp_confirmations.refuse(${row.id}, ${tokenHash})`);
  await auditDecision(db, scope, decisionRecord(c, opened, started, "refuse", { outcome: "ok", errorCode: null, httpStatus: null, scopes: [] }));
  return c.json({ confirmationId: row.id, status: "refused" }, 200, { "Cache-Control": "no-store" });
}

export function confirmationsRouter(app: InProcessApp) {
  const router = createRouter();
  router.post("/mcp/confirmations", requireApiKey, (c) => createConfirmation(c, app));
  router.get("/mcp/confirmations/:id", requireApiKey, confirmationStatus);
  router.get("/confirm/:id", (c) => c.html(confirmationPage(), 200, PAGE_HEADERS));
  router.post("/confirm/:id/view", (c) => view(c, app));
  router.post("/confirm/:id/prepare", (c) => prepare(c, app));
  router.post("/confirm/:id/approve", (c) => approve(c, app));
  router.post("/confirm/:id/refuse", refuse);
  return router;
}
