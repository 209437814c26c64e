import type { RouteHandler } from "@hono/zod-openapi";
import type { z } from "@hono/zod-openapi";
import { scopeOf } from "../../_shared/auth/principal.ts";
import type { Tx } from "../../_shared/db/database.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError, renameConflict } from "../../_shared/http/errors.ts";
import { containsPattern, cursorValue, pageClauses, pagingOf, toPage } from "../../_shared/http/listing.ts";
import { slugify } from "../../_shared/http/slug.ts";
import * as routes from "./routes.ts";

type Event = z.infer<typeof routes.EventSchema>;
type CreateEvent = z.infer<typeof routes.CreateEventSchema>;
type UpdateEvent = z.infer<typeof routes.UpdateEventSchema>;

interface EventRow {
  id: string; owner_id: string; name: string; slug: string; description: string;
  starts_at: Date; ends_at: Date; time_zone: string;
  venue_name: string | null; venue_address: z.infer<typeof routes.AddressSchema> | null;
  venue_lat: number | null; venue_lng: number | null;
  visibility: Event["visibility"]; status: Event["status"]; access_rules: Event["accessRules"];
  created_at: Date; updated_at: Date;
}

const EVENT_COLUMNS = `id, owner_id, name, slug, description, starts_at, ends_at, time_zone, venue_name,
  venue_address, venue_lat, venue_lng, visibility, status, access_rules, created_at, updated_at`;

export function toEvent(row: EventRow): Event {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
    timeZone: row.time_zone,
    venue: row.venue_name === null ? null : {
      name: row.venue_name,
      address: row.venue_address ?? {},
      coordinates: row.venue_lat === null || row.venue_lng === null ? null : { lat: row.venue_lat, lng: row.venue_lng },
    },
    visibility: row.visibility,
    status: row.status,
    accessRules: row.access_rules,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Column values of the writable fields that are present in `input`. */
function eventColumns(tx: Tx, input: Partial<CreateEvent>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (input.name !== undefined) columns.name = input.name;
  if (input.slug !== undefined) columns.slug = input.slug;
  if (input.description !== undefined) columns.description = input.description;
  if (input.startsAt !== undefined) columns.starts_at = input.startsAt;
  if (input.endsAt !== undefined) columns.ends_at = input.endsAt;
  if (input.timeZone !== undefined) columns.time_zone = input.timeZone;
  if (input.visibility !== undefined) columns.visibility = input.visibility;
  if (input.status !== undefined) columns.status = input.status;
  if (input.accessRules !== undefined) columns.access_rules = tx.json(input.accessRules);
  if (input.venue !== undefined) {
    columns.venue_name = input.venue?.name ?? null;
    columns.venue_address = input.venue ? tx.json(input.venue.address) : null;
    columns.venue_lat = input.venue?.coordinates?.lat ?? null;
    columns.venue_lng = input.venue?.coordinates?.lng ?? null;
  }
  return columns;
}

const slugTaken = (error: unknown) =>
  renameConflict(error, "events_owner_slug_key", "slug_taken", "You already have an event with this slug; choose another `slug`.");

/** After a write matched no row: 404 when the caller cannot see the event, 403 when it is someone else's. */
async function explainMissedWrite(tx: Tx, eventId: string): Promise<never> {
  const [visible] = await tx`select 1 from community.events where id = ${eventId}`;
  if (visible) throw new ApiError(403, "not_event_owner", "Only the event's owner may change or delete it.");
  throw new ApiError(404, "not_found", "No event with this id is visible to you.");
}

export const listEvents: RouteHandler<typeof routes.listEvents, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const paging = pagingOf(query);
  const rows = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => {
    const { after, orderAndLimit } = pageClauses(tx, "e", paging);
    return tx<(EventRow & { cursor_value: string })[]>`
      select ${tx.unsafe(EVENT_COLUMNS)}, ${cursorValue(tx, "e", paging)}
      from community.events e
      where (e.visibility <> 'unlisted' or e.owner_id = (select core.current_user_id()))
        ${query.scope === "mine" ? tx`and e.owner_id = (select core.current_user_id())` : tx``}
        ${query.status ? tx`and e.status = ${query.status}` : tx``}
        ${query.search ? tx`and e.id in (select community.search_event_ids(${containsPattern(query.search)}))` : tx``}
        ${after}
      ${orderAndLimit}`;
  });
  return c.json(toPage(rows, paging, toEvent), 200);
};

export const createEvent: RouteHandler<typeof routes.createEvent, AppEnv> = async (c) => {
  const input = c.req.valid("json");
  // owner_id defaults to the caller (core.current_user_id()).
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<EventRow[]>`
    insert into community.events ${tx({ ...eventColumns(tx, input), slug: input.slug ?? slugify(input.name, "event") })}
    returning ${tx.unsafe(EVENT_COLUMNS)}`).catch((error) => {
    throw slugTaken(error);
  });
  return c.json(toEvent(row!), 201);
};

export const getEvent: RouteHandler<typeof routes.getEvent, AppEnv> = async (c) => {
  const { eventId } = c.req.valid("param");
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<EventRow[]>`
    select ${tx.unsafe(EVENT_COLUMNS)} from community.events where id = ${eventId}`);
  if (!row) throw new ApiError(404, "not_found", "No event with this id is visible to you.");
  return c.json(toEvent(row), 200);
};

export const updateEvent: RouteHandler<typeof routes.updateEvent, AppEnv> = async (c) => {
  const { eventId } = c.req.valid("param");
  const input: UpdateEvent = c.req.valid("json");
  const row = await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
    const [updated] = await tx<EventRow[]>`
      update community.events set ${tx(eventColumns(tx, input))} where id = ${eventId}
      returning ${tx.unsafe(EVENT_COLUMNS)}`;
    return updated ?? explainMissedWrite(tx, eventId);
  }).catch((error) => {
    throw slugTaken(error);
  });
  return c.json(toEvent(row), 200);
};

export const deleteEvent: RouteHandler<typeof routes.deleteEvent, AppEnv> = async (c) => {
  const { eventId } = c.req.valid("param");
  await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
    const deleted = await tx`delete from community.events where id = ${eventId} returning id`;
    if (deleted.length === 0) await explainMissedWrite(tx, eventId);
  });
  return c.body(null, 204);
};

export const eventsRouter = createRouter()
  .openapi(routes.listEvents, listEvents)
  .openapi(routes.createEvent, createEvent)
  .openapi(routes.getEvent, getEvent)
  .openapi(routes.updateEvent, updateEvent)
  .openapi(routes.deleteEvent, deleteEvent);
