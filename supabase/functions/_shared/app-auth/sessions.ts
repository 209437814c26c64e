// App sessions of the local auth server, the stand-in for Supabase Auth that the gateway serves on
// /auth/v1 where no Supabase Auth runs (npm start). Sign-in is the OAuth pages' e-mail code (same
// codes, limits and mailer: oauth/sign-in.ts); sessions and their rotating refresh tokens live in
// Postgres (app_auth); access tokens are ES256 JWTs with the claims Supabase Auth gives its own, so
// the gateway (auth/middleware.ts) and the app's supabase-js treat both alike. Failures carry
// Supabase Auth's error codes, which supabase-js hands the app as `error.code`.
import type { z } from "@hono/zod-openapi";
import { createLocalJWKSet, importJWK, jwtVerify, SignJWT, type JWTPayload } from "jose";
import { randomToken } from "../auth/mcp-oauth.ts";
import type { Config, LocalAuthConfig } from "../config.ts";
import { sha256 } from "../crypto/sha256.ts";
import type { Database } from "../db/database.ts";
import { SERVICE_SCOPE } from "../db/scopes.ts";
import { ApiError } from "../http/errors.ts";
import { codeCheckLimits, issueSignInCode, mailSignInCode, signInCodeHash } from "../oauth/sign-in.ts";
import type { AuthSessionSchema, AuthUserSchema } from "./schemas.ts";
import { LOCAL_AUTH_ALG, type LocalAuthSigningKey } from "./signing-key.ts";

/** Supabase's audience and role of a signed-in user's tokens. */
export const AUTHENTICATED = "authenticated" as const;

export interface LocalIssuer {
  /** `iss` of its tokens: <PUBLIC_API_ROOT>/auth/v1, as Supabase's is <project>/auth/v1. */
  url: string;
  key: LocalAuthSigningKey;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
}

const issuers = new WeakMap<LocalAuthConfig, LocalIssuer>();

/** The issuer of these settings (the admin CLI mints its sessions whether or not a gateway serves it). */
export function localIssuerFrom(settings: LocalAuthConfig): LocalIssuer {
  let issuer = issuers.get(settings);
  if (issuer) return issuer;
  if (!settings.LOCAL_AUTH_SIGNING_KEY) throw new Error("LOCAL_AUTH_SIGNING_KEY is not set");
  issuer = {
    url: `${settings.PUBLIC_API_ROOT}/auth/v1`,
    key: settings.LOCAL_AUTH_SIGNING_KEY,
    accessTokenSeconds: settings.LOCAL_AUTH_ACCESS_TOKEN_SECONDS,
    refreshTokenSeconds: settings.LOCAL_AUTH_REFRESH_TOKEN_SECONDS,
  };
  issuers.set(settings, issuer);
  return issuer;
}

/** The local auth server of this configuration, when it is turned on. */
export function localIssuerOf(config: Config): LocalIssuer | undefined {
  return config.LOCAL_AUTH_ENABLED ? localIssuerFrom(config) : undefined;
}

/** The JWKS the server publishes (/auth/v1/.well-known/jwks.json). */
export function localJwks(issuer: LocalIssuer) {
  return { keys: [issuer.key.publicJwk] };
}

// Imported once per key: importing costs more than signing.
const signingKeys = new WeakMap<LocalAuthSigningKey, Promise<CryptoKey>>();
const verifyingKeys = new WeakMap<LocalAuthSigningKey, ReturnType<typeof createLocalJWKSet>>();

function signingKeyOf(key: LocalAuthSigningKey): Promise<CryptoKey> {
  let imported = signingKeys.get(key);
  if (!imported) signingKeys.set(key, imported = importJWK(key.privateJwk, LOCAL_AUTH_ALG) as Promise<CryptoKey>);
  return imported;
}

/**
 * The claims of a valid access token of `issuer`: its signature, issuer, audience and expiry
 * checked. Throws jose's errors; callers turn them into their 401.
 */
