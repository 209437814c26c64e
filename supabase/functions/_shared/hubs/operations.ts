// What can be done with hubs, for every surface. A hub is read with its members and connected events
// in one statement; owners change and delete their hubs under the hub's lock, and anyone who can see
// a published public hub may join it. RLS decides who sees what.
import type { z } from "@hono/zod-openapi";
import type { Fragment } from "postgres";
import type { Tx } from "../db/database.ts";
import { ApiError, renameConflict } from "../http/errors.ts";
import { containsPattern, cursorValue, pageClauses } from "../db/paging.ts";
import { pagingOf, toPage } from "../http/listing.ts";
import { noContent, ok, operation } from "../operations/operation.ts";
import type { CreateHubSchema, HubListQuery, HubSchema, UpdateHubSchema } from "./schemas.ts";

type Hub = z.output<typeof HubSchema>;
type CreateHub = z.output<typeof CreateHubSchema>;
type UpdateHub = z.output<typeof UpdateHubSchema>;

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

function toHub(row: HubRow): Hub {
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

const READ = ["hubs:read"] as const;
const WRITE = ["hubs:write"] as const;

export const listHubs = operation({
  name: "hubs.list",
  scopes: READ,
  async run({ db }, query: z.output<typeof HubListQuery>) {
    const paging = pagingOf(query);
    const rows = await db.statement((tx) => {
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
    return ok(toPage(rows, paging, toHub));
  },
});

export const createHub = operation({
  name: "hubs.create",
  scopes: WRITE,
  async run({ db }, input: CreateHub) {
    // owner_id defaults to the caller (core.current_user_id()); without a slug, the database derives a
    // free one from the name (community.derive_slug).
    const columns = hubFieldColumns(input);
    // A new hub has no members and no connections, so the arrays need no subquery.
    const [row] = await db.statement((tx) => tx<HubRow[]>`
      insert into community.hubs ${tx(columns)}
      returning id, owner_id, hub_type, status, name, slug, description, is_private, created_at, updated_at,
        '{}'::text[] as members_ids, '{}'::text[] as event_ids`).catch((error) => {
      throw slugTaken(error);
    });
    return ok(toHub(row!), 201);
  },
});

export const getHub = operation({
  name: "hubs.get",
  scopes: READ,
  async run({ db }, { hubId }: { hubId: string }) {
    const [row] = await db.statement((tx) => selectHub(tx, hubId));
    if (!row) throw notFound();
    return ok(toHub(row));
  },
});

export const updateHub = operation({
  name: "hubs.update",
  scopes: WRITE,
  async run({ db }, { hubId, changes }: { hubId: string; changes: UpdateHub }) {
    const row = await db.transaction(async (tx) => {
      // The owner's lock on the hub makes concurrent PUTs apply one after the other. The connection
      // functions take it themselves, first thing; a PUT of fields alone takes it here.
      if (changes.connectEventIds !== undefined) {
        await tx`select community.connect_hub_events(${hubId}, ${changes.connectEventIds}::text[]::core.object_id[])`;
      } else if (changes.categorySubEventIDs !== undefined) {
        await tx`select community.replace_hub_events(${hubId}, ${changes.categorySubEventIDs}::text[]::core.object_id[])`;
      } else {
        await lockForOwner(tx, hubId);
      }
      // Every successful PUT updates the row, so updatedAt moves also when only connections changed.
      const columns = hubFieldColumns(changes);
      await tx`update community.hubs set ${Object.keys(columns).length > 0 ? tx(columns) : tx`hub_type = hub_type`}
               where id = ${hubId}`;
      return (await readHub(tx, hubId))!;
    }).catch((error) => {
      throw slugTaken(error);
    });
    return ok(toHub(row));
  },
});

export const deleteHub = operation({
  name: "hubs.delete",
  scopes: WRITE,
  async run({ db }, { hubId }: { hubId: string }) {
    await db.transaction(async (tx) => {
      await lockForOwner(tx, hubId);
      await tx`delete from community.hubs where id = ${hubId}`;
    });
    return noContent();
  },
});

/** 201 when the caller joined now, 200 when they already were a member. */
export const joinHub = operation({
  name: "hubs.join",
  scopes: WRITE,
  async run({ db }, { hubId }: { hubId: string }) {
    const { row, joined } = await db.transaction(async (tx) => {
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
    return ok(toHub(row), joined ? 201 : 200);
  },
});

export const leaveHub = operation({
  name: "hubs.leave",
  scopes: WRITE,
  async run({ db }, { hubId }: { hubId: string }) {
    await db.transaction(async (tx) => {
      const standing = await standingIn(tx, hubId);
      if (standing.is_owner) {
        throw new ApiError(409, "owner_cannot_leave", "You own this hub and cannot leave it; delete it instead.");
      }
      const left = await tx`delete from community.hub_members where hub_id = ${hubId} and user_id = core.current_user_id() returning hub_id`;
      if (left.length === 0) throw new ApiError(404, "not_a_member", "You are not a member of this hub.");
    });
    return noContent();
  },
});
