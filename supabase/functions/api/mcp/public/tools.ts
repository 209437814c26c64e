// The public MCP endpoint's first tools (read-only), each with the scopes it needs. Definitions
// (name, schemas, annotations, scopes) are data; implementations run as the person under RLS
// (scopeOf), so a tool sees exactly what that person's REST requests would.
import { z } from "zod";
import type { Principal } from "../../../_shared/auth/principal.ts";
import { scopeOf } from "../../../_shared/auth/principal.ts";
import type { Database, Tx } from "../../../_shared/db/database.ts";
import type { Config } from "../../../_shared/config.ts";
import { geocoderFor } from "../../../_shared/geocoding/provider.ts";

export interface ToolContext {
  db: Database;
  config: Config;
  principal: Principal;
}

export interface PublicTool<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** Every scope the tool needs; it is listed, and callable, only when the grant has them all. */
  scopes: readonly string[];
  inputSchema: I;
  run(input: z.infer<I>, context: ToolContext): Promise<unknown>;
}

const ObjectId = z.string().regex(/^[0-9a-f]{24}$/).describe("a 24-hex id");
const Take = z.number().int().min(1).max(50).default(20);

/** A hub's summary fields (the REST shape's scalars), aliased `h`. */
const hubFields = (tx: Tx) => tx`h.id, h.name, h.slug, h.hub_type as "hubType", h.status, h.description, h.is_private as "isPrivate", h.created_at as "createdAt"`;

function tool<I extends z.ZodObject>(definition: PublicTool<I>): PublicTool {
  return definition as unknown as PublicTool;
}

export const PUBLIC_TOOLS: readonly PublicTool[] = [
  tool({
    name: "list_events",
    title: "List events",
    description: "Events you can see (public ones, and all of yours), newest first; `search` matches name, slug or description.",
    scopes: ["events:read"],
    inputSchema: z.object({ search: z.string().min(1).max(200).optional(), take: Take }),
    run: async ({ search, take }, { db, principal }) => {
      const rows = await db.statement(scopeOf(principal), (tx) => tx<{ item: unknown }[]>`
        select community.event_json(e) as item from community.events e
        where (e.visibility <> 'unlisted' or e.owner_id = (select core.current_user_id()))
          ${search ? tx`and (e.name ilike ${`%${search.replace(/[\\%_]/g, "\\$&")}%`} or e.slug ilike ${`%${search.replace(/[\\%_]/g, "\\$&")}%`})` : tx``}
        order by e.created_at desc, e.id desc limit ${take}`);
      return { items: rows.map((r) => r.item) };
    },
  }),
  tool({
    name: "get_event",
    title: "Read an event",
    description: "One event by id, when you may see it.",
    scopes: ["events:read"],
    inputSchema: z.object({ eventId: ObjectId }),
    run: async ({ eventId }, { db, principal }) => {
      const [row] = await db.statement(scopeOf(principal), (tx) => tx<{ item: unknown }[]>`
        select community.event_json(e) as item from community.events e where e.id = ${eventId}`);
      return row ? row.item : { error: "not_found", message: "No event with this id is visible to you." };
    },
  }),
  tool({
    name: "list_hubs",
    title: "List hubs",
    description: "Hubs you can see, newest first.",
    scopes: ["hubs:read"],
    inputSchema: z.object({ take: Take }),
    run: async ({ take }, { db, principal }) => {
      const rows = await db.statement(scopeOf(principal), (tx) => tx`
        select ${hubFields(tx)} from community.hubs h order by h.created_at desc, h.id desc limit ${take}`);
      return { items: rows };
    },
  }),
  tool({
    name: "get_hub",
    title: "Read a hub",
    description: "One hub by id, when you may see it.",
    scopes: ["hubs:read"],
    inputSchema: z.object({ hubId: ObjectId }),
    run: async ({ hubId }, { db, principal }) => {
      const [row] = await db.statement(scopeOf(principal), (tx) => tx`
        select ${hubFields(tx)} from community.hubs h where h.id = ${hubId}`);
      return row ?? { error: "not_found", message: "No hub with this id is visible to you." };
    },
  }),
  tool({
    name: "autocomplete_venues",
    title: "Venue suggestions",
    description: "Places and event venues matching a text, for an event's venue.",
    scopes: ["venues:read"],
    inputSchema: z.object({ q: z.string().trim().min(2).max(200), take: z.number().int().min(1).max(20).default(5) }),
    run: async ({ q, take }, { db, config, principal }) => ({ items: await geocoderFor(config).suggest({ q, take }, { db, principal }) }),
  }),
];

export function toolByName(name: string): PublicTool | undefined {
  return PUBLIC_TOOLS.find((t) => t.name === name);
}