export async function verifyLocalAccessToken(issuer: LocalIssuer, token: string): Promise<JWTPayload> {
  let keys = verifyingKeys.get(issuer.key);
  if (!keys) verifyingKeys.set(issuer.key, keys = createLocalJWKSet(localJwks(issuer)));
  const { payload } = await jwtVerify(token, keys, {
    issuer: issuer.url,
    audience: AUTHENTICATED,
    algorithms: [LOCAL_AUTH_ALG],
    requiredClaims: ["exp", "sub", "session_id"],
  });
  return payload;
}

/** A live session and its user, as the app_auth functions answer (app_auth.session_answer). */
interface SessionRow {
  error: string | null;
  session_id: string;
  user_id: string;
  auth_user_id: string;
  email: string | null;
  method: "otp" | "admin";
  signed_in_at: Date;
  user_created_at: Date;
  last_sign_in_at: Date;
}

export type SupabaseUser = z.output<typeof AuthUserSchema>;
export type SupabaseSession = z.output<typeof AuthSessionSchema>;

/** The user as Supabase Auth describes one (auth-js's `User`): the auth user, not the service's user id. */
function supabaseUser(row: SessionRow): SupabaseUser {
  return {
    id: row.auth_user_id,
    aud: AUTHENTICATED,
    role: AUTHENTICATED,
    email: row.email ?? "",
    phone: "",
    app_metadata: { provider: "email", providers: ["email"] },
    user_metadata: {},
    identities: [],
    created_at: row.user_created_at.toISOString(),
    updated_at: row.user_created_at.toISOString(),
    last_sign_in_at: row.last_sign_in_at.toISOString(),
    is_anonymous: false,
  };
}

/** An access token with Supabase Auth's claims, and the session body around it. */
async function sessionOf(issuer: LocalIssuer, row: SessionRow, refreshToken: string): Promise<SupabaseSession> {
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresAt = issuedAt + issuer.accessTokenSeconds;
  const accessToken = await new SignJWT({
    email: row.email ?? "",
    phone: "",
    app_metadata: { provider: "email", providers: ["email"] },
    user_metadata: {},
    role: AUTHENTICATED,
    aal: "aal1",
    amr: [{ method: row.method, timestamp: Math.floor(row.signed_in_at.getTime() / 1000) }],
    session_id: row.session_id,
    is_anonymous: false,
  })
    .setProtectedHeader({ alg: LOCAL_AUTH_ALG, kid: issuer.key.kid, typ: "JWT" })
    .setIssuer(issuer.url)
    .setSubject(row.auth_user_id)
    .setAudience(AUTHENTICATED)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(await signingKeyOf(issuer.key));
  return {
    access_token: accessToken,
    token_type: "bearer",
    expires_in: issuer.accessTokenSeconds,
    expires_at: expiresAt,
    refresh_token: refreshToken,
    user: supabaseUser(row),
  };
}

/** A rate limit of the shared sign-in under Supabase's code for it, its wait kept. */
function renamedRateLimit(error: unknown, code: string): unknown {
  return error instanceof ApiError && error.status === 429 ? new ApiError(429, code, error.message, error.details, error.headers) : error;
}

/**
 * Mails a sign-in code (POST /otp). With `createUser` false, only to an address that has a user
 * (422 otp_disabled otherwise), asked after the code was issued so that asking costs what a code
 * costs. 429 over_email_send_rate_limit within the address's resend interval, past the codes per
 * (address, IP) or per IP, or once the address took its wrong codes of the day.
 */
export async function mailSignInCodeTo(db: Database, config: Config, request: { email: string; createUser: boolean; ip: string }) {
  const { email, createUser, ip } = request;
  const issued = await issueSignInCode(db, config, email, ip).catch((error) => {
    throw renamedRateLimit(error, "over_email_send_rate_limit");
  });
  if (!createUser) {
    const [known] = await db.query((sql) => sql<{ yes: boolean }[]>`select app_auth.address_has_user(${email}) as yes`);
    if (!known!.yes) throw new ApiError(422, "otp_disabled", "Signups not allowed for otp: no user has this e-mail address.");
  }
  await mailSignInCode(config, email, issued.code, undefined);
}

