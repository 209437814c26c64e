// The token endpoint's two grants and revocation (RFC 7009). A code is redeemed once with its PKCE
// verifier, a refresh token rotated once (reusing a rotated one revokes the grant): both decided
// in Postgres under row locks (mcp_oauth.redeem_authorization_code, rotate_refresh_token). Refresh
// tokens are opaque and stored as hashes; access tokens are signed (auth/mcp-oauth.ts).
import { mcpResourceOf, randomToken, s256, sha256, signAccessToken, verifyAccessToken } from "../auth/mcp-oauth.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { OAuthError } from "./errors.ts";

const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The token request's parameters, as sent (a parameter sent twice counts as absent). */
export interface TokenRequest {
  grantType?: string;
  clientId?: string;
  resource?: string;
  code?: string;
  redirectUri?: string;
  codeVerifier?: string;
  refreshToken?: string;
  scope?: string;
}

/** RFC 6749 5.1's answer. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

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

/** A code or a refresh token for a new access token and a new refresh token; an OAuthError says why not. */
export async function exchangeToken(db: Database, config: Config, request: TokenRequest): Promise<TokenResponse> {
  const { clientId } = request;
  if (!clientId) throw new OAuthError(401, "invalid_client", "client_id is required (public clients)");
  const resource = request.resource ?? null;
  if (resource !== null && resource !== mcpResourceOf(config)) {
    throw new OAuthError(400, "invalid_target", `the only resource is ${mcpResourceOf(config)}`);
  }
  const refreshToken = randomToken("mcr_");
  let row: TokenRow;
  if (request.grantType === "authorization_code") {
    const { code, redirectUri, codeVerifier: verifier } = request;
    if (!code || !redirectUri || !verifier) throw new OAuthError(400, "invalid_request", "code, redirect_uri and code_verifier are required");
    if (!CODE_VERIFIER.test(verifier)) throw new OAuthError(400, "invalid_grant", "the code_verifier is malformed");
    row = (await db.query((sql) => sql<TokenRow[]>`
      select * from mcp_oauth.redeem_authorization_code(${sha256(code)}, ${clientId}, ${redirectUri}, ${s256(verifier)}, ${resource},
        ${sha256(refreshToken)}, ${config.MCP_REFRESH_TOKEN_SECONDS})`))[0]!;
  } else if (request.grantType === "refresh_token") {
    const presented = request.refreshToken;
    if (!presented) throw new OAuthError(400, "invalid_request", "refresh_token is required");
    const scopes = request.scope === undefined ? null : request.scope.split(" ").filter(Boolean);
    row = (await db.query((sql) => sql<TokenRow[]>`
      select * from mcp_oauth.rotate_refresh_token(${sha256(presented)}, ${clientId}, ${resource}, ${scopes}::text[],
        ${sha256(refreshToken)}, ${config.MCP_REFRESH_TOKEN_SECONDS})`))[0]!;
  } else {
    throw new OAuthError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
  }
  if (row.error) throw new OAuthError(400, row.error, TOKEN_ERRORS[row.error] ?? row.error);
  const access = await signAccessToken(config, {
    userId: row.user_id!, clientId, grantId: row.grant_id!, scopes: row.scopes!, resource: row.resource!,
  });
  return {
    access_token: access.token,
    token_type: "Bearer",
    expires_in: access.expiresIn,
    refresh_token: refreshToken,
    scope: row.scopes!.join(" "),
  };
}

/**
 * Revokes a refresh token, or an access token this service signed, of `clientId`. Anything else is
 * a no-op (RFC 7009: the answer does not say whether a token was known).
 */
export async function revokeToken(db: Database, config: Config, request: { token?: string; clientId?: string }): Promise<void> {
  const { token: presented, clientId } = request;
  if (!presented) throw new OAuthError(400, "invalid_request", "token is required");
  if (!clientId) throw new OAuthError(401, "invalid_client", "client_id is required (public clients)");
  if (presented.startsWith("mcr_")) {
    await db.query((sql) => sql`select mcp_oauth.revoke_refresh_token(${sha256(presented)}, ${clientId})`);
  } else {
    // An access token: only one this service signed is worth listing.
    const verified = await verifyAccessToken(config, presented).catch(() => undefined);
    if (verified) {
      await db.query((sql) => sql`select mcp_oauth.revoke_access_token(${verified.jti}::uuid, ${verified.grantId}, ${clientId},
        ${new Date(verified.expiresAt * 1000)})`);
    }
  }
}
