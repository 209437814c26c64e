import type { RouteHandler } from "@hono/zod-openapi";
import type { z } from "@hono/zod-openapi";
import type { Fragment } from "postgres";
import { scopeOf } from "../../_shared/auth/principal.ts";
import type { Tx } from "../../_shared/db/database.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError, renameConflict } from "../../_shared/http/errors.ts";
import { containsPattern, cursorValue, pageClauses, pagingOf, toPage } from "../../_shared/http/listing.ts";
import * as routes from "./routes.ts";

type Hub = z.infer<typeof routes.HubSchema>;
type CreateHub = z.infer<typeof routes.CreateHubSchema>;
type UpdateHub = z.infer<typeof routes.UpdateHubSchema>;

interface HubRow {
  id: string; owner_id: string; hub_type: Hub["hubType"]; status: Hub["status"];
  name: string; slug: string; description: string; is_private: boolean;
  created_at: Date; updated_at: Date;
  members_ids: string[]; event_ids: string[];
}

/**
 * The columns of a hub aliased `h`, with its members and connected events as correlated subqueries
 * in the same statement (one round trip per page, no N+1). RLS on hub_members and hub_events runs as
 * the caller, so event ids of events the caller cannot see are left out.
 */
function hubColumns(tx: Tx): Fragment {
  return tx`h.id, h.owner_id, h.hub_type, h.status, h.name, h.slug, h.description, h.is_private, h.created_at, h.updated_at,
    array(select m.user_id::text from community.hub_members m where m.hub_id = h.id order by m.joined_at, m.user_id) as members_ids,
    array(select he.event_id::text from community.hub_events he where he.hub_id = h.id order by he.connected_at, he.event_id) as event_ids`;
}

export function toHub(row: HubRow): Hub {
  return {
    id: row.id,
    ownerId: row.owner_id,
    membersIDs: row.members_ids,
    categorySubEventIDs: row.event_ids,
    hubType: row.hub_type,
    status: row.status,
    name: row.name,
    slug: row.slug,
    description: row.description,
    isPrivate: row.is_private,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Column values of the writable fields that are present in `input`. */
function hubFieldColumns(input: Partial<CreateHub>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (input.name !== undefined) columns.name = input.name;
  if (input.slug !== undefined) columns.slug = input.slug;
  if (input.description !== undefined) columns.description = input.description;
  if (input.hubType !== undefined) columns.hub_type = input.hubType;
  if (input.status !== undefined) columns.status = input.status;
  if (input.isPrivate !== undefined) columns.is_private = input.isPrivate;
  return columns;
}

const notFound = () => new ApiError(404, "not_found", "No hub with this id is visible to you.");

const slugTaken = (error: unknown) =>
  renameConflict(error, "hubs_owner_slug_key", "slug_taken", "You already have a hub with this slug; choose another `slug`.");

const selectHub = (tx: Tx, hubId: string) => tx<HubRow[]>`select ${hubColumns(tx)} from community.hubs h where h.id = ${hubId}`;

async function readHub(tx: Tx, hubId: string): Promise<HubRow | undefined> {
  return (await selectHub(tx, hubId))[0];
}

/** Locks the hub for the owner's change; 404 when the caller cannot see it, 403 when it is someone else's. */
function lockForOwner(tx: Tx, hubId: string) {
  return tx`select community.lock_hub_for_owner(${hubId})`;
}

export const listHubs: RouteHandler<typeof routes.listHubs, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const paging = pagingOf(query);
  const rows = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => {
    const me = tx`(select core.current_user_id())`;
    const { after, orderAndLimit } = pageClauses(tx, "h", paging);
    const joined = tx`exists (select from community.hub_members m where m.hub_id = h.id and m.user_id = ${me})`;
    const scope = query.scope === "mine"
      ? tx`and (h.owner_id = ${me} or ${joined})`
      : query.scope === "discover"
      ? tx`and h.status = 'PUBLISHED' and not h.is_private and h.owner_id <> ${me} and not ${joined}`
      : tx``;
    return tx<(HubRow & { cursor_value: string })[]>`
      select ${hubColumns(tx)}, ${cursorValue(tx, "h", paging)}
      from community.hubs h
      where true
        ${scope}
        ${query.hubType ? tx`and h.hub_type = ${query.hubType}` : tx``}
        ${query.status ? tx`and h.status = ${query.status}` : tx``}
        ${query.search ? tx`and h.id in (select community.search_hub_ids(${containsPattern(query.search)}))` : tx``}
        ${after}
      ${orderAndLimit}`;
  }, { genericPlan: true });
  return c.json(toPage(rows, paging, toHub), 200);
};

