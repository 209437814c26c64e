import type { ApiKeyScope, DbScope } from "../db/scopes.ts";

/** Permissions in the spec's shape: {"checkout": ["create", "retry"], "sponsorship": ["write"]}. */
export type Permissions = Record<string, string[]>;

/**
 * Who is calling. An API key is only hashed here: the database resolves it to its owner inside
 * each of the request's transactions, and RLS reads the owner from there (core.current_user_id()).
 */
export type Principal =
  | { kind: "api_key"; scope: ApiKeyScope }
  | { kind: "session"; userId: string; authUserId: string; claims: Record<string, unknown> }
  /** A person's OAuth grant to an MCP client (public MCP endpoint, auth/mcp-oauth.ts): their user, under the granted scopes. */
  | { kind: "oauth"; userId: string; clientId: string; grantId: string; scopes: string[] }
  /** No credential of a person: routes authenticated otherwise (a checkout's client secret, the provider's verifier secret) or public. */
  | { kind: "anonymous" };

export const ANONYMOUS: Principal = { kind: "anonymous" };

/** The database scope a principal's requests run in. */
export function scopeOf(principal: Principal): DbScope {
  if (principal.kind === "api_key") return principal.scope;
  if (principal.kind === "anonymous") return { kind: "claims", role: "anon", claims: { role: "anon" } };
  if (principal.kind === "oauth") {
    // Like a session: RLS reads the user from app_user_id (core.current_user_id). No `sub`: the
    // token names the service user, not an auth user, and auth.uid() would misread it.
    return { kind: "claims", role: "authenticated", claims: { role: "authenticated", app_user_id: principal.userId, client_id: principal.clientId, scope: principal.scopes.join(" ") } };
  }
  return { kind: "claims", role: "authenticated", claims: { ...principal.claims, role: "authenticated", app_user_id: principal.userId } };
}
