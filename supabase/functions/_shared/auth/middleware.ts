import { createMiddleware } from "hono/factory";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { AUTHENTICATED, localIssuerOf, verifyLocalAccessToken } from "../app-auth/sessions.ts";
import { RecentEntries } from "./recent-entries.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { ApiKeyScope } from "../db/scopes.ts";
import { ApiError } from "../http/errors.ts";
import type { AppEnv } from "../http/context.ts";
import { hashApiKey, looksLikeApiKey } from "./api-keys.ts";

const invalidKey = () => new ApiError(401, "invalid_api_key", "The API key is unknown or has been revoked.");

/**
 * `x-api-key` authentication. The key is checked by the database at the start of each of the
 * request's transactions (pipelined with its statements, so it costs no round trip of its own). A
 * key the database has not accepted in the last minute is checked first, before the request's query
 * and body are parsed and validated, so a made-up or revoked key buys one cheap lookup and a 401,
 * never the work a valid request costs. A request that never reached the database has its key
 * checked at the end; handlers that act outside the database first call `db.verify(scope)` (venues).
 */
export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("x-api-key");
  if (!key) {
    if (/^bearer\s/i.test(c.req.header("authorization") ?? "")) {
      throw new ApiError(401, "wrong_auth_scheme", "This API authenticates with the x-api-key header; Authorization: Bearer is not accepted.");
    }
    throw new ApiError(401, "missing_api_key", "Send your API key in the x-api-key header.");
  }
  if (!looksLikeApiKey(key)) throw invalidKey();
  const scope = new ApiKeyScope(hashApiKey(key));
  c.set("principal", { kind: "api_key", scope });
  const db = c.get("db");
  scope.ownerId = db.acceptedKeys.ownerOf(scope.keyHash);
  if (scope.ownerId === undefined) await db.checkNewKey(scope);
  await next();
  if (!scope.verified) await db.verify(scope);
});

/**
 * Refuses API keys that lack `resource:action` (403 missing_permission): the permission an operation
 * declares, or its two halves. Use after requireApiKey. Checked before the request's body is
 * validated and the handler runs (unless the database checked this key for it lately: a key's
 * permissions never change), and again in every transaction of the request.
 */
export function requirePermission(permission: string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const principal = c.get("principal");
    if (principal.kind !== "api_key") throw new ApiError(403, "missing_permission", `This route needs an API key with ${permission}.`);
    principal.scope.requiredPermissions.push(permission);
    const db = c.get("db");
    if (!db.acceptedKeys.grants(principal.scope.keyHash, permission)) await db.verify(principal.scope);
    await next();
  });
}

// One verifier per configuration: the JWKS set caches its keys between requests.
const verifiers = new WeakMap<Config, (token: string) => Promise<JWTPayload>>();

/**
 * Session tokens are Supabase Auth's, or the local auth server's when it is on. HS256 (Supabase's
 * legacy secret) is checked with JWT_SECRET; ES256 and RS256 (its signing keys) by `kid`: the local
 * server's own key, else the key of that kid in the JWKS at JWT_JWKS_URL, which jose caches and
 * fetches again for an unknown kid (at most every 30 s). Issuer (JWT_ISSUER, or the local server's),
 * audience and expiry are checked too. Refused besides: `alg: none` and every other algorithm, HS256
 * without a secret (a JWKS alone), an asymmetric token without a kid or with one no key has.
 * A token verified once is known for a minute, or until it expires if sooner: the same bytes verify
 * the same way (these tokens are stateless), and an app sends the same token with every request.
 */
