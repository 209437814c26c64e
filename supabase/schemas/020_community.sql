-- Community: events, hubs (groups and NFT collections that contain events), hub membership,
-- hub ↔ event connections, the places that venue autocomplete searches, events as the API returns
-- them (JSON built in SQL), and slugs derived from names.
--
-- What a caller sees is decided here, by RLS:
--   events  PUBLISHED + public or unlisted: everyone (unlisted ones are left out of listings by the
--           API, not hidden); private or INCOMPLETE: the owner only.
--   hubs    PUBLISHED and not private: everyone; otherwise the owner and the members.

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA community;

GRANT USAGE ON SCHEMA community TO anon;
GRANT USAGE ON SCHEMA community TO authenticated;
GRANT USAGE ON SCHEMA community TO service_role;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema community revoke all on tables from public;


CREATE TYPE community.event_visibility AS ENUM (
    'public',
    'unlisted',
    'private'
);


CREATE TYPE community.hub_type AS ENUM (
    'group',
    'nftCollection'
);


CREATE TYPE community.publication_status AS ENUM (
    'PUBLISHED',
    'INCOMPLETE'
);


-- Every id must name an event the caller can see; the error lists the ones that do not.
CREATE FUNCTION community.assert_visible_events(p_event_ids core.object_id[]) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION community.assert_visible_events(p_event_ids core.object_id[]) FROM PUBLIC;
GRANT ALL ON FUNCTION community.assert_visible_events(p_event_ids core.object_id[]) TO authenticated;


