// Every row that belongs to some users, read as the database owner, for "the fuzzer changed
// nothing of theirs". Found from the catalog, so tables added later are covered without new code.
import type postgres from "postgres";

/** Rows as JSON text, sorted, by table (`schema.table`). */
export type UserRows = Record<string, string[]>;

const SCHEMAS = ["core", "community"];
const USERS_TABLE = "core.users";
/** How many foreign keys away from core.users a row may be and still be attributed to a user. */
const MAX_HOPS = 3;

interface ForeignKey {
  table: string;
  column: string;
  referencedTable: string;
  referencedColumn: string;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Who a row belongs to, as a SQL condition on `alias` that is true for rows of the users in $1:
 * - core.users: its own id;
 * - a table with columns referencing core.users (owner_id, user_id, ...): any of them;
 * - any other table (a link table such as hub_events): the owner of the row its first foreign
 *   key points to, since a link table names its container first (hub_id before event_id).
 * Null when a table's rows belong to nobody (e.g. the places data set).
 */
function ownedByCondition(table: string, alias: string, foreignKeys: ForeignKey[], hops = 0): string | null {
  if (table === USERS_TABLE) return `${alias}.id::text = any($1::text[])`;
  const own = foreignKeys.filter((fk) => fk.table === table);
  const toUsers = own.filter((fk) => fk.referencedTable === USERS_TABLE);
  if (toUsers.length > 0) return `(${toUsers.map((fk) => `${alias}.${quote(fk.column)}::text = any($1::text[])`).join(" or ")})`;
  if (hops >= MAX_HOPS) return null;
  for (const fk of own) {
    const parent = `p${hops + 1}`;
    const parentCondition = ownedByCondition(fk.referencedTable, parent, foreignKeys, hops + 1);
    if (parentCondition) {
      return `${alias}.${quote(fk.column)} in (select ${parent}.${quote(fk.referencedColumn)} from ${fk.referencedTable} ${parent} where ${parentCondition})`;
    }
  }
  return null;
}

/**
 * A reader of every row of the core and community schemas that belongs to `userIds`: one
 * statement, built once from the catalog, so it is cheap enough to run after every request.
 */
export async function userRowsReader(owner: postgres.Sql, userIds: string[]): Promise<() => Promise<UserRows>> {
  const tables = await owner<{ table: string }[]>`
    select c.oid::regclass::text as "table"
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any(${SCHEMAS}) and c.relkind in ('r', 'p')
    order by 1`;
  // Single-column foreign keys, in column order (so "the first foreign key" is well defined).
  const foreignKeys = await owner<ForeignKey[]>`
    select con.conrelid::regclass::text as "table", a.attname as "column",
           con.confrelid::regclass::text as "referencedTable", fa.attname as "referencedColumn"
    from pg_constraint con
    join pg_attribute a on a.attrelid = con.conrelid and a.attnum = con.conkey[1]
    join pg_attribute fa on fa.attrelid = con.confrelid and fa.attnum = con.confkey[1]
    join pg_namespace n on n.oid = con.connamespace
    where con.contype = 'f' and cardinality(con.conkey) = 1 and n.nspname = any(${SCHEMAS})
    order by con.conrelid, a.attnum`;
  const owned = tables.flatMap(({ table }) => {
    const condition = ownedByCondition(table, "t", foreignKeys);
    return condition ? [{ table, condition }] : [];
  });
  const statement = owned
    .map(({ table, condition }) => `select ${literal(table)} as table_name, to_jsonb(t)::text as row from ${table} t where ${condition}`)
    .join("\nunion all\n");
  return async () => {
    const rows = await owner.unsafe<{ table_name: string; row: string }[]>(statement, [userIds]);
    const byTable: UserRows = Object.fromEntries(owned.map(({ table }) => [table, [] as string[]]));
    for (const { table_name, row } of rows) byTable[table_name]!.push(row);
    for (const list of Object.values(byTable)) list.sort();
    return byTable;
  };
}

/** The rows `after` lacks (-) or adds (+) compared with `before`, one line each. */
export function rowChanges(before: UserRows, after: UserRows): string[] {
  const changes: string[] = [];
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = new Set(before[table] ?? []);
    const is = new Set(after[table] ?? []);
    for (const row of was) if (!is.has(row)) changes.push(`${table} - ${row}`);
    for (const row of is) if (!was.has(row)) changes.push(`${table} + ${row}`);
  }
  return changes;
}
