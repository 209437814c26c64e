// The public MCP endpoint's OAuth 2.1 authorization server (issue 10): metadata (RFC 9728, RFC
// 8414), authorize with PKCE S256 and resource indicators (RFC 8707), sign-in by e-mail code,
// consent, token (authorization_code, refresh_token with rotation), revocation (RFC 7009), dynamic
// registration (RFC 7591), the person's grants page and sign-out. The rules that must hold under
// concurrency (a code redeemed once, a refresh token rotated once, reuse revoking the grant) are
// decided in Postgres under row locks (migration 20261123001100_mcp_oauth.sql); this module validates
// input, signs tokens and renders pages.
import { randomInt } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import {
  type BrowserSession, browserSession, browserSessionCookie, fromForeignOrigin, issuerOf, keyedHash, MCP_SCOPES, mcpResourceOf, personScope, randomToken,
  s256, sha256, signAccessToken, signPageValue, verifyAccessToken, verifyPageValue,
} from "../../_shared/auth/mcp-oauth.ts";
import type { Config } from "../../_shared/config.ts";
import { matchesSecret } from "../../_shared/crypto/constant-time.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { translateDatabaseError } from "../../_shared/db/database.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { sendMail } from "../../_shared/mail/mailer.ts";
import { selectLiveGrants } from "../me-grants/handlers.ts";
import { ClientError, isValidRedirectUri, redirectUriMatches, resolveClient } from "./clients.ts";
import { codePage, consentPage, errorPage, grantsPage, hostOf, signedOutPage, signInPage, signOutPage } from "./pages.ts";

type C = Context<AppEnv>;

const REQUEST_SECONDS = 15 * 60;
const CODE_SECONDS = 60;
const SIGN_IN_WINDOW_SECONDS = 15 * 60;
const EMAIL = /^[^@\s]{1,64}@[^@\s]{1,255}$/;
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

// ------------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------------

/**
 * The caller's IP for the per-IP limits: the last X-Forwarded-For entry, the one the trusted front
 * (Supabase's edge, or a proxy) added. Without a front a client can choose it, which is why the
 * per-address limit and the per-code attempt cap hold on their own.
 */
function clientIp(c: C): string {
  const forwarded = c.req.header("x-forwarded-for");
  const last = forwarded?.split(",").map((s) => s.trim()).filter(Boolean).at(-1);
  return last?.slice(0, 64) ?? "unknown";
}

const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  // Not no-referrer: with it, browsers send `Origin: null` on the forms' POSTs, which the Origin check
  // refuses. same-origin still sends nothing to the client or any other site.
  "Referrer-Policy": "same-origin",
};

function html(c: C, body: string, status: 200 | 400 | 403 | 429 | 503 = 200, headers: Record<string, string> = {}): Response {
  return c.html(body, status, { ...PAGE_HEADERS, ...headers });
}

/** The pages' forms post only from the issuer's own origin (fromForeignOrigin). */
function refuseForeignOrigin(c: C): Response | undefined {
  if (!fromForeignOrigin(c)) return undefined;
  return html(c, errorPage("Request refused", "This form may only be sent from the sign-in page itself."), 403);
}

function csrfOf(config: Config, session: BrowserSession): string {
  return Buffer.from(keyedHash(config, "csrf", Buffer.from(session.hash).toString("hex"))).toString("base64url");
}

function csrfValid(config: Config, session: BrowserSession, presented: unknown): boolean {
  return typeof presented === "string" && matchesSecret(presented, [csrfOf(config, session)]);
}

async function form(c: C): Promise<Record<string, string | string[]>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type) && !/^multipart\/form-data\b/i.test(type)) return {};
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === "string") out[key] = value;
    else if (Array.isArray(value)) out[key] = value.filter((v): v is string => typeof v === "string");
  }
  return out;
}

/** The sign-in pages' session cookie and its attributes: set by sign-in, and cleared with the same ones by sign-out. */
function sessionCookie(config: Config) {
  const { name, secure } = browserSessionCookie(config);
  return { name, attributes: { path: "/", httpOnly: true, secure, sameSite: "Lax" } as const };
}