-- connectEventIds: additive and de-duplicated. Security invoker: RLS applies to every step, and
-- the hub row lock makes concurrent connects and replacements apply one after the other.
CREATE FUNCTION community.connect_hub_events(p_hub_id core.object_id, p_event_ids core.object_id[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION community.connect_hub_events(p_hub_id core.object_id, p_event_ids core.object_id[]) FROM PUBLIC;
GRANT ALL ON FUNCTION community.connect_hub_events(p_hub_id core.object_id, p_event_ids core.object_id[]) TO authenticated;


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
CREATE FUNCTION community.derive_slug() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $_$
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
  $_$;

REVOKE ALL ON FUNCTION community.derive_slug() FROM PUBLIC;


-- The visibility rule of events, written once: the select policy and search_event_ids use it. A pure
-- SQL expression of its arguments, so the planner inlines it; the caller's id is computed once per
-- statement by the policy's sub-select.
CREATE FUNCTION community.event_is_visible(p_status community.publication_status, p_visibility community.event_visibility, p_owner_id core.object_id, p_caller core.object_id) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    select (p_status = 'PUBLISHED' and p_visibility in ('public', 'unlisted')) or p_owner_id = p_caller
  $$;

REVOKE ALL ON FUNCTION community.event_is_visible(p_status community.publication_status, p_visibility community.event_visibility, p_owner_id core.object_id, p_caller core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION community.event_is_visible(p_status community.publication_status, p_visibility community.event_visibility, p_owner_id core.object_id, p_caller core.object_id) TO anon;
GRANT ALL ON FUNCTION community.event_is_visible(p_status community.publication_status, p_visibility community.event_visibility, p_owner_id core.object_id, p_caller core.object_id) TO authenticated;
GRANT ALL ON FUNCTION community.event_is_visible(p_status community.publication_status, p_visibility community.event_visibility, p_owner_id core.object_id, p_caller core.object_id) TO service_role;


-- IANA Area/Location names (and UTC); `at time zone` is the authority on which ones PostgreSQL
-- knows. Names without an area (localtime, posixrules, Factory, EST) are refused: they are aliases
-- of the server's settings or legacy. Immutable for a CHECK: the zone names only grow.
CREATE FUNCTION community.is_time_zone(p_zone text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO ''
    AS $_$
  begin
    if p_zone is null or (p_zone <> 'UTC' and p_zone !~ '^[A-Za-z]+(/[A-Za-z0-9_+-]+)+$') then
      return false;
    end if;
    perform now() at time zone p_zone;
    return true;
  exception when invalid_parameter_value then
    return false;
  end
  $_$;

REVOKE ALL ON FUNCTION community.is_time_zone(p_zone text) FROM PUBLIC;
GRANT ALL ON FUNCTION community.is_time_zone(p_zone text) TO anon;
GRANT ALL ON FUNCTION community.is_time_zone(p_zone text) TO authenticated;
GRANT ALL ON FUNCTION community.is_time_zone(p_zone text) TO service_role;


-- Events
-- owner_id defaults to the caller: the gateway does not learn the caller's id before its
-- statements run, so new rows are owned by whoever inserts them; the insert policy still refuses
-- any other owner.
CREATE TABLE community.events (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    owner_id core.object_id DEFAULT core.current_user_id() NOT NULL,
    name text NOT NULL,
    slug text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    starts_at timestamp with time zone NOT NULL,
    ends_at timestamp with time zone NOT NULL,
    time_zone text NOT NULL,
    venue_name text,
    venue_address jsonb,
    venue_lat double precision,
    venue_lng double precision,
    visibility community.event_visibility DEFAULT 'public'::community.event_visibility NOT NULL,
    status community.publication_status DEFAULT 'INCOMPLETE'::community.publication_status NOT NULL,
    access_rules jsonb DEFAULT '[]'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    search_text text GENERATED ALWAYS AS (((((name || ' '::text) || slug) || ' '::text) || description)) STORED,
    venue_key text GENERATED ALWAYS AS (lower(venue_name)) STORED COLLATE pg_catalog."C",
    CONSTRAINT events_access_rules_check CHECK (((jsonb_typeof(access_rules) = 'array'::text) AND (jsonb_array_length(access_rules) <= 20))),
    CONSTRAINT events_coordinates_together CHECK (((venue_lat IS NULL) = (venue_lng IS NULL))),
    CONSTRAINT events_description_check CHECK ((char_length(description) <= 10000)),
    CONSTRAINT events_ends_after_start CHECK ((ends_at >= starts_at)),
    CONSTRAINT events_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 200))),
    CONSTRAINT events_slug_check CHECK (((slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'::text) AND (char_length(slug) <= 120))),
    CONSTRAINT events_time_zone_check CHECK (community.is_time_zone(time_zone)),
    CONSTRAINT events_venue_address_check CHECK (((venue_address IS NULL) OR (jsonb_typeof(venue_address) = 'object'::text))),
    CONSTRAINT events_venue_lat_check CHECK (((venue_lat >= ('-90'::integer)::double precision) AND (venue_lat <= (90)::double precision))),
    CONSTRAINT events_venue_lng_check CHECK (((venue_lng >= ('-180'::integer)::double precision) AND (venue_lng <= (180)::double precision))),
    CONSTRAINT events_venue_name_check CHECK (((char_length(venue_name) >= 1) AND (char_length(venue_name) <= 200))),
    CONSTRAINT events_owner_slug_key UNIQUE (owner_id, slug),
    CONSTRAINT events_pkey PRIMARY KEY (id),
    CONSTRAINT events_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index events_created_at_idx on community.events (created_at desc, id desc);

create index events_owner_created_at_idx on community.events (owner_id, created_at desc, id desc);

create index events_search_text_idx on community.events using gin (search_text extensions.gin_trgm_ops);

create index events_updated_at_idx on community.events (updated_at desc, id desc);

create index events_venue_key_idx on community.events (venue_key, venue_lat, venue_lng, updated_at desc)
  where venue_key is not null and venue_lat is not null;

CREATE TRIGGER events_derive_slug BEFORE INSERT OR UPDATE OF slug ON community.events FOR EACH ROW EXECUTE FUNCTION community.derive_slug('event');

CREATE TRIGGER events_touch_updated_at BEFORE UPDATE ON community.events FOR EACH ROW EXECUTE FUNCTION core.touch_updated_at();

ALTER TABLE community.events ENABLE ROW LEVEL SECURITY;

create policy events_delete_owner on community.events
  for delete to authenticated
  using (owner_id = (select core.current_user_id()));

create policy events_insert_owner on community.events
  for insert to authenticated
  with check (owner_id = (select core.current_user_id()));

create policy events_select_visible on community.events
  for select to anon, authenticated
  using (community.event_is_visible(status, visibility, owner_id, (select core.current_user_id())));

create policy events_update_owner on community.events
  for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));

GRANT SELECT ON TABLE community.events TO anon;
GRANT SELECT,DELETE ON TABLE community.events TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community.events TO service_role;

GRANT INSERT(owner_id) ON TABLE community.events TO authenticated;

GRANT INSERT(name),UPDATE(name) ON TABLE community.events TO authenticated;

GRANT INSERT(slug),UPDATE(slug) ON TABLE community.events TO authenticated;

GRANT INSERT(description),UPDATE(description) ON TABLE community.events TO authenticated;

GRANT INSERT(starts_at),UPDATE(starts_at) ON TABLE community.events TO authenticated;

GRANT INSERT(ends_at),UPDATE(ends_at) ON TABLE community.events TO authenticated;

GRANT INSERT(time_zone),UPDATE(time_zone) ON TABLE community.events TO authenticated;

GRANT INSERT(venue_name),UPDATE(venue_name) ON TABLE community.events TO authenticated;

GRANT INSERT(venue_address),UPDATE(venue_address) ON TABLE community.events TO authenticated;

GRANT INSERT(venue_lat),UPDATE(venue_lat) ON TABLE community.events TO authenticated;

GRANT INSERT(venue_lng),UPDATE(venue_lng) ON TABLE community.events TO authenticated;

GRANT INSERT(visibility),UPDATE(visibility) ON TABLE community.events TO authenticated;

GRANT INSERT(status),UPDATE(status) ON TABLE community.events TO authenticated;

GRANT INSERT(access_rules),UPDATE(access_rules) ON TABLE community.events TO authenticated;


-- Inlinable (plain SQL, one expression), so selecting it costs no function call per row.
CREATE FUNCTION community.event_json(e community.events) RETURNS json
    LANGUAGE sql STABLE
    AS $$
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

REVOKE ALL ON FUNCTION community.event_json(e community.events) FROM PUBLIC;
GRANT ALL ON FUNCTION community.event_json(e community.events) TO authenticated;
GRANT ALL ON FUNCTION community.event_json(e community.events) TO service_role;


-- The visibility rule of hubs, written once (see community.event_is_visible).
CREATE FUNCTION community.hub_is_visible(p_status community.publication_status, p_is_private boolean, p_owner_id core.object_id, p_hub_id core.object_id, p_caller core.object_id, p_member_hub_ids core.object_id[]) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    select (p_status = 'PUBLISHED' and not p_is_private) or p_owner_id = p_caller or p_hub_id = any (p_member_hub_ids)
  $$;

REVOKE ALL ON FUNCTION community.hub_is_visible(p_status community.publication_status, p_is_private boolean, p_owner_id core.object_id, p_hub_id core.object_id, p_caller core.object_id, p_member_hub_ids core.object_id[]) FROM PUBLIC;
GRANT ALL ON FUNCTION community.hub_is_visible(p_status community.publication_status, p_is_private boolean, p_owner_id core.object_id, p_hub_id core.object_id, p_caller core.object_id, p_member_hub_ids core.object_id[]) TO anon;
GRANT ALL ON FUNCTION community.hub_is_visible(p_status community.publication_status, p_is_private boolean, p_owner_id core.object_id, p_hub_id core.object_id, p_caller core.object_id, p_member_hub_ids core.object_id[]) TO authenticated;
GRANT ALL ON FUNCTION community.hub_is_visible(p_status community.publication_status, p_is_private boolean, p_owner_id core.object_id, p_hub_id core.object_id, p_caller core.object_id, p_member_hub_ids core.object_id[]) TO service_role;


-- ISO 8601 in UTC with milliseconds, as JavaScript's toISOString() writes it.
CREATE FUNCTION community.iso_time(p_time timestamp with time zone) RETURNS text
    LANGUAGE sql STABLE
    AS $$ select to_char(p_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

REVOKE ALL ON FUNCTION community.iso_time(p_time timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION community.iso_time(p_time timestamp with time zone) TO authenticated;
GRANT ALL ON FUNCTION community.iso_time(p_time timestamp with time zone) TO service_role;


-- Locks the hub for its owner's change. Unknown or invisible → 404; someone else's → 403.
CREATE FUNCTION community.lock_hub_for_owner(p_hub_id core.object_id) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION community.lock_hub_for_owner(p_hub_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION community.lock_hub_for_owner(p_hub_id core.object_id) TO authenticated;


-- The hubs the caller is a member of, once per statement. Security definer so that the hubs policy
-- can ask without going through hub_members' own policy (which asks about hubs).
CREATE FUNCTION community.member_hub_ids() RETURNS core.object_id[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    return array(select hub_id from community.hub_members where user_id = core.current_user_id());
  end
  $$;

REVOKE ALL ON FUNCTION community.member_hub_ids() FROM PUBLIC;
GRANT ALL ON FUNCTION community.member_hub_ids() TO anon;
GRANT ALL ON FUNCTION community.member_hub_ids() TO authenticated;
GRANT ALL ON FUNCTION community.member_hub_ids() TO service_role;


-- categorySubEventIDs: the whole set. Connections to events the caller cannot see are kept: the
-- owner cannot name them, so a replacement must not silently drop them. Connecting first takes
-- the hub lock and checks the ids; then whatever the new set does not name goes.
CREATE FUNCTION community.replace_hub_events(p_hub_id core.object_id, p_event_ids core.object_id[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  begin
    perform community.connect_hub_events(p_hub_id, p_event_ids);
    delete from community.hub_events he
      where he.hub_id = p_hub_id
        and he.event_id <> all (p_event_ids)
        and exists (select from community.events e where e.id = he.event_id);
  end
  $$;

REVOKE ALL ON FUNCTION community.replace_hub_events(p_hub_id core.object_id, p_event_ids core.object_id[]) FROM PUBLIC;
GRANT ALL ON FUNCTION community.replace_hub_events(p_hub_id core.object_id, p_event_ids core.object_id[]) TO authenticated;


-- Search: ids matching a text, among the rows the caller may see
-- Under RLS the planner cannot use the trigram indexes for ILIKE (it is not leakproof, so it must
-- not run before the policy). These functions run the search as the owner, with the policies' own
-- visibility predicate, so the index is used and nothing invisible is returned; the API then reads
-- the rows through RLS as usual. `p_pattern` is an ILIKE pattern.
CREATE FUNCTION community.search_event_ids(p_pattern text) RETURNS SETOF core.object_id
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_caller core.object_id := core.current_user_id();
  begin
    return query
      select e.id from community.events e
      where e.search_text ilike p_pattern
        and community.event_is_visible(e.status, e.visibility, e.owner_id, v_caller);
  end
  $$;

REVOKE ALL ON FUNCTION community.search_event_ids(p_pattern text) FROM PUBLIC;
GRANT ALL ON FUNCTION community.search_event_ids(p_pattern text) TO anon;
GRANT ALL ON FUNCTION community.search_event_ids(p_pattern text) TO authenticated;
GRANT ALL ON FUNCTION community.search_event_ids(p_pattern text) TO service_role;


CREATE FUNCTION community.search_hub_ids(p_pattern text) RETURNS SETOF core.object_id
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION community.search_hub_ids(p_pattern text) FROM PUBLIC;
GRANT ALL ON FUNCTION community.search_hub_ids(p_pattern text) TO anon;
GRANT ALL ON FUNCTION community.search_hub_ids(p_pattern text) TO authenticated;
GRANT ALL ON FUNCTION community.search_hub_ids(p_pattern text) TO service_role;


-- "Berlin Web3 Night!" -> "berlin-web3-night" (accents folded, at most 120 characters)
CREATE FUNCTION community.slugify(p_name text, p_fallback text) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
    select coalesce(nullif(rtrim(left(trim(both '-' from
      pg_catalog.regexp_replace(lower(pg_catalog.regexp_replace(normalize(p_name, NFKD), '[\u0300-\u036f]', '', 'g')), '[^a-z0-9]+', '-', 'g')),
      120), '-'), ''), p_fallback)
  $$;

REVOKE ALL ON FUNCTION community.slugify(p_name text, p_fallback text) FROM PUBLIC;
GRANT ALL ON FUNCTION community.slugify(p_name text, p_fallback text) TO authenticated;
GRANT ALL ON FUNCTION community.slugify(p_name text, p_fallback text) TO service_role;


-- Venue suggestions (GET /api/v3/adresses/autocomplete)
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
CREATE FUNCTION community.suggest_venues(p_text text, p_take integer, p_tsquery text, p_first_word text) RETURNS TABLE(source text, name text, region text, country_code text, country text, address jsonb, lat double precision, lng double precision)
    LANGUAGE plpgsql STABLE
    SET search_path TO ''
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
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

REVOKE ALL ON FUNCTION community.suggest_venues(p_text text, p_take integer, p_tsquery text, p_first_word text) FROM PUBLIC;
GRANT ALL ON FUNCTION community.suggest_venues(p_text text, p_take integer, p_tsquery text, p_first_word text) TO authenticated;
GRANT ALL ON FUNCTION community.suggest_venues(p_text text, p_take integer, p_tsquery text, p_first_word text) TO service_role;


-- Hub ↔ event connections (categorySubEventIDs)
CREATE TABLE community.hub_events (
    hub_id core.object_id NOT NULL,
    event_id core.object_id NOT NULL,
    connected_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT hub_events_pkey PRIMARY KEY (hub_id, event_id),
    CONSTRAINT hub_events_event_id_fkey FOREIGN KEY (event_id) REFERENCES community.events(id) ON DELETE CASCADE
);

create index hub_events_event_id_idx on community.hub_events (event_id);

ALTER TABLE community.hub_events ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE community.hub_events TO anon;
GRANT SELECT,DELETE ON TABLE community.hub_events TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community.hub_events TO service_role;

GRANT INSERT(hub_id) ON TABLE community.hub_events TO authenticated;

GRANT INSERT(event_id) ON TABLE community.hub_events TO authenticated;


CREATE TABLE community.hub_members (
    hub_id core.object_id NOT NULL,
    user_id core.object_id NOT NULL,
    joined_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT hub_members_pkey PRIMARY KEY (hub_id, user_id),
    CONSTRAINT hub_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index hub_members_user_id_idx on community.hub_members (user_id, hub_id);

ALTER TABLE community.hub_members ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE community.hub_members TO anon;
GRANT SELECT,DELETE ON TABLE community.hub_members TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community.hub_members TO service_role;

GRANT INSERT(hub_id) ON TABLE community.hub_members TO authenticated;

GRANT INSERT(user_id) ON TABLE community.hub_members TO authenticated;


-- Hubs and members
CREATE TABLE community.hubs (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    owner_id core.object_id DEFAULT core.current_user_id() NOT NULL,
    hub_type community.hub_type NOT NULL,
    status community.publication_status DEFAULT 'INCOMPLETE'::community.publication_status NOT NULL,
    name text NOT NULL,
    slug text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    is_private boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    search_text text GENERATED ALWAYS AS (((((name || ' '::text) || slug) || ' '::text) || description)) STORED,
    CONSTRAINT hubs_description_check CHECK ((char_length(description) <= 10000)),
    CONSTRAINT hubs_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 200))),
    CONSTRAINT hubs_slug_check CHECK (((slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'::text) AND (char_length(slug) <= 120))),
    CONSTRAINT hubs_owner_slug_key UNIQUE (owner_id, slug),
    CONSTRAINT hubs_pkey PRIMARY KEY (id),
    CONSTRAINT hubs_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index hubs_created_at_idx on community.hubs (created_at desc, id desc);

create index hubs_owner_created_at_idx on community.hubs (owner_id, created_at desc, id desc);

create index hubs_search_text_idx on community.hubs using gin (search_text extensions.gin_trgm_ops);

create index hubs_updated_at_idx on community.hubs (updated_at desc, id desc);

CREATE TRIGGER hubs_derive_slug BEFORE INSERT OR UPDATE OF slug ON community.hubs FOR EACH ROW EXECUTE FUNCTION community.derive_slug('hub');

CREATE TRIGGER hubs_touch_updated_at BEFORE UPDATE ON community.hubs FOR EACH ROW EXECUTE FUNCTION core.touch_updated_at();

ALTER TABLE community.hubs ENABLE ROW LEVEL SECURITY;

create policy hubs_delete_owner on community.hubs
  for delete to authenticated
  using (owner_id = (select core.current_user_id()));

create policy hubs_insert_owner on community.hubs
  for insert to authenticated
  with check (owner_id = (select core.current_user_id()));

create policy hubs_select_visible on community.hubs
  for select to anon, authenticated
  using (community.hub_is_visible(status, is_private, owner_id, id, (select core.current_user_id()), (select community.member_hub_ids())));

create policy hubs_update_owner on community.hubs
  for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));

GRANT SELECT ON TABLE community.hubs TO anon;
GRANT SELECT,DELETE ON TABLE community.hubs TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community.hubs TO service_role;

GRANT INSERT(owner_id) ON TABLE community.hubs TO authenticated;

GRANT INSERT(hub_type),UPDATE(hub_type) ON TABLE community.hubs TO authenticated;

GRANT INSERT(status),UPDATE(status) ON TABLE community.hubs TO authenticated;

GRANT INSERT(name),UPDATE(name) ON TABLE community.hubs TO authenticated;

GRANT INSERT(slug),UPDATE(slug) ON TABLE community.hubs TO authenticated;

GRANT INSERT(description),UPDATE(description) ON TABLE community.hubs TO authenticated;

GRANT INSERT(is_private),UPDATE(is_private) ON TABLE community.hubs TO authenticated;


-- Places: the open data set venue autocomplete searches (loaded by scripts/lib/places.ts)
CREATE TABLE community.places (
    id bigint NOT NULL,
    name text NOT NULL,
    region text,
    country_code text NOT NULL,
    country text,
    lat double precision NOT NULL,
    lng double precision NOT NULL,
    source text DEFAULT 'geonames'::text NOT NULL,
    label text GENERATED ALWAYS AS ((((name || COALESCE((', '::text || region), ''::text)) || ', '::text) || COALESCE(country, country_code))) STORED,
    prominence integer DEFAULT 0 NOT NULL,
    CONSTRAINT places_country_code_check CHECK ((country_code ~ '^[A-Z]{2}$'::text)),
    CONSTRAINT places_lat_check CHECK (((lat >= ('-90'::integer)::double precision) AND (lat <= (90)::double precision))),
    CONSTRAINT places_lng_check CHECK (((lng >= ('-180'::integer)::double precision) AND (lng <= (180)::double precision))),
    CONSTRAINT places_prominence_check CHECK ((prominence >= 0)),
    CONSTRAINT places_pkey PRIMARY KEY (id)
);

ALTER TABLE community.places ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME community.places_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

create index places_name_initials3_idx on community.places
  ((left(lower(name), 3) collate "C"), prominence desc, char_length(name), id) include (country_code, name);

create index places_name_initials_idx on community.places
  ((left(lower(name), 2) collate "C"), prominence desc, char_length(name), id) include (country_code, name);

create index places_name_prefix_idx on community.places ((lower(name) collate "C"))
  include (id, name, prominence, country_code);

create index places_words_idx on community.places
  using gin (to_tsvector('simple'::regconfig, label || ' ' || country_code));

ALTER TABLE community.places ENABLE ROW LEVEL SECURITY;

create policy places_select_everyone on community.places for select to anon, authenticated using (true);

GRANT SELECT ON TABLE community.places TO anon;
GRANT SELECT ON TABLE community.places TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community.places TO service_role;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY community.hub_events
    ADD CONSTRAINT hub_events_hub_id_fkey FOREIGN KEY (hub_id) REFERENCES community.hubs(id) ON DELETE CASCADE;

create policy hub_events_delete_hub_owner on community.hub_events
  for delete to authenticated
  using (exists (select from community.hubs h where h.id = hub_id and h.owner_id = (select core.current_user_id())));

create policy hub_events_insert_hub_owner on community.hub_events
  for insert to authenticated
  with check (
    exists (select from community.hubs h where h.id = hub_id and h.owner_id = (select core.current_user_id()))
    and exists (select from community.events e where e.id = event_id)
  );

create policy hub_events_select_visible on community.hub_events
  for select to anon, authenticated
  using (
    exists (select from community.hubs h where h.id = hub_id)
    and exists (select from community.events e where e.id = event_id)
  );

ALTER TABLE ONLY community.hub_members
    ADD CONSTRAINT hub_members_hub_id_fkey FOREIGN KEY (hub_id) REFERENCES community.hubs(id) ON DELETE CASCADE;

create policy hub_members_delete_self_or_owner on community.hub_members
  for delete to authenticated
  using (
    user_id = (select core.current_user_id())
    or exists (select from community.hubs h where h.id = hub_id and h.owner_id = (select core.current_user_id()))
  );

create policy hub_members_insert_self_or_owner on community.hub_members
  for insert to authenticated
  with check (
    (user_id = (select core.current_user_id())
      and exists (select from community.hubs h where h.id = hub_id and h.status = 'PUBLISHED' and not h.is_private))
    or exists (select from community.hubs h where h.id = hub_id and h.owner_id = (select core.current_user_id()))
  );

create policy hub_members_select_visible_hub on community.hub_members
  for select to anon, authenticated
  using (exists (select from community.hubs h where h.id = hub_id));

