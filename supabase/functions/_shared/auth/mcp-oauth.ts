// The public MCP endpoint's credentials: OAuth 2.1 access tokens issued by the service's own
// authorization server (api/oauth). Never an API key.
//
// Access tokens are JWTs (HS256, `typ: at+jwt`, RFC 9068's claims): signature, issuer, audience
// (this endpoint's URL, so a token for another resource is refused) and expiry are checked here
// without the database; whether the token was revoked (its grant, or itself) is one statement on two
// primary keys that also takes the per-grant rate limit (mcp_oauth.access_allowed), so a revoked
// grant stops working at its next request, not when its tokens expire.
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { jwtVerify, SignJWT } from "jose";
import { type Config, DEVELOPMENT_TOKEN_SECRET } from "../config.ts";
import type { DbScope } from "../db/scopes.ts";
import { ApiError } from "../http/errors.ts";
import type { AppEnv } from "../http/context.ts";
import { sha256 } from "../crypto/sha256.ts";
import { apiUrl } from "../http/public-urls.ts";

/** Scopes named by capability. The read ones are the consent page's default selection. */
export const READ_SCOPES = ["events:read", "hubs:read", "venues:read", "checkout:read", "sponsorship:read", "reservations:read", "checkin:read"] as const;
export const WRITE_SCOPES = ["events:write", "hubs:write", "wallet:link", "sponsorship:write", "reservations:write", "checkin:write"] as const;
export const MCP_SCOPES: readonly string[] = [...READ_SCOPES, ...WRITE_SCOPES];

export function issuerOf(config: Config): string {
  return config.MCP_ISSUER ?? apiUrl(config, "");
}

/** The protected resource (RFC 8707 / RFC 9728): the public MCP endpoint's URL. */
export function mcpResourceOf(config: Config): string {
  return apiUrl(config, "/mcp");
}

/**
 * The resource's metadata URL, which the 401's WWW-Authenticate names: under the api function, where
 * Supabase can serve it (RFC 9728's form inserted at the host's root lies outside every function).
 */
export function protectedResourceMetadataUrl(config: Config): string {
  return apiUrl(config, "/.well-known/oauth-protected-resource/mcp");
}

function secretOf(config: Config): string {
  return config.MCP_TOKEN_SECRET ?? DEVELOPMENT_TOKEN_SECRET;
}

const keys = new WeakMap<Config, Uint8Array>();
function signingKey(config: Config): Uint8Array {
  let key = keys.get(config);
  if (!key) keys.set(config, key = new Uint8Array(createHmac("sha256", secretOf(config)).update("mcp-oauth:jwt").digest()));
  return key;
}

export { sha256 };

/** HMAC of a short secret (a 6-digit e-mail code): a leaked table cannot be brute-forced without the key. */
export function keyedHash(config: Config, purpose: string, text: string): Uint8Array {
  return new Uint8Array(createHmac("sha256", secretOf(config)).update(`${purpose}:${text}`).digest());
}

export function randomToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/** RFC 7636 S256: BASE64URL(SHA256(code_verifier)). */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export interface AccessTokenClaims {
  userId: string;
  clientId: string;
  grantId: string;
  scopes: string[];
  resource: string;
}

