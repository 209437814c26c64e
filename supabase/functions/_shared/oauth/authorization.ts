// An authorization request (GET /oauth/authorize) and the consent that answers it: the client and
// its redirect URI, PKCE with S256 only, the one resource (RFC 8707) and known scopes. The pending
// request has no table: it is signed into the pages' forms and expires by itself. Consent records
// the grant and issues a one-time code (mcp_oauth.approve), redeemed at the token endpoint.
import { type BrowserSession, MCP_SCOPES, mcpResourceOf, randomToken, sha256, signPageValue, verifyPageValue } from "../auth/mcp-oauth.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { ClientError, type OAuthClient, redirectUriMatches, resolveClient } from "./clients.ts";

const REQUEST_SECONDS = 15 * 60;
const CODE_SECONDS = 60;
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const STATE_MAX_LENGTH = 1024;

/** The pending authorization request, signed into the pages' forms. */
export interface AuthorizationRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scopes: string[];
  resource: string;
}

/** Where the answer goes back to the client: its redirect URI, with `state` when it sent one. */
export interface RedirectTarget {
  redirectUri: string;
  state: string | null;
}

/** The authorize endpoint's query parameters, as sent. */
export interface AuthorizeParams {
  clientId?: string;
  redirectUri?: string;
  state?: string;
  responseType?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  resource?: string;
  scope?: string;
}

/**
 * What an authorization request comes to. Until the redirect URI is known to be the client's, a
 * refusal is shown to the person, never redirected (unknown_client, unknown_redirect); after that,
 * it goes back to the client (refused).
 */
export type AuthorizationCheck =
  | { outcome: "unknown_client"; reason: string }
  | { outcome: "unknown_redirect" }
  | { outcome: "refused"; back: RedirectTarget; error: string; description: string }
  | { outcome: "valid"; request: AuthorizationRequest };

export async function checkAuthorizationRequest(config: Config, db: Database, params: AuthorizeParams): Promise<AuthorizationCheck> {
  let client: OAuthClient;
  try {
    client = await resolveClient(config, db, params.clientId ?? "");
  } catch (error) {
    if (error instanceof ClientError) return { outcome: "unknown_client", reason: error.message };
    throw error;
  }
  const redirectUri = params.redirectUri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !redirectUriMatches(client.redirectUris, redirectUri)) return { outcome: "unknown_redirect" };
  const state = params.state ?? null;
  const back = { redirectUri, state: state && state.length <= STATE_MAX_LENGTH ? state : null };
  const refused = (error: string, description: string): AuthorizationCheck => ({ outcome: "refused", back, error, description });
  if (params.responseType !== "code") return refused("unsupported_response_type", "only response_type=code");
  const challenge = params.codeChallenge;
  if (params.codeChallengeMethod !== "S256" || !challenge || !CODE_CHALLENGE.test(challenge)) {
    return refused("invalid_request", "PKCE with code_challenge_method=S256 is required");
  }
  if (state !== null && state.length > STATE_MAX_LENGTH) return refused("invalid_request", "state is too long");
  const resource = params.resource ?? mcpResourceOf(config);
  if (resource !== mcpResourceOf(config)) return refused("invalid_target", `the only resource is ${mcpResourceOf(config)}`);
  const asked = (params.scope ?? "").split(" ").filter(Boolean);
  const unknown = asked.filter((s) => !MCP_SCOPES.includes(s));
  if (unknown.length) return refused("invalid_scope", `unknown scope ${unknown.join(" ")}`);
  return {
    outcome: "valid",
    request: {
      clientId: client.clientId,
      clientName: client.clientName,
      redirectUri,
      state,
      codeChallenge: challenge,
      scopes: asked.length ? [...new Set(asked)] : [...MCP_SCOPES],
      resource,
    },
  };
}

/** The request as the pages' forms carry it, valid for 15 minutes. */
export async function signAuthorizationRequest(config: Config, request: AuthorizationRequest): Promise<string> {
  return await signPageValue(config, "authorization-request", { request }, REQUEST_SECONDS);
}

/** The request a form carried; none when the token is missing, oversized, forged or expired. */
export async function readAuthorizationRequest(config: Config, token: string | undefined): Promise<AuthorizationRequest | undefined> {
  if (!token || token.length > 4096) return undefined;
  try {
    return (await verifyPageValue(config, "authorization-request", token)).request as AuthorizationRequest;
  } catch {
    return undefined;
  }
}

/** The scopes the person ticked, kept to those the client asked for. */
export function consentedScopes(request: AuthorizationRequest, ticked: readonly string[]): string[] {
  return ticked.filter((s) => request.scopes.includes(s));
}

/**
 * Records the person's grant of `scopes` to the client and issues a code for it, valid once for a
 * minute. A 401 ApiError when the browser session ended meanwhile.
 */
export async function issueAuthorizationCode(db: Database, session: BrowserSession, request: AuthorizationRequest, scopes: readonly string[]): Promise<string> {
  const code = randomToken("mca_");
  await db.query((sql) => sql`select mcp_oauth.approve(${session.hash}, ${request.clientId}, ${request.clientName}, ${request.redirectUri},
      ${[...new Set(scopes)]}::text[], ${request.resource}, ${sha256(code)}, ${request.codeChallenge}, ${CODE_SECONDS})`);
  return code;
}