function sessionVerifier(config: Config) {
  let verify = verifiers.get(config);
  if (verify) return verify;
  const secret = config.JWT_SECRET ? new TextEncoder().encode(config.JWT_SECRET) : undefined;
  const jwks: JWTVerifyGetKey | undefined = config.JWT_JWKS_URL ? createRemoteJWKSet(new URL(config.JWT_JWKS_URL)) : undefined;
  const local = localIssuerOf(config);
  // Session tokens must expire: a token without `exp` would be valid forever.
  const options = { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, requiredClaims: ["exp", "sub"] };
  const verifySignature = async (token: string) => {
    const { alg, kid } = decodeProtectedHeader(token);
    if (alg === "HS256" && secret) return (await jwtVerify(token, secret, { ...options, algorithms: ["HS256"] })).payload;
    if (alg === "HS256" || kid === undefined) throw new Error(`no key for ${alg}${kid === undefined ? " without a kid" : ""}`);
    if (local && kid === local.key.kid) return verifyLocalAccessToken(local, token);
    if (jwks) return (await jwtVerify(token, jwks, { ...options, algorithms: ["ES256", "RS256"] })).payload;
    throw new Error(`no key configured for ${alg}`);
  };
  const verified = new RecentEntries<JWTPayload>();
  verify = async (token: string) => {
    const known = verified.get(token);
    if (known !== undefined && known.exp! * 1000 > Date.now()) return known;
    const payload = await verifySignature(token);
    verified.set(token, payload);
    return payload;
  };
  verifiers.set(config, verify);
  return verify;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The service user of each session `sub` found or made lately, per database: a `sub` names one user
 * for good (core.users.auth_user_id is set once), so a session's next requests skip that round trip.
 */
const sessionUsersByDatabase = new WeakMap<Database, RecentEntries<string>>();

/**
 * App-session authentication (`Authorization: Bearer <session JWT>`) for the app-backend functions.
 * The token's `sub` (Supabase's auth user id) names the service's user: found by core.users'
 * auth_user_id, or made on first sight with the token's e-mail (userForAuthUser), and then known to
 * the gateway for a minute (sessionUsersByDatabase). Anonymous
 * sessions (Supabase's anonymous sign-ins, `is_anonymous`) are refused: they name nobody, and
 * anyone could make users by the thousand with them.
 */
export const requireSession = createMiddleware<AppEnv>(async (c, next) => {
  const match = /^bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
  if (!match?.[1]) throw new ApiError(401, "missing_session", "Send the app session token as Authorization: Bearer <token>.");
  let claims: JWTPayload;
  try {
    claims = await sessionVerifier(c.get("config"))(match[1]);
  } catch {
    throw new ApiError(401, "invalid_session", "The session token is invalid or expired.");
  }
  const sub = claims.sub;
  if (typeof sub !== "string" || !UUID.test(sub) || claims.role !== AUTHENTICATED) {
    throw new ApiError(401, "invalid_session", "The session token does not name an authenticated user.");
  }
  if (claims.is_anonymous === true) {
    throw new ApiError(403, "anonymous_session", "Anonymous sessions are not accepted: sign in with an e-mail address.");
  }
  const email = typeof claims.email === "string" && claims.email !== "" ? claims.email : null;
  const db = c.get("db");
  let sessionUsers = sessionUsersByDatabase.get(db);
  if (!sessionUsers) sessionUsersByDatabase.set(db, sessionUsers = new RecentEntries<string>());
  let userId = sessionUsers.get(sub);
  if (userId === undefined) {
    userId = await userForAuthUser(db, sub, email);
    sessionUsers.set(sub, userId);
  }
  c.set("principal", { kind: "session", userId, authUserId: sub, claims });
  await next();
});

/**
 * Either credential: `x-api-key` (a server) or `Authorization: Bearer <session JWT>` (the app), for
 * the routes SPEC 5.8 opens to "the authenticated owner or session". A request with both is refused
 * rather than guessed at.
 */
export const requireApiKeyOrSession = createMiddleware<AppEnv>(async (c, next) => {
  const hasKey = c.req.header("x-api-key") !== undefined;
  const hasBearer = /^bearer\s/i.test(c.req.header("authorization") ?? "");
  if (hasKey && hasBearer) throw new ApiError(400, "ambiguous_credentials", "Send either x-api-key or Authorization: Bearer, not both.");
  if (!hasKey && !hasBearer) {
    throw new ApiError(401, "missing_credentials", "Send an API key in x-api-key or an app session token as Authorization: Bearer <token>.");
  }
  return hasKey ? requireApiKey(c, next) : requireSession(c, next);
});

/**
 * Server-to-server routes (SPEC 5.8: usage/record "must never be exposed to browsers"): a browser
 * always sends Origin on a cross-origin POST, and a page cannot remove it, so its presence refuses.
 */
export const refuseBrowserRequests = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("origin") !== undefined) {
    throw new ApiError(403, "browser_requests_refused", "This operation is for trusted servers only; requests from browsers (with an Origin header) are refused.");
  }
  await next();
});

// The database refuses an email that another user already has (23505: 409 conflict), that fails its
// format check (23514) or that holds a NUL (22021): 400 validation_failed.
const refusedEmail = (error: unknown) => error instanceof ApiError && (error.code === "conflict" || error.code === "validation_failed");

/**
 * The service user of a session's auth user, provisioned on first sight with the token's email.
 * An email the database refuses must not lock the session out (every request would fail), and
 * must never link the session to the user who has that email: the user is provisioned without it.
 */
async function userForAuthUser(db: Database, sub: string, email: string | null): Promise<string> {
  try {
    const [row] = await db.query((sql) => sql<{ id: string }[]>`select core.user_for_auth_user(${sub}::uuid, ${email}) as id`);
    return row!.id;
  } catch (error) {
    if (email === null || !refusedEmail(error)) throw error;
    const [row] = await db.query((sql) => sql<{ id: string }[]>`select core.user_for_auth_user(${sub}::uuid, null) as id`);
    return row!.id;
  }
}