export async function signAccessToken(config: Config, claims: AccessTokenClaims): Promise<{ token: string; expiresIn: number }> {
  const expiresIn = config.MCP_ACCESS_TOKEN_SECONDS;
  const token = await new SignJWT({ client_id: claims.clientId, scope: claims.scopes.join(" "), gid: claims.grantId })
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
    .setIssuer(issuerOf(config))
    .setSubject(claims.userId)
    .setAudience(claims.resource)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${expiresIn}s`)
    .sign(signingKey(config));
  return { token, expiresIn };
}

export interface VerifiedAccessToken {
  userId: string;
  clientId: string;
  grantId: string;
  scopes: string[];
  jti: string;
  expiresAt: number;
}

const OBJECT_ID = /^[0-9a-f]{24}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Signature (HS256 only: `alg: none` and every other algorithm are refused), issuer, audience, expiry, claims. */
export async function verifyAccessToken(config: Config, token: string, audience = mcpResourceOf(config)): Promise<VerifiedAccessToken> {
  const { payload } = await jwtVerify(token, signingKey(config), {
    algorithms: ["HS256"],
    typ: "at+jwt",
    issuer: issuerOf(config),
    audience,
    requiredClaims: ["exp", "iat", "sub", "jti"],
  });
  const { sub, client_id, gid, scope, jti, exp } = payload as Record<string, unknown>;
  if (typeof sub !== "string" || !OBJECT_ID.test(sub) || typeof gid !== "string" || !OBJECT_ID.test(gid) ||
      typeof client_id !== "string" || typeof scope !== "string" || typeof jti !== "string" || !UUID.test(jti) || typeof exp !== "number") {
    throw new Error("malformed access token claims");
  }
  return { userId: sub, clientId: client_id, grantId: gid, scopes: scope.split(" ").filter(Boolean), jti, expiresAt: exp };
}

/** The sign-in pages' session cookie (`__Host-` when the issuer is served over https). */
export function browserSessionCookie(config: Config): { name: string; secure: boolean } {
  const secure = issuerOf(config).startsWith("https://");
  return { name: secure ? "__Host-mcp_session" : "mcp_session", secure };
}

export interface BrowserSession {
  hash: Uint8Array;
  userId: string;
  email: string;
}

/**
 * The person signed in on the sign-in pages (api/oauth), from their session cookie; also who the
 * confirmation pages (api/confirmations) act for. Undefined without a live session.
 */
export async function browserSession(c: Context<AppEnv>): Promise<BrowserSession | undefined> {
  const token = getCookie(c, browserSessionCookie(c.get("config")).name);
  if (!token || !/^mcs_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const hash = sha256(token);
  const [row] = await c.get("db").query((sql) =>
    sql<{ user_id: string; email: string | null }[]>`select * from mcp_oauth.browser_session_user(${hash})`
  );
  return row ? { hash, userId: row.user_id, email: row.email ?? "" } : undefined;
}

/**
 * Whether the request comes from a page of another origin than the issuer's. The sign-in and
 * confirmation pages post only from the issuer's own (a browser always sends Origin on a POST); a
 * request without Origin is no browser's and passes.
 */
export function fromForeignOrigin(c: Context<AppEnv>): boolean {
  const origin = c.req.header("origin");
  return origin !== undefined && origin !== new URL(issuerOf(c.get("config"))).origin;
}

/** The database scope of a signed-in person acting for themselves: role authenticated, RLS by app_user_id. */
export function personScope(userId: string): DbScope {
  return { kind: "claims", role: "authenticated", claims: { role: "authenticated", app_user_id: userId } };
}

/** Signed, short-lived values of the sign-in pages (the pending authorization request). */
export async function signPageValue(config: Config, purpose: string, value: Record<string, unknown>, seconds: number): Promise<string> {
  return await new SignJWT(value).setProtectedHeader({ alg: "HS256" }).setAudience(`mcp-oauth:${purpose}`).setIssuedAt()
    .setExpirationTime(`${seconds}s`).sign(signingKey(config));
}

export async function verifyPageValue(config: Config, purpose: string, token: string): Promise<Record<string, unknown>> {
  const { payload } = await jwtVerify(token, signingKey(config), { algorithms: ["HS256"], audience: `mcp-oauth:${purpose}` });
  return payload as Record<string, unknown>;
}

/** `WWW-Authenticate` of the public MCP endpoint (RFC 6750 3, RFC 9728 5.1). */
export function bearerChallenge(config: Config, error?: { error: string; description?: string; scope?: string }): string {
  const parts = [`resource_metadata="${protectedResourceMetadataUrl(config)}"`];
  if (error) {
    parts.push(`error="${error.error}"`);
    if (error.description) parts.push(`error_description="${error.description.replace(/["\\]/g, "")}"`);
    if (error.scope) parts.push(`scope="${error.scope}"`);
  }
  return `Bearer ${parts.join(", ")}`;
}

function unauthorized(config: Config, code: string, message: string, tokenSent: boolean): ApiError {
  const challenge = bearerChallenge(config, tokenSent ? { error: "invalid_token", description: message } : undefined);
  return new ApiError(401, code, message, undefined, { "WWW-Authenticate": challenge });
}

/**
 * The public MCP endpoint's authentication: `Authorization: Bearer <access token>` only. An API key
 * is refused (this endpoint is for public assistants; servers use the backend MCP endpoint), as is a
 * token for another audience, an expired, revoked, unsigned or malformed one. Sets the principal
 * `{ kind: "oauth" }`; requests run as role authenticated with the person's user id (scopeOf).
 */
export const requireMcpAccessToken = createMiddleware<AppEnv>(async (c, next) => {
  const config = c.get("config");
  const authorization = c.req.header("authorization");
  const match = /^bearer\s+([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization ?? "");
  if (c.req.header("x-api-key") !== undefined) {
    throw unauthorized(config, "api_key_not_accepted", "This endpoint takes OAuth access tokens only, never an API key (servers use the backend MCP endpoint).", true);
  }
  if (!authorization) throw unauthorized(config, "missing_access_token", "Send an OAuth access token as Authorization: Bearer <token>.", false);
  if (!match) throw unauthorized(config, "invalid_token", "The Authorization header is not a Bearer token.", true);
  let token: VerifiedAccessToken;
  try {
    token = await verifyAccessToken(config, match[1]!);
  } catch {
    throw unauthorized(config, "invalid_token", "The access token is invalid, expired or for another resource.", true);
  }
  const db = c.get("db");
  try {
    // The grant must also be the token's: its person, its client, and scopes within the grant's (a
    // second guard beside the signature, should the signing secret ever leak).
    await db.query((sql) => sql`select mcp_oauth.access_allowed(${token.grantId}, ${token.jti}::uuid, ${config.MCP_RATE_LIMIT_PER_MINUTE},
      ${token.userId}, ${token.clientId}, ${token.scopes}::text[])`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw unauthorized(config, "invalid_token", "The access token has been revoked.", true);
    }
    throw error;
  }
  c.set("principal", { kind: "oauth", userId: token.userId, clientId: token.clientId, grantId: token.grantId, scopes: token.scopes });
  await next();
});

/** 403 insufficient_scope naming every scope the operation needs (RFC 6750 3.1). */
export function insufficientScope(config: Config, needed: readonly string[], what: string): ApiError {
  const scope = needed.join(" ");
  return new ApiError(403, "insufficient_scope", `${what} needs the scope${needed.length > 1 ? "s" : ""} ${scope}.`, { requiredScopes: needed }, {
    "WWW-Authenticate": bearerChallenge(config, { error: "insufficient_scope", scope, description: `needs ${scope}` }),
  });
}
