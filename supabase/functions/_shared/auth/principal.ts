import type { DbScope } from "../db/database.ts";

/** Permissions in the spec's shape: {"checkout": ["create", "retry"], "sponsorship": ["write"]}. */
export type Permissions = Record<string, string[]>;

export type Principal =
  | { kind: "api_key"; userId: string; authUserId: string; apiKeyId: string; keyPrefix: string; permissions: Permissions }
  | { kind: "session"; userId: string; authUserId: string; claims: Record<string, unknown> };

/** The database scope a principal's requests run in. */
export function scopeOf(principal: Principal): DbScope {
  if (principal.kind === "session") {
    return { role: "authenticated", claims: { ...principal.claims, role: "authenticated", app_user_id: principal.userId } };
  }
  return {
    role: "authenticated",
    claims: {
      sub: principal.authUserId,
      role: "authenticated",
      app_user_id: principal.userId,
      api_key_id: principal.apiKeyId,
      permissions: principal.permissions,
    },
  };
}

export function hasPermission(permissions: Permissions, resource: string, action: string): boolean {
  return permissions[resource]?.includes(action) ?? false;
}
