import type { RouteHandler } from "@hono/zod-openapi";
import { scopeOf } from "../../_shared/auth/principal.ts";
import type { Tx } from "../../_shared/db/database.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import * as routes from "./routes.ts";

interface GrantRow {
  id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  scopes: string[];
  resource: string;
  created_at: Date;
  last_used_at: Date | null;
}

/**
 * The caller's live grants, newest first, at most 200: RLS (grants_select_owner) keeps them to the
 * scope's user. Also the sign-in pages' Connected assistants list (api/oauth).
 */
export const selectLiveGrants = (tx: Tx) => tx<GrantRow[]>`
  select id, client_id, client_name, redirect_uri, scopes, resource, created_at, last_used_at
  from mcp_oauth.grants where revoked_at is null order by created_at desc, id limit 200`;

export const listMcpGrants: RouteHandler<typeof routes.listMcpGrants, AppEnv> = async (c) => {
  const rows = await c.get("db").statement(scopeOf(c.get("principal")), selectLiveGrants);
  return c.json({
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
  }, 200);
};

export const revokeMcpGrant: RouteHandler<typeof routes.revokeMcpGrant, AppEnv> = async (c) => {
  const { grantId } = c.req.valid("param");
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{ revoked: boolean }[]>`
    select mcp_oauth.revoke_my_grant(${grantId}) as revoked`);
  if (!row?.revoked) throw new ApiError(404, "not_found", "You have no MCP grant with this id.");
  return c.body(null, 204);
};

export const meGrantsRouter = createRouter()
  .openapi(routes.listMcpGrants, listMcpGrants)
  .openapi(routes.revokeMcpGrant, revokeMcpGrant);
