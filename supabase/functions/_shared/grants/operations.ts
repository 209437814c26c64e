// What a person can do with their MCP grants, for every surface: list the live ones and revoke one.
// RLS (grants_select_owner) keeps every read to the caller's own grants; mcp_oauth.revoke_my_grant
// revokes only one of theirs. The OAuth grants page (api/oauth) runs the same statements as the
// signed-in person.
import type { z } from "@hono/zod-openapi";
import type { Tx } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";
import { noContent, ok, operation } from "../operations/operation.ts";
import type { McpGrantListSchema } from "./schemas.ts";

export interface LiveGrantRow {
  id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  scopes: string[];
  resource: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** The scope's user's live grants, newest first, at most 200. */
export const selectLiveGrants = (tx: Tx) => tx<LiveGrantRow[]>`
  select id, client_id, client_name, redirect_uri, scopes, resource, created_at, last_used_at
  from mcp_oauth.grants where revoked_at is null order by created_at desc, id limit 200`;

/** Revokes one of the scope's user's grants: `revoked` is false when they have none with this id (an already revoked one is true). */
export const revokeMyGrant = (tx: Tx, grantId: string) => tx<{ revoked: boolean }[]>`
  select mcp_oauth.revoke_my_grant(${grantId}) as revoked`;

export const listGrants = operation({
  name: "grants.list",
  async run({ db }) {
    const rows = await db.statement(selectLiveGrants);
    const list: z.output<typeof McpGrantListSchema> = {
      items: rows.map((r) => ({
        id: r.id,
        clientId: r.client_id,
        clientName: r.client_name,
        redirectUri: r.redirect_uri,
        scopes: r.scopes,
        resource: r.resource,
        createdAt: r.created_at.toISOString(),
        lastUsedAt: r.last_used_at?.toISOString() ?? null,
      })),
    };
    return ok(list);
  },
});

export const revokeGrant = operation({
  name: "grants.revoke",
  async run({ db }, { grantId }: { grantId: string }) {
    const [row] = await db.statement((tx) => revokeMyGrant(tx, grantId));
    if (!row?.revoked) throw new ApiError(404, "not_found", "You have no MCP grant with this id.");
    return noContent();
  },
});