/** A sign-in code at rest: keyed with MCP_TOKEN_SECRET and bound to its address. */
const codeHash = (config: Config, email: string, code: string) => keyedHash(config, "sign-in-code", `${email}:${code}`);

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? undefined : value);

/** The pending authorization request, signed into the pages' forms (no table: it expires by itself). */
interface AuthorizationRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scopes: string[];
  resource: string;
}

async function readRequest(c: C, token: string | undefined): Promise<AuthorizationRequest | undefined> {
  if (!token || token.length > 4096) return undefined;
  try {
    return (await verifyPageValue(c.get("config"), "authorization-request", token)).request as AuthorizationRequest;
  } catch {
    return undefined;
  }
}

/** The redirect back to the client: `code` or `error`, with `state` and `iss` (RFC 9207). */
function redirectBack(c: C, request: { redirectUri: string; state: string | null }, params: Record<string, string>): Response {
  const url = new URL(request.redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  if (request.state !== null) url.searchParams.set("state", request.state);
  url.searchParams.set("iss", issuerOf(c.get("config")));
  return c.body(null, 303, { Location: url.toString(), "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" });
}

/** RFC 6749 5.2's body, with the service's own error fields beside it. */
function oauthError(c: C, status: 400 | 401 | 404 | 429 | 503, error: string, description: string, headers: Record<string, string> = {}): Response {
  return c.json({
    error,
    error_description: description,
    code: error,
    message: description,
    timestamp: new Date().toISOString(),
    request_id: c.get("requestId") ?? "unknown",
  }, status, { "Cache-Control": "no-store", ...headers });
}

/** Database errors as the API's errors (PT429 becomes a 429 ApiError with Retry-After). */
async function sql<T>(query: PromiseLike<T>): Promise<T> {
  try {
    return await query;
  } catch (error) {
    throw translateDatabaseError(error);
  }
}

function rateLimitedHeaders(error: ApiError): Record<string, string> {
  return error.headers ?? {};
}

// ------------------------------------------------------------------------------------------------
// Metadata
// ------------------------------------------------------------------------------------------------

function protectedResourceMetadata(config: Config) {
  return {
    resource: mcpResourceOf(config),
    authorization_servers: [issuerOf(config)],
    scopes_supported: MCP_SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "Events public MCP",
    resource_documentation: `${config.PUBLIC_API_ROOT}/api/v3/docs`,
  };
}

function authorizationServerMetadata(config: Config) {
  const issuer = issuerOf(config);
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    ...(config.MCP_DYNAMIC_REGISTRATION ? { registration_endpoint: `${issuer}/oauth/register` } : {}),
    scopes_supported: MCP_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${config.PUBLIC_API_ROOT}/api/v3/docs`,
  };
}

// ------------------------------------------------------------------------------------------------
// Authorize, sign-in, consent
// ------------------------------------------------------------------------------------------------

async function authorize(c: C): Promise<Response> {
  const config = c.get("config");
  const q = (name: string) => c.req.query(name);
  let client;
  try {
    client = await resolveClient(config, c.get("db"), q("client_id") ?? "");
  } catch (error) {
    if (error instanceof ClientError) return html(c, errorPage("Unknown application", `This sign-in link is not valid: ${error.message}.`), 400);
    throw error;
  }
  // Until the redirect URI is known to be the client's, errors are shown here, never redirected.
  const requested = q("redirect_uri") ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!requested || !redirectUriMatches(client.redirectUris, requested)) {
    return html(c, errorPage("Unknown redirect", "This sign-in link sends you to an address the application did not register."), 400);
  }
  const state = q("state") ?? null;
  const back = { redirectUri: requested, state: state && state.length <= 1024 ? state : null };
  if (q("response_type") !== "code") return redirectBack(c, back, { error: "unsupported_response_type", error_description: "only response_type=code" });
  const challenge = q("code_challenge");
  if (q("code_challenge_method") !== "S256" || !challenge || !CODE_CHALLENGE.test(challenge)) {
    return redirectBack(c, back, { error: "invalid_request", error_description: "PKCE with code_challenge_method=S256 is required" });
  }
  if (state !== null && state.length > 1024) return redirectBack(c, back, { error: "invalid_request", error_description: "state is too long" });
  const resource = q("resource") ?? mcpResourceOf(config);
  if (resource !== mcpResourceOf(config)) {
    return redirectBack(c, back, { error: "invalid_target", error_description: `the only resource is ${mcpResourceOf(config)}` });
  }
  const asked = (q("scope") ?? "").split(" ").filter(Boolean);
  const unknown = asked.filter((s) => !MCP_SCOPES.includes(s));
  if (unknown.length) return redirectBack(c, back, { error: "invalid_scope", error_description: `unknown scope ${unknown.join(" ")}` });
  const request: AuthorizationRequest = {
    clientId: client.clientId,
    clientName: client.clientName,
    redirectUri: requested,
    state,
    codeChallenge: challenge,
    scopes: asked.length ? [...new Set(asked)] : [...MCP_SCOPES],
    resource,
  };
  const token = await signPageValue(config, "authorization-request", { request }, REQUEST_SECONDS);
  const session = await browserSession(c);
  if (!session) return html(c, signInPage({ request: token, clientName: client.clientName }));
  return renderConsent(c, session, request, token);
}

function renderConsent(c: C, session: BrowserSession, request: AuthorizationRequest, token: string, status: 200 | 400 = 200): Response {
  return html(c, consentPage({
    request: token,
    csrf: csrfOf(c.get("config"), session),
    clientName: request.clientName,
    redirectHost: hostOf(request.redirectUri),
    scopes: request.scopes,
    email: session.email,
  }), status);
}

async function consent(c: C): Promise<Response> {
  const token = c.req.query("request");
  const request = await readRequest(c, token);
  if (!request) return html(c, errorPage("Link expired", "This sign-in link has expired. Start again from your assistant."), 400);
  const session = await browserSession(c);
  if (!session) return html(c, signInPage({ request: token, clientName: request.clientName }));
  return renderConsent(c, session, request, token!);
}

interface SignInForm {
  body: Record<string, string | string[]>;
  /** The pending authorization request, when the sign-in is part of one (else it leads to the grants page). */
  requestToken: string | undefined;
  request: AuthorizationRequest | undefined;
  email: string;
}

/** The sign-in forms' common part: same-origin only, the pending request still valid, the address. */
async function signInForm(c: C): Promise<Response | SignInForm> {
  const refused = refuseForeignOrigin(c);
  if (refused) return refused;
  const body = await form(c);
  const requestToken = one(body.request) || undefined;
  const request = requestToken ? await readRequest(c, requestToken) : undefined;
  if (requestToken && !request) return html(c, errorPage("Link expired", "This sign-in link has expired. Start again from your assistant."), 400);
  return { body, requestToken, request, email: (one(body.email) ?? "").trim().toLowerCase() };
}

async function requestSignInCode(c: C): Promise<Response> {
  const input = await signInForm(c);
  if (input instanceof Response) return input;
  const { requestToken, request, email } = input;
  const config = c.get("config");
  if (!EMAIL.test(email)) {
    return html(c, signInPage({ request: requestToken, email, error: "Enter a valid e-mail address.", clientName: request?.clientName }), 400);
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  let signInId: string;
  try {
    const [row] = await sql(c.get("db").sql<{ id: string }[]>`
      select mcp_oauth.issue_sign_in_code(${email}, ${clientIp(c)}, ${codeHash(config, email, code)},
        ${config.MCP_SIGN_IN_CODE_SECONDS}, ${config.MCP_SIGN_IN_CODES_PER_ADDRESS}, ${config.MCP_SIGN_IN_REQUESTS_PER_IP},
        ${SIGN_IN_WINDOW_SECONDS}) as id`);
    signInId = row!.id;
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      return html(c, signInPage({ request: requestToken, email, error: "Too many codes were requested. Wait a few minutes and try again.", clientName: request?.clientName }), 429, rateLimitedHeaders(error));
    }
    throw error;
  }
  const minutes = Math.round(config.MCP_SIGN_IN_CODE_SECONDS / 60);
  try {
    await sendMail(config, {
      to: email,
      subject: `Your sign-in code: ${code}`,
      text: `Your sign-in code is ${code}\n\nIt works once, for ${minutes} minutes.${request ? ` You are connecting "${request.clientName}" to your account.` : ""}\nIf you did not ask for it, ignore this mail.\n`,
    });
  } catch (error) {
    if (error instanceof ApiError) return html(c, errorPage("Mail not sent", error.message), 503);
    throw error;
  }
  return html(c, codePage({ request: requestToken, email, signInId }));
}

async function verifySignInCode(c: C): Promise<Response> {
  const input = await signInForm(c);
  if (input instanceof Response) return input;
  const { body, requestToken, request, email } = input;
  const config = c.get("config");
  const signInId = one(body.sign_in_id) ?? "";
  const code = (one(body.code) ?? "").trim();
  if (!EMAIL.test(email) || !/^[0-9a-f]{24}$/.test(signInId)) {
    return html(c, signInPage({ request: requestToken, error: "Start again: enter your e-mail address.", clientName: request?.clientName }), 400);
  }
  const sessionToken = randomToken("mcs_");
  let outcome: { error: string | null; user_id: string | null };
  try {
    outcome = (await sql(c.get("db").sql<{ error: string | null; user_id: string | null }[]>`
      select * from mcp_oauth.verify_sign_in_code(${signInId}, ${email}, ${codeHash(config, email, code)},
        ${clientIp(c)}, ${config.MCP_SIGN_IN_MAX_ATTEMPTS}, ${config.MCP_SIGN_IN_REQUESTS_PER_IP * 2}, ${SIGN_IN_WINDOW_SECONDS},
        ${sha256(sessionToken)}, ${config.MCP_BROWSER_SESSION_SECONDS})`))[0]!;
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      return html(c, codePage({ request: requestToken, email, signInId, error: "Too many tries. Wait a few minutes." }), 429, rateLimitedHeaders(error));
    }
    throw error;
  }
  if (outcome.error === "wrong_code") return html(c, codePage({ request: requestToken, email, signInId, error: "That code is not right." }), 400);
  if (outcome.error) {
    return html(c, signInPage({ request: requestToken, email, error: "That code has expired or was used up. Request a new one.", clientName: request?.clientName }), 400);
  }
  const cookie = sessionCookie(config);
  setCookie(c, cookie.name, sessionToken, { ...cookie.attributes, maxAge: config.MCP_BROWSER_SESSION_SECONDS });
  const next = requestToken ? `/oauth/consent?request=${encodeURIComponent(requestToken)}` : "/oauth/grants";
  return c.body(null, 303, { Location: next, "Cache-Control": "no-store" });
}

async function decide(c: C): Promise<Response> {
  const refused = refuseForeignOrigin(c);
  if (refused) return refused;
  const config = c.get("config");
  const body = await form(c);
  const token = one(body.request);
  const request = await readRequest(c, token);
  if (!request) return html(c, errorPage("Link expired", "This sign-in link has expired. Start again from your assistant."), 400);
  const session = await browserSession(c);
  if (!session) return html(c, signInPage({ request: token, clientName: request.clientName }));
  if (!csrfValid(config, session, one(body.csrf))) return html(c, errorPage("Request refused", "This form is out of date. Go back and try again."), 403);
  if (one(body.decision) !== "approve") return redirectBack(c, request, { error: "access_denied", error_description: "the person denied access" });
  const chosen = ([] as string[]).concat(body.scope ?? []).filter((s) => request.scopes.includes(s));
  if (chosen.length === 0) return renderConsent(c, session, request, token!, 400);
  const code = randomToken("mca_");
  try {
    await sql(c.get("db").sql`select mcp_oauth.approve(${session.hash}, ${request.clientId}, ${request.clientName}, ${request.redirectUri},
      ${[...new Set(chosen)]}::text[], ${request.resource}, ${sha256(code)}, ${request.codeChallenge}, ${CODE_SECONDS})`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return html(c, signInPage({ request: token, clientName: request.clientName }));
    throw error;
  }
  return redirectBack(c, request, { code });
}

// ------------------------------------------------------------------------------------------------
// Token, revocation, registration
// ------------------------------------------------------------------------------------------------

interface TokenRow {
  error: string | null;
  grant_id: string | null;
  user_id: string | null;
  scopes: string[] | null;
  resource: string | null;
}

const TOKEN_ERRORS: Record<string, string> = {
  invalid_grant: "the code or refresh token is invalid, expired, revoked, already used, or was issued to another client or redirect URI",
  invalid_target: "the resource differs from the one the grant was made for",
  invalid_scope: "the scope is not within the grant",
};

async function token(c: C): Promise<Response> {
  const config = c.get("config");
  if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header("content-type") ?? "")) {
    return oauthError(c, 400, "invalid_request", "send the token request as application/x-www-form-urlencoded");
  }
  const body = await form(c);
  const grantType = one(body.grant_type);
  const clientId = one(body.client_id);
  if (!clientId) return oauthError(c, 401, "invalid_client", "client_id is required (public clients)");
  const resource = one(body.resource) ?? null;
  if (resource !== null && resource !== mcpResourceOf(config)) {
    return oauthError(c, 400, "invalid_target", `the only resource is ${mcpResourceOf(config)}`);
  }
  const refreshToken = randomToken("mcr_");
  let row: TokenRow;
  if (grantType === "authorization_code") {
    const code = one(body.code);
    const redirectUri = one(body.redirect_uri);
    const verifier = one(body.code_verifier);
    if (!code || !redirectUri || !verifier) return oauthError(c, 400, "invalid_request", "code, redirect_uri and code_verifier are required");
    if (!CODE_VERIFIER.test(verifier)) return oauthError(c, 400, "invalid_grant", "the code_verifier is malformed");
    row = (await sql(c.get("db").sql<TokenRow[]>`
      select * from mcp_oauth.redeem_authorization_code(${sha256(code)}, ${clientId}, ${redirectUri}, ${s256(verifier)}, ${resource},
        ${sha256(refreshToken)}, ${config.MCP_REFRESH_TOKEN_SECONDS})`))[0]!;
  } else if (grantType === "refresh_token") {
    const presented = one(body.refresh_token);
    if (!presented) return oauthError(c, 400, "invalid_request", "refresh_token is required");
    const scope = one(body.scope);
    const scopes = scope === undefined ? null : scope.split(" ").filter(Boolean);
    row = (await sql(c.get("db").sql<TokenRow[]>`
      select * from mcp_oauth.rotate_refresh_token(${sha256(presented)}, ${clientId}, ${resource}, ${scopes}::text[],
        ${sha256(refreshToken)}, ${config.MCP_REFRESH_TOKEN_SECONDS})`))[0]!;
  } else {
    return oauthError(c, 400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
  }
  if (row.error) return oauthError(c, 400, row.error, TOKEN_ERRORS[row.error] ?? row.error);
  const access = await signAccessToken(config, {
    userId: row.user_id!, clientId, grantId: row.grant_id!, scopes: row.scopes!, resource: row.resource!,
  });
  return c.json({
    access_token: access.token,
    token_type: "Bearer",
    expires_in: access.expiresIn,
    refresh_token: refreshToken,
    scope: row.scopes!.join(" "),
  }, 200, { "Cache-Control": "no-store", Pragma: "no-cache" });
}

async function revoke(c: C): Promise<Response> {
  const config = c.get("config");
  const body = await form(c);
  const presented = one(body.token);
  const clientId = one(body.client_id);
  if (!presented) return oauthError(c, 400, "invalid_request", "token is required");
  if (!clientId) return oauthError(c, 401, "invalid_client", "client_id is required (public clients)");
  if (presented.startsWith("mcr_")) {
    await sql(c.get("db").sql`select mcp_oauth.revoke_refresh_token(${sha256(presented)}, ${clientId})`);
  } else {
    // An access token: only one this service signed is worth listing (RFC 7009: anything else is a no-op).
    const verified = await verifyAccessToken(config, presented).catch(() => undefined);
    if (verified) {
      await sql(c.get("db").sql`select mcp_oauth.revoke_access_token(${verified.jti}::uuid, ${verified.grantId}, ${clientId},
        ${new Date(verified.expiresAt * 1000)})`);
    }
  }
  return c.body(null, 200, { "Cache-Control": "no-store" });
}

async function register(c: C): Promise<Response> {
  const config = c.get("config");
  if (!config.MCP_DYNAMIC_REGISTRATION) return oauthError(c, 404, "registration_not_supported", "dynamic client registration is off; use a client ID metadata document");
  let body: Record<string, unknown>;
  try {
    body = await c.req.json();
  } catch {
    return oauthError(c, 400, "invalid_client_metadata", "the body must be a JSON object");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return oauthError(c, 400, "invalid_client_metadata", "the body must be a JSON object");
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length < 1 || uris.length > 20 || !uris.every((u) => typeof u === "string" && isValidRedirectUri(u))) {
    return oauthError(c, 400, "invalid_redirect_uri", "1 to 20 redirect_uris: https, http on a loopback host, or a private-use scheme; no fragments");
  }
  const method = body.token_endpoint_auth_method ?? "none";
  if (method !== "none") return oauthError(c, 400, "invalid_client_metadata", "only public clients: token_endpoint_auth_method must be none");
  const grantTypes = body.grant_types ?? ["authorization_code", "refresh_token"];
  if (!Array.isArray(grantTypes) || !grantTypes.every((g) => g === "authorization_code" || g === "refresh_token")) {
    return oauthError(c, 400, "invalid_client_metadata", "grant_types may be authorization_code and refresh_token");
  }
  const responseTypes = body.response_types ?? ["code"];
  if (!Array.isArray(responseTypes) || !responseTypes.every((r) => r === "code")) {
    return oauthError(c, 400, "invalid_client_metadata", "response_types may only be code");
  }
  const name = typeof body.client_name === "string" && body.client_name.trim() ? body.client_name.trim().slice(0, 200) : hostOf(uris[0] as string);
  const clientUri = typeof body.client_uri === "string" && /^https:\/\//.test(body.client_uri) && body.client_uri.length <= 2048 ? body.client_uri : null;
  const clientId = randomToken("mcc_").slice(0, 36);
  try {
    await sql(c.get("db").sql`select mcp_oauth.register_client(${clientId}, ${name}, ${clientUri}, ${uris as string[]}::text[],
      ${clientIp(c)}, ${config.MCP_REGISTRATIONS_PER_IP}, 3600)`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) return oauthError(c, 429, "rate_limited", error.message, rateLimitedHeaders(error));
    throw error;
  }
  return c.json({
    client_id: clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_name: name,
    ...(clientUri ? { client_uri: clientUri } : {}),
    redirect_uris: uris,
    grant_types: grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  }, 201, { "Cache-Control": "no-store" });
}

// ------------------------------------------------------------------------------------------------
// The person's grants page
// ------------------------------------------------------------------------------------------------

async function grants(c: C): Promise<Response> {
  const session = await browserSession(c);
  if (!session) return html(c, signInPage({}));
  // The person's live grants, read as that person under RLS: what GET /api/v3/me/mcp-grants lists.
  const rows = await c.get("db").statement(personScope(session.userId), selectLiveGrants);
  return html(c, grantsPage({ grants: rows, csrf: csrfOf(c.get("config"), session), email: session.email, notice: c.req.query("revoked") ? "Access revoked." : undefined }));
}

async function revokeGrantFromPage(c: C): Promise<Response> {
  const refused = refuseForeignOrigin(c);
  if (refused) return refused;
  const session = await browserSession(c);
  if (!session) return html(c, signInPage({}));
  const body = await form(c);
  if (!csrfValid(c.get("config"), session, one(body.csrf))) return html(c, errorPage("Request refused", "This form is out of date. Go back and try again."), 403);
  await c.get("db").statement(personScope(session.userId), (tx) =>
    tx`select mcp_oauth.revoke_my_grant(${one(body.grant_id) ?? ""})`);
  return c.body(null, 303, { Location: "/oauth/grants?revoked=1", "Cache-Control": "no-store" });
}

// ------------------------------------------------------------------------------------------------
// Sign-out
// ------------------------------------------------------------------------------------------------

/** The Sign out button alone, for pages that cannot render the session's CSRF token (the confirmation page). */
async function signOutForm(c: C): Promise<Response> {
  const session = await browserSession(c);
  if (!session) return html(c, signedOutPage({ again: "/oauth/grants", againLabel: "Sign in", wasSignedIn: false }));
  return html(c, signOutPage({ email: session.email, csrf: csrfOf(c.get("config"), session) }));
}

/**
 * Ends this browser's session: the row is deleted (mcp_oauth.end_browser_session), so the old cookie
 * no longer signs anyone in, and the cookie is cleared with the attributes it was set with. Same
 * protection as the other forms (the Origin check, then the session's CSRF token); a foreign Origin
 * gets the one error body. Grants are untouched: assistants keep their access until revoked.
 */
async function signOut(c: C): Promise<Response> {
  if (fromForeignOrigin(c)) throw new ApiError(403, "origin_not_allowed", "Sign-out is accepted only from this service's own pages.");
  const config = c.get("config");
  const body = await form(c);
  const session = await browserSession(c);
  if (session) {
    if (!csrfValid(config, session, one(body.csrf))) return html(c, errorPage("Request refused", "This form is out of date. Go back and try again."), 403);
    await sql(c.get("db").sql`select mcp_oauth.end_browser_session(${session.hash})`);
  }
  const cookie = sessionCookie(config);
  deleteCookie(c, cookie.name, cookie.attributes);
  // Signed out from the consent page: signing in again continues that authorization.
  const requestToken = one(body.request);
  const request = await readRequest(c, requestToken);
  return html(c, signedOutPage({
    again: request ? `/oauth/consent?request=${encodeURIComponent(requestToken!)}` : "/oauth/grants",
    againLabel: request ? `Sign in again to connect ${request.clientName}` : "Sign in again",
    wasSignedIn: session !== undefined,
  }));
}

// ------------------------------------------------------------------------------------------------
// Routes (not in the OpenAPI document: OAuth clients discover them through the metadata)
// ------------------------------------------------------------------------------------------------

export const oauthRouter = createRouter();

oauthRouter.get("/.well-known/oauth-protected-resource/mcp", (c) => c.json(protectedResourceMetadata(c.get("config"))));
oauthRouter.get("/.well-known/oauth-protected-resource", (c) => c.json(protectedResourceMetadata(c.get("config"))));
oauthRouter.get("/.well-known/oauth-authorization-server", (c) => c.json(authorizationServerMetadata(c.get("config"))));
// RFC 8414 3.1: an issuer with a path has its metadata at /.well-known/oauth-authorization-server/<path>.
oauthRouter.get("/.well-known/oauth-authorization-server/*", (c) => {
  const config = c.get("config");
  const path = new URL(issuerOf(config)).pathname.replace(/\/+$/, "");
  if (path === "" || c.req.path !== `/.well-known/oauth-authorization-server${path}`) {
    throw new ApiError(404, "not_found", `No route for GET ${c.req.path}.`);
  }
  return c.json(authorizationServerMetadata(config));
});
oauthRouter.get("/oauth/authorize", authorize);
oauthRouter.get("/oauth/consent", consent);
oauthRouter.post("/oauth/sign-in", requestSignInCode);
oauthRouter.post("/oauth/sign-in/verify", verifySignInCode);
oauthRouter.post("/oauth/consent", decide);
oauthRouter.post("/oauth/token", token);
oauthRouter.post("/oauth/revoke", revoke);
oauthRouter.post("/oauth/register", register);
oauthRouter.get("/oauth/grants", grants);
oauthRouter.post("/oauth/grants/revoke", revokeGrantFromPage);
oauthRouter.get("/oauth/sign-out", signOutForm);
oauthRouter.post("/oauth/sign-out", signOut);