/** Spends the address's code for a new session (POST /verify). 403 otp_expired for a wrong, spent or expired code. */
export async function signInWithCode(db: Database, config: Config, issuer: LocalIssuer, attempt: { email: string; code: string; ip: string }) {
  const { email, code, ip } = attempt;
  const refreshToken = randomToken("");
  const [maxAttempts, perIp, windowSeconds, wrongPerDay] = codeCheckLimits(config);
  const [row] = await db.query((sql) => sql<SessionRow[]>`
      select * from app_auth.verify_otp(${email}, ${signInCodeHash(config, email, code)}, ${ip}, ${maxAttempts}, ${perIp},
        ${windowSeconds}, ${wrongPerDay}, ${sha256(refreshToken)}, ${issuer.refreshTokenSeconds})`).catch((error) => {
    throw renamedRateLimit(error, "over_request_rate_limit");
  });
  // Supabase Auth does not tell a wrong code from a spent or expired one.
  if (row!.error) throw new ApiError(403, "otp_expired", "Token has expired or is invalid.");
  return sessionOf(issuer, row!, refreshToken);
}

const REFRESH_ERRORS: Record<string, string> = {
  refresh_token_not_found: "Invalid Refresh Token: Refresh Token Not Found.",
  refresh_token_already_used: "Invalid Refresh Token: Already Used. The session has been ended; sign in again.",
};

/** Exchanges a refresh token for a new session body (POST /token?grant_type=refresh_token): rotation, reuse ending the session. */
export async function refreshSession(db: Database, issuer: LocalIssuer, presented: string) {
  const refreshToken = randomToken("");
  const [row] = await db.query((sql) => sql<SessionRow[]>`
      select * from app_auth.refresh_session(${sha256(presented)}, ${sha256(refreshToken)}, ${issuer.refreshTokenSeconds})`);
  if (row!.error) throw new ApiError(400, row!.error, REFRESH_ERRORS[row!.error]!);
  return sessionOf(issuer, row!, refreshToken);
}

/** The session of a bearer access token of this issuer; 401 no_authorization or bad_jwt. */
export async function sessionIdOf(issuer: LocalIssuer, authorization: string | undefined): Promise<string> {
  const token = /^bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (!token) throw new ApiError(401, "no_authorization", "This endpoint requires a Bearer token (the session's access token).");
  try {
    return (await verifyLocalAccessToken(issuer, token)).session_id as string;
  } catch {
    throw new ApiError(401, "bad_jwt", "Invalid JWT: unable to verify the access token, or it has expired.");
  }
}

/** The user of a live session (GET /user); 403 session_not_found once the session ended. */
export async function userOfSession(db: Database, sessionId: string): Promise<SupabaseUser> {
  const [row] = await db.query((sql) => sql<SessionRow[]>`select * from app_auth.live_session(${sessionId}::uuid)`);
  if (row!.error) throw new ApiError(403, "session_not_found", "Session from session_id claim in JWT does not exist.");
  return supabaseUser(row!);
}

export type SignOutScope = "global" | "local" | "others";

/** Ends the session, the person's others, or all of them (POST /logout). */
export async function signOut(db: Database, sessionId: string, scope: SignOutScope): Promise<void> {
  await db.query((sql) => sql`select app_auth.end_sessions(${sessionId}::uuid, ${scope})`);
}

/** A session for a user, minted by an operator (npm run admin -- session), as service_role. */
export async function mintSession(db: Database, issuer: LocalIssuer, userId: string): Promise<SupabaseSession> {
  const refreshToken = randomToken("");
  const [row] = await db.transaction(SERVICE_SCOPE, (tx) => tx<SessionRow[]>`
      select * from app_auth.start_session(${userId}, 'admin', ${sha256(refreshToken)}, ${issuer.refreshTokenSeconds})`);
  return sessionOf(issuer, row!, refreshToken);
}
