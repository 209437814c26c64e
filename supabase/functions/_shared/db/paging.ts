// The SQL of a page (SPEC.md 4.2): the keyset condition after a cursor, ORDER BY / LIMIT / OFFSET
// and the cursor's sort value; what a page's parameters and envelope look like is http/listing.ts.
import type { Fragment } from "postgres";
import type { Tx } from "./database.ts";

const SORT_COLUMNS = { createdAt: "created_at", updatedAt: "updated_at" } as const;
export type Sort = keyof typeof SORT_COLUMNS;
export type Order = "asc" | "desc";

export interface Paging {
  take: number;
  page: number | null;
  sort: Sort;
  order: Order;
  after: { value: string; id: string } | null;
}

/** `%text%` for ILIKE, with the caller's `%`, `_` and `\` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * The keyset condition (after the cursor) and the ORDER BY / LIMIT / OFFSET of a page, for a table
 * aliased `alias` with columns created_at, updated_at and id. One more row than `take` is fetched
 * to know whether there is a next page. Rows must select `cursor_value` (see `cursorValue`).
 */
export function pageClauses(tx: Tx, alias: string, paging: Paging): { after: Fragment; orderAndLimit: Fragment } {
  const column = tx(`${alias}.${SORT_COLUMNS[paging.sort]}`);
  const id = tx(`${alias}.id`);
  const desc = paging.order === "desc";
  // `::text::timestamptz`, not `::timestamptz`: a parameter typed timestamptz goes through
  // postgres.js's Date serializer, which drops the microseconds, so the keyset would land inside
  // the millisecond and repeat (asc) or skip (desc) rows. As text, PostgreSQL parses it exactly.
  const after = paging.after
    ? desc
      ? tx`and (${column}, ${id}) < (${paging.after.value}::text::timestamptz, ${paging.after.id})`
      : tx`and (${column}, ${id}) > (${paging.after.value}::text::timestamptz, ${paging.after.id})`
    : tx``;
  // LIMIT is written into the statement (take is a validated 1-100, so at most 100 variants) and a
  // zero OFFSET is left out: as parameters, the planner cannot cost a generic plan, so it would plan
  // every execution again (which cost more than running the page). Deep offsets stay parameters.
  if (!Number.isInteger(paging.take) || paging.take < 1 || paging.take > 100) throw new Error(`take out of range: ${paging.take}`);
  const limit = tx.unsafe(String(paging.take + 1));
  const offset = paging.page ? (paging.page - 1) * paging.take : 0;
  const skip = offset > 0 ? tx`offset ${offset}` : tx``;
  const orderAndLimit = desc
    ? tx`order by ${column} desc, ${id} desc limit ${limit} ${skip}`
    : tx`order by ${column} asc, ${id} asc limit ${limit} ${skip}`;
  return { after, orderAndLimit };
}

/**
 * The sort column as exact text (microseconds kept), for the next cursor. The colons are quoted in
 * the format so the statement holds no `:name` (pgbench would take it for a variable in the bench).
 */
export function cursorValue(tx: Tx, alias: string, paging: Paging): Fragment {
  return tx`to_char(${tx(`${alias}.${SORT_COLUMNS[paging.sort]}`)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"') as cursor_value`;
}
