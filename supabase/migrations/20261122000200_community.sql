-- Community: events, hubs (groups and NFT collections that contain events), hub membership,
-- hub ↔ event connections, and the places that venue autocomplete searches.
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
create table community.events (
  id           core.object_id primary key default core.new_object_id(),
  owner_id     core.object_id not null references core.users (id) on delete cascade,
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
  constraint events_ends_after_start check (ends_at >= starts_at),
  constraint events_coordinates_together check ((venue_lat is null) = (venue_lng is null)),
  constraint events_owner_slug_key unique (owner_id, slug)
);
create index events_created_at_idx on community.events (created_at desc, id desc);
create index events_updated_at_idx on community.events (updated_at desc, id desc);
create index events_owner_created_at_idx on community.events (owner_id, created_at desc, id desc);
create index events_search_text_idx on community.events using gin (search_text extensions.gin_trgm_ops);
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
  owner_id    core.object_id not null references core.users (id) on delete cascade,
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
               ) stored
);
create index places_label_trgm_idx on community.places using gist (lower(label) extensions.gist_trgm_ops);
create index places_name_prefix_idx on community.places (lower(name) text_pattern_ops);

alter table community.places enable row level security;
create policy places_select_everyone on community.places for select to anon, authenticated using (true);
grant select on community.places to anon, authenticated;
grant select, insert, update, delete on community.places to service_role;

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
