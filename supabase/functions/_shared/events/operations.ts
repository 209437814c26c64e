// What can be done with events, for every surface. Events are serialised by the database
// (community.event_json) and answered as that JSON text; RLS decides who sees and changes what.
import type { z } from "@hono/zod-openapi";
import type { Tx } from "../db/database.ts";
import { ApiError, renameConflict } from "../http/errors.ts";
import { containsPattern, cursorValue, pageClauses } from "../db/paging.ts";
import { pagingOf, toJsonPage } from "../http/listing.ts";
import { JsonText, noContent, ok, operation } from "../operations/operation.ts";
import type { CreateEventSchema, EventListQuery, UpdateEventSchema } from "./schemas.ts";

type CreateEvent = z.output<typeof CreateEventSchema>;
type UpdateEvent = z.output<typeof UpdateEventSchema>;

/** An event as JSON text, built by community.event_json (the shape of EventSchema). */
interface EventJsonRow {
  item: string;
}

/**
 * The select-list item that returns a row as an EventJsonRow: `e` where the query aliases the table,
 * `events` in INSERT/UPDATE ... RETURNING (postgres.js's column helpers need the table unaliased),
 * `page.e` for the whole-row column of a page subquery.
 */
const eventJson = (row: "e" | "events" | "page.e") => `community.event_json(${row})::text as item`;

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

const notVisible = () => new ApiError(404, "not_found", "No event with this id is visible to you.");

/** After a write matched no row: 404 when the caller cannot see the event, 403 when it is someone else's. */
async function explainMissedWrite(tx: Tx, eventId: string): Promise<never> {
  const [visible] = await tx`select 1 from community.events where id = ${eventId}`;
  if (visible) throw new ApiError(403, "not_event_owner", "Only the event's owner may change or delete it.");
  throw notVisible();
}

const READ = ["events:read"] as const;
const WRITE = ["events:write"] as const;

export const listEvents = operation({
  name: "events.list",
  scopes: READ,
  async run({ db }, query: z.output<typeof EventListQuery>) {
    const paging = pagingOf(query);
    const rows = await db.statement((tx) => {
      const { after, orderAndLimit } = pageClauses(tx, "e", paging);
      // The JSON is built outside the page's subquery, so the rows an OFFSET skips are never serialised.
      return tx<(EventJsonRow & { id: string; cursor_value: string })[]>`
        select ${tx.unsafe(eventJson("page.e"))}, page.id, page.cursor_value
        from (
          select e, e.id, ${cursorValue(tx, "e", paging)}
          from community.events e
          where (e.visibility <> 'unlisted' or e.owner_id = (select core.current_user_id()))
            -- NFT \`view\` rules: listed for holders with a recent satisfying read (never a chain call here).
            and (e.access_rules = '[]'::jsonb or checkin.may_view_in_lists(e.id, e.owner_id, e.access_rules))
            ${query.scope === "mine" ? tx`and e.owner_id = (select core.current_user_id())` : tx``}
            ${query.status ? tx`and e.status = ${query.status}` : tx``}
            ${query.search ? tx`and e.id in (select community.search_event_ids(${containsPattern(query.search)}))` : tx``}
            ${after}
          ${orderAndLimit}
        ) page`;
    }, { genericPlan: true });
    return ok(new JsonText(toJsonPage(rows, paging)));
  },
});

export const createEvent = operation({
  name: "events.create",
  scopes: WRITE,
  async run({ db }, input: CreateEvent) {
    // owner_id defaults to the caller (core.current_user_id()); without a slug, the database derives a
    // free one from the name (community.derive_slug).
    const [row] = await db.statement((tx) => tx<EventJsonRow[]>`
      insert into community.events ${tx(eventColumns(tx, input))}
      returning ${tx.unsafe(eventJson("events"))}`).catch((error) => {
      throw slugTaken(error);
    });
    return ok(new JsonText(row!.item), 201);
  },
});

export const getEvent = operation({
  name: "events.get",
  scopes: READ,
  async run({ db }, { eventId }: { eventId: string }) {
    const [row] = await db.statement((tx) => tx<EventJsonRow[]>`
      select ${tx.unsafe(eventJson("e"))} from community.events e where e.id = ${eventId}`);
    if (!row) throw notVisible();
    return ok(new JsonText(row.item));
  },
});

export const updateEvent = operation({
  name: "events.update",
  scopes: WRITE,
  async run({ db }, { eventId, changes }: { eventId: string; changes: UpdateEvent }) {
    const row = await db.transaction(async (tx) => {
      const [updated] = await tx<EventJsonRow[]>`
        update community.events set ${tx(eventColumns(tx, changes))} where id = ${eventId}
        returning ${tx.unsafe(eventJson("events"))}`;
      return updated ?? explainMissedWrite(tx, eventId);
    }).catch((error) => {
      throw slugTaken(error);
    });
    return ok(new JsonText(row.item));
  },
});

export const deleteEvent = operation({
  name: "events.delete",
  scopes: WRITE,
  async run({ db }, { eventId }: { eventId: string }) {
    await db.transaction(async (tx) => {
      const deleted = await tx`delete from community.events where id = ${eventId} returning id`;
      if (deleted.length === 0) await explainMissedWrite(tx, eventId);
    });
    return noContent();
  },
});