export const createHub: RouteHandler<typeof routes.createHub, AppEnv> = async (c) => {
  const input = c.req.valid("json");
  // owner_id defaults to the caller (core.current_user_id()); without a slug, the database derives a
  // free one from the name (community.derive_slug).
  const columns = hubFieldColumns(input);
  // A new hub has no members and no connections, so the arrays need no subquery.
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<HubRow[]>`
    insert into community.hubs ${tx(columns)}
    returning id, owner_id, hub_type, status, name, slug, description, is_private, created_at, updated_at,
      '{}'::text[] as members_ids, '{}'::text[] as event_ids`).catch((error) => {
    throw slugTaken(error);
  });
  return c.json(toHub(row!), 201);
};

export const getHub: RouteHandler<typeof routes.getHub, AppEnv> = async (c) => {
  const { hubId } = c.req.valid("param");
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => selectHub(tx, hubId));
  if (!row) throw notFound();
  return c.json(toHub(row), 200);
};

export const updateHub: RouteHandler<typeof routes.updateHub, AppEnv> = async (c) => {
  const { hubId } = c.req.valid("param");
  const input: UpdateHub = c.req.valid("json");
  const row = await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
    // The owner's lock on the hub makes concurrent PUTs apply one after the other. The connection
    // functions take it themselves, first thing; a PUT of fields alone takes it here.
    if (input.connectEventIds !== undefined) {
      await tx`select community.connect_hub_events(${hubId}, ${input.connectEventIds}::text[]::core.object_id[])`;
    } else if (input.categorySubEventIDs !== undefined) {
      await tx`select community.replace_hub_events(${hubId}, ${input.categorySubEventIDs}::text[]::core.object_id[])`;
    } else {
      await lockForOwner(tx, hubId);
    }
    // Every successful PUT updates the row, so updatedAt moves also when only connections changed.
    const columns = hubFieldColumns(input);
    await tx`update community.hubs set ${Object.keys(columns).length > 0 ? tx(columns) : tx`hub_type = hub_type`}
             where id = ${hubId}`;
    return (await readHub(tx, hubId))!;
  }).catch((error) => {
    throw slugTaken(error);
  });
  return c.json(toHub(row), 200);
};

export const deleteHub: RouteHandler<typeof routes.deleteHub, AppEnv> = async (c) => {
  const { hubId } = c.req.valid("param");
  await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
    await lockForOwner(tx, hubId);
    await tx`delete from community.hubs where id = ${hubId}`;
  });
  return c.body(null, 204);
};

interface Standing { is_owner: boolean; is_member: boolean }

/** Whether the caller owns or is a member of a hub they can see; 404 when they cannot see it. */
async function standingIn(tx: Tx, hubId: string): Promise<Standing> {
  const [standing] = await tx<Standing[]>`
    select h.owner_id = core.current_user_id() as is_owner,
      exists (select from community.hub_members m where m.hub_id = h.id and m.user_id = core.current_user_id()) as is_member
    from community.hubs h where h.id = ${hubId}`;
  if (!standing) throw notFound();
  return standing;
}

export const joinHub: RouteHandler<typeof routes.joinHub, AppEnv> = async (c) => {
  const { hubId } = c.req.valid("param");
  const { row, joined } = await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
    const standing = await standingIn(tx, hubId);
    if (standing.is_owner) {
      throw new ApiError(409, "owner_cannot_join", "You own this hub; owners are not members of their own hubs.");
    }
    // Members are answered before inserting: the insert policy only admits joins of PUBLISHED public
    // hubs, and a member of a private hub joining again is a no-op, not a refusal.
    let joined = false;
    if (!standing.is_member) {
      const inserted = await tx`
        insert into community.hub_members (hub_id, user_id) values (${hubId}, core.current_user_id())
        on conflict do nothing returning hub_id`;
      joined = inserted.length > 0;
    }
    return { row: (await readHub(tx, hubId))!, joined };
  });
  return joined ? c.json(toHub(row), 201) : c.json(toHub(row), 200);
};

export const leaveHub: RouteHandler<typeof routes.leaveHub, AppEnv> = async (c) => {
  const { hubId } = c.req.valid("param");
  await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
    const standing = await standingIn(tx, hubId);
    if (standing.is_owner) {
      throw new ApiError(409, "owner_cannot_leave", "You own this hub and cannot leave it; delete it instead.");
    }
    const left = await tx`delete from community.hub_members where hub_id = ${hubId} and user_id = core.current_user_id() returning hub_id`;
    if (left.length === 0) throw new ApiError(404, "not_a_member", "You are not a member of this hub.");
  });
  return c.body(null, 204);
};

export const hubsRouter = createRouter()
  .openapi(routes.listHubs, listHubs)
  .openapi(routes.createHub, createHub)
  .openapi(routes.getHub, getHub)
  .openapi(routes.updateHub, updateHub)
  .openapi(routes.deleteHub, deleteHub)
  .openapi(routes.joinHub, joinHub)
  .openapi(routes.leaveHub, leaveHub);
