// The data set of the community benchmarks: 10,000 users, 100,000 hubs and 1,000,000 events, made in
// SQL (generate_series) so it takes seconds, not minutes. Names and descriptions draw from a
// vocabulary of 1,000 words, so one word matches about 1% of rows.
import postgres from "postgres";

export const SIZES = { users: 10_000, hubs: 100_000, events: 1_000_000, membersPerHub: 3 } as const;

const WORDS = [
  "art", "music", "crypto", "chain", "night", "summit", "festival", "meetup", "builders", "gallery", "dao", "mint",
  "collective", "studio", "lounge", "garden", "harbor", "rooftop", "techno", "jazz", "vinyl", "poetry", "coffee", "market",
];

/** Fills `databaseUrl` (already migrated) unless it holds the data set already. */
export async function ensureCommunityData(databaseUrl: string): Promise<{ created: boolean; seconds: number }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const started = performance.now();
  try {
    const [row] = await sql<{ events: number }[]>`select count(*)::int as events from community.events`;
    if (row!.events >= SIZES.events) return { created: false, seconds: 0 };
    const steps = [
      "truncate community.hub_events, community.hub_members, community.hubs, community.events, core.users cascade",
      // Bulk loads build trigram indexes faster afterwards than row by row.
      "drop index if exists community.events_search_text_idx, community.hubs_search_text_idx",
      `create temporary table vocabulary as
         select row_number() over () - 1 as n, w from (
           select unnest(array[${WORDS.map((w) => `'${w}'`).join(",")}]) as w
           union all select 'word' || g from generate_series(1, ${1000 - WORDS.length}) g) words`,
      ...[["short_phrases", 3], ["long_phrases", 10]].map(([table, words]) =>
        `create temporary table ${table} as
           select p.n, string_agg(v.w, ' ' order by i) as text
           from generate_series(0, 99999) p(n)
           cross join generate_series(1, ${words}) i
           join vocabulary v on v.n = abs(hashint8(p.n * 31 + i)) % 1000
           group by p.n`),
      `insert into core.users (email) select 'bench' || g || '@example.com' from generate_series(1, ${SIZES.users}) g`,
      "create temporary table user_ids as select row_number() over (order by id) as n, id from core.users",
      `insert into community.hubs (owner_id, hub_type, status, name, slug, description, is_private, created_at, updated_at)
         select u.id,
                (case when g % 3 = 0 then 'nftCollection' else 'group' end)::community.hub_type,
                (case when g % 10 = 0 then 'INCOMPLETE' else 'PUBLISHED' end)::community.publication_status,
                sp.text, 'hub-' || g, lp.text, g % 10 = 5,
                timestamptz '2025-01-01' + g * interval '5 minutes',
                timestamptz '2025-01-01' + g * interval '5 minutes' + (g % 1000) * interval '1 minute'
         from generate_series(1, ${SIZES.hubs}) g
         join user_ids u on u.n = 1 + g % ${SIZES.users}
         join short_phrases sp on sp.n = (g * 7) % 100000
         join long_phrases lp on lp.n = (g * 13) % 100000`,
      `insert into community.hub_members (hub_id, user_id)
         select h.id, u.id
         from (select id, row_number() over (order by id) as n from community.hubs) h
         cross join generate_series(1, ${SIZES.membersPerHub}) m
         join user_ids u on u.n = 1 + (h.n * 7 + m * 13) % ${SIZES.users}
         on conflict do nothing`,
      `insert into community.events (owner_id, name, slug, description, starts_at, ends_at, time_zone,
                                     venue_name, venue_address, venue_lat, venue_lng, visibility, status, created_at, updated_at)
         select u.id, sp.text, 'event-' || g, lp.text,
                t + interval '30 days', t + interval '30 days 4 hours', 'Europe/Berlin',
                'Venue ' || (g % 5000), '{"city": "Berlin", "country": "DE"}', 52.5 + (g % 100) / 1000.0, 13.4,
                (case when g % 20 = 0 then 'private' when g % 10 = 0 then 'unlisted' else 'public' end)::community.event_visibility,
                (case when g % 10 = 3 then 'INCOMPLETE' else 'PUBLISHED' end)::community.publication_status,
                t, t + (g % 5000) * interval '1 minute'
         from generate_series(1, ${SIZES.events}) g
         join user_ids u on u.n = 1 + g % ${SIZES.users}
         join short_phrases sp on sp.n = (g * 11) % 100000
         join long_phrases lp on lp.n = (g * 17) % 100000
         cross join lateral (select timestamptz '2025-01-01' + g * interval '30 seconds' as t) ts`,
      "create index events_search_text_idx on community.events using gin (search_text extensions.gin_trgm_ops)",
      "create index hubs_search_text_idx on community.hubs using gin (search_text extensions.gin_trgm_ops)",
      "vacuum analyze",
    ];
    // One statement at a time: each commits on its own, and VACUUM cannot run in a transaction.
    const reserved = await sql.reserve();
    try {
      await reserved`set maintenance_work_mem = '512MB'`;
      for (const step of steps) await reserved.unsafe(step);
    } finally {
      reserved.release();
    }
    return { created: true, seconds: Math.round((performance.now() - started) / 1000) };
  } finally {
    await sql.end();
  }
}
