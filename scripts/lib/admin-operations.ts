// Operator actions behind `npm run admin`, also used by test fixtures. They run as service_role.
import { generateApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import type { Permissions } from "../../supabase/functions/_shared/auth/principal.ts";
import type { Database } from "../../supabase/functions/_shared/db/database.ts";
import { SERVICE_SCOPE } from "../../supabase/functions/_shared/db/scopes.ts";

export interface CreatedUser {
  id: string;
  authUserId: string;
  email: string | null;
}

export interface ApiKeySummary {
  id: string;
  ownerId: string;
  name: string;
  prefix: string;
  permissions: Permissions;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** `checkout:create` strings into the stored shape `{ "checkout": ["create"] }`. */
export function parsePermissions(list: string[]): Permissions {
  const permissions: Permissions = {};
  for (const item of list) {
    const [resource, action, extra] = item.split(":");
    if (!resource || !action || extra !== undefined) throw new Error(`permission "${item}" is not of the form resource:action`);
    const actions = (permissions[resource] ??= []);
    if (!actions.includes(action)) actions.push(action);
  }
  return permissions;
}

export async function createUser(db: Database, input: { email?: string; username?: string; displayName?: string }): Promise<CreatedUser> {
  return db.transaction(SERVICE_SCOPE, async (tx) => {
    const [user] = await tx<{ id: string; auth_user_id: string; email: string | null }[]>`
      insert into core.users (email) values (${input.email ?? null}) returning id, auth_user_id, email`;
    await tx`update core.profiles set username = ${input.username ?? null}, display_name = ${input.displayName ?? null}
             where user_id = ${user!.id}`;
    return { id: user!.id, authUserId: user!.auth_user_id, email: user!.email };
  });
}

/** The id of the user with this e-mail (compared case-insensitively, as core.users' unique index does), if any. */
export async function userIdByEmail(db: Database, email: string): Promise<string | undefined> {
  const [row] = await db.transaction(SERVICE_SCOPE, (tx) => tx<{ id: string }[]>`
    select id from core.users where lower(email) = lower(${email.trim()})`);
  return row?.id;
}

/** Links an address without a signature: for operators, who vouch for it themselves. */
export async function linkAddress(db: Database, input: { userId: string; address: string; chainId: string; connector: string }) {
  const [row] = await db.transaction(SERVICE_SCOPE, (tx) => tx<{ id: string; address: string; chain_id: string; connector: string }[]>`
    insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
    values (${input.userId}, ${input.address}, ${input.chainId}, ${input.connector}, 'operator')
    returning id, address, chain_id, connector`);
  return { id: row!.id, address: row!.address, chainId: row!.chain_id, connector: row!.connector };
}

/** Creates a key; the plaintext is in the result once and never stored. */
export async function createApiKey(db: Database, input: { userId: string; name: string; permissions: Permissions }) {
  const key = generateApiKey();
  const [row] = await db.transaction(SERVICE_SCOPE, (tx) => tx<{ id: string }[]>`
    insert into core.api_keys (owner_id, name, prefix, key_hash, permissions)
    values (${input.userId}, ${input.name}, ${key.prefix}, ${key.hash}, ${tx.json(input.permissions)})
    returning id`);
  return { id: row!.id, prefix: key.prefix, key: key.plaintext, permissions: input.permissions };
}

interface ApiKeyRow {
  id: string; owner_id: string; name: string; prefix: string; permissions: Permissions;
  created_at: Date; last_used_at: Date | null; revoked_at: Date | null;
}

function toSummary(row: ApiKeyRow): ApiKeySummary {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

export async function listApiKeys(db: Database, filter: { userId?: string } = {}): Promise<ApiKeySummary[]> {
  const rows = await db.transaction(SERVICE_SCOPE, (tx) => tx<ApiKeyRow[]>`
    select id, owner_id, name, prefix, permissions, created_at, last_used_at, revoked_at
    from core.api_keys
    where ${filter.userId ?? null}::text is null or owner_id = ${filter.userId ?? null}
    order by created_at, id`);
  return rows.map(toSummary);
}

/** Revokes by id or prefix. Returns null when no such key exists. Revoking twice keeps the first time. */
export async function revokeApiKey(db: Database, idOrPrefix: string): Promise<ApiKeySummary | null> {
  const [row] = await db.transaction(SERVICE_SCOPE, (tx) => tx<ApiKeyRow[]>`
    update core.api_keys set revoked_at = coalesce(revoked_at, now())
    where id::text = ${idOrPrefix} or prefix = ${idOrPrefix}
    returning id, owner_id, name, prefix, permissions, created_at, last_used_at, revoked_at`);
  return row ? toSummary(row) : null;
}
