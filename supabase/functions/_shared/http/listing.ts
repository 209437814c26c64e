// Listing parameters and envelope of SPEC.md 4.2, shared by every list operation (the SQL of a
// page, its keyset and ORDER BY, is db/paging.ts).
import { z } from "@hono/zod-openapi";
import type { Order, Paging, Sort } from "../db/paging.ts";
import { ApiError } from "./errors.ts";
import { ObjectId } from "./openapi.ts";
import { type RefusedParameter, refuseUnknownParameters } from "./unknown-parameters.ts";

/** Parameters that look plausible but are not ours get a code and a message that says what to do. */
const REFUSED_PARAMETERS: Record<string, RefusedParameter> = {
  limit: { code: "limit_not_supported", message: "`limit` is not a parameter; use `take` (1-100, default 20)." },
  private: {
    code: "private_not_supported",
    message: "Do not send `private`; omit it and the access rules for your key's owner apply automatically.",
  },
};

/** The query parameters of every list operation, plus the operation's own filters. */
export function listQuerySchema<F extends z.ZodRawShape>(filters: F) {
  const shape = {
    take: z.coerce.number().int().min(1).max(100).default(20)
      .openapi({ example: 20 })
      .describe("Items per page, 1-100. `limit` is not a parameter."),
    page: z.coerce.number().int().min(1).max(10_000).optional()
      .describe("1-based page number (offset paging). For deep pages prefer `cursor`."),
    cursor: z.string().min(1).max(512).optional()
      .describe("`nextCursor` of the previous page (keyset paging), with the same `sort` and `order`. Not combinable with `page`."),
    sort: z.enum(["createdAt", "updatedAt"]).default("createdAt").describe("The instant items are ordered by (ties by id)"),
    order: z.enum(["asc", "desc"]).default("desc").describe("asc: oldest first; desc: newest first"),
    search: z.string().trim().min(1).max(200).optional()
      .describe("Case-insensitive substring of name, slug or description."),
    ...filters,
  };
  return z
    .object(shape)
    .catchall(z.unknown())
    .superRefine((query, ctx) => {
      refuseUnknownParameters(query, shape, REFUSED_PARAMETERS, ctx);
      if (query.cursor !== undefined && query.page !== undefined) {
        ctx.addIssue({ code: "custom", path: ["cursor"], message: "send `cursor` or `page`, not both", params: { code: "cursor_with_page" } });
      }
      // Always, even when another parameter failed (zod skips refinements after an aborting issue
      // by default): `private=false&sort=x` must still say private_not_supported, as `limit` does.
    }, { when: () => true });
}

interface CursorPayload {
  s: Sort;
  o: Order;
  v: string;
  i: string;
}

/**
 * Exactly the form `cursorValue` issues (UTC, microseconds) and a real calendar instant. Date.parse
 * alone let through values PostgreSQL refuses ("1", "2026-02-30..."): a forged cursor must be a
 * 400, never reach the database.
 */
function isCursorTime(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(value)) return false;
  const millis = `${value.slice(0, 23)}Z`;
  const parsed = Date.parse(millis);
  return !Number.isNaN(parsed) && new Date(parsed).toISOString() === millis;
}

const invalidCursor = (why: string) => new ApiError(400, "invalid_cursor", `The cursor is not valid here: ${why}.`);

function decodeCursor(cursor: string, sort: Sort, order: Order): { value: string; id: string } {
  let payload: CursorPayload;
  try {
    payload = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0))));
  } catch {
    throw invalidCursor("it is not a cursor this API issued");
  }
  // Ids are 24-hex object ids, or the decimal identity ids of append-only records (sponsorship).
  const validId = ObjectId.safeParse(payload?.i).success || (typeof payload?.i === "string" && /^[1-9][0-9]{0,17}$/.test(payload.i));
  if (typeof payload?.v !== "string" || !validId || !isCursorTime(payload.v)) {
    throw invalidCursor("it is not a cursor this API issued");
  }
  if (payload.s !== sort || payload.o !== order) throw invalidCursor(`it was issued for sort=${payload.s}&order=${payload.o}`);
  return { value: payload.v, id: payload.i };
}

function encodeCursor(payload: CursorPayload): string {
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function pagingOf(query: { take: number; page?: number; cursor?: string; sort: Sort; order: Order }): Paging {
  return {
    take: query.take,
    sort: query.sort,
    order: query.order,
    page: query.cursor ? null : (query.page ?? 1),
    after: query.cursor ? decodeCursor(query.cursor, query.sort, query.order) : null,
  };
}

export interface PageEnvelope<T> {
  items: T[];
  take: number;
  page: number | null;
  nextCursor: string | null;
  hasMore: boolean;
}

export function toPage<R extends { id: string; cursor_value: string }, T>(rows: R[], paging: Paging, toItem: (row: R) => T): PageEnvelope<T> {
  const hasMore = rows.length > paging.take;
  const pageRows = hasMore ? rows.slice(0, paging.take) : rows;
  const last = pageRows.at(-1);
  return {
    items: pageRows.map(toItem),
    take: paging.take,
    page: paging.page,
    nextCursor: hasMore && last ? encodeCursor({ s: paging.sort, o: paging.order, v: last.cursor_value, i: last.id }) : null,
    hasMore,
  };
}

/** The page envelope as JSON text, for items the database already serialised (an `item` column). */
export function toJsonPage(rows: { item: string; id: string; cursor_value: string }[], paging: Paging): string {
  const page = toPage(rows, paging, (row) => row.item);
  return `{"items":[${page.items.join(",")}],"take":${page.take},"page":${page.page},` +
    `"nextCursor":${JSON.stringify(page.nextCursor)},"hasMore":${page.hasMore}}`;
}

/** The OpenAPI schema of a page of `item`. */
export function pageSchema<T extends z.ZodTypeAny>(item: T, name: string) {
  return z
    .object({
      items: z.array(item).describe("This page's items, in the requested order"),
      take: z.number().int().describe("The page size asked for (`take`)"),
      page: z.number().int().nullable().describe("The page number in offset paging; null when paging by cursor"),
      nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
      hasMore: z.boolean().describe("Whether another page follows"),
    })
    .openapi(name)
    .describe("One page of a list");
}

