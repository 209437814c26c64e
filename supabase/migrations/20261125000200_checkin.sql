-- Check-in: event settings, staff, reservations (RSVP with capacity, approval and a waitlist),
-- tickets (a version per reservation: re-issuing invalidates the old QR code), door scans (entry and
-- exit, online and offline batches, first scan wins), NFC bracelets (plain UIDs and NTAG 424 SUN
-- read counters), NFT access evidence, and the tokens each admission claims.
--
-- Postgres decides every rule:
--   capacity   reservations of an event are decided under its settings row's lock (checkin.lock_event):
--              concurrent reservations queue there, so the seats are never over-given; cancelling or
--              declining promotes the oldest waitlisted reservation in the same transaction;
--   one entry  a scan changes its reservation under the reservation's row lock: two scanners racing
--              on one ticket admit once, the other is told `already_inside`;
--   who scans  the event's owner and the staff the owner adds (role `checker`), nobody else;
--   one token  an admission claims the tokens that satisfied the event's checkIn rule
--   one person (checkin.token_claims, unique per event and token): the same NFT cannot admit two people.
--   replays    a scan's (device, nonce) is recorded once: an offline batch uploaded twice, or a
--              retried request, answers the first outcome; a SUN counter not above the bracelet's
--              last one is refused.
-- Chain reads happen in the gateway, between statements: a scan or a reservation whose event has NFT
-- rules answers `needs_holdings` with the addresses to read, and the gateway calls again with the
-- evidence (the reads it made), which is stored with the reservation and the scan and kept briefly
-- in checkin.holdings (what `view` rules read in listings: never a chain call inside a list).
-- The functions trust that evidence: like every function here, they are for the gateway, and the
-- schema is not exposed through PostgREST.

-- ============================================================================================
-- Schema and privileges
-- ============================================================================================
create schema checkin;
revoke all on schema checkin from public;
grant usage on schema checkin to authenticated;
alter default privileges in schema checkin revoke all on tables from public;

-- How long a holdings read decides `register` and `checkIn` (a transfer after the read is seen by the
-- next read after this), and how long it still decides `view` in listings.
create function checkin.holdings_decide_seconds() returns integer language sql immutable as $$ select 15 $$;
create function checkin.holdings_view_seconds() returns integer language sql immutable as $$ select 86400 $$;

-- ============================================================================================
-- Settings and staff
-- ============================================================================================
-- No row: no capacity, no approval, waitlist on, registration always open.
create table checkin.event_settings (
  event_id              core.object_id primary key references community.events (id) on delete cascade,
  capacity              integer check (capacity between 1 and 1000000),
  approval_required     boolean not null default false,
  waitlist_enabled      boolean not null default true,
  registration_opens_at  timestamptz,
  registration_closes_at timestamptz,
  updated_at            timestamptz not null default now(),
  check (registration_opens_at is null or registration_closes_at is null or registration_opens_at < registration_closes_at)
);
alter table checkin.event_settings enable row level security; -- definer functions only

create table checkin.staff (
  event_id   core.object_id not null references community.events (id) on delete cascade,
  user_id    core.object_id not null references core.users (id) on delete cascade,
  role       text not null default 'checker' check (role = 'checker'),
  added_at   timestamptz not null default now(),
  primary key (event_id, user_id)
);
create index staff_user_idx on checkin.staff (user_id);
alter table checkin.staff enable row level security; -- definer functions only

-- Whether the caller runs the door of `p_event_id`: its owner, or staff the owner added.
create function checkin.may_scan(p_event_id core.object_id) returns boolean
  language sql stable security definer
  set search_path = ''
  as $$
    select exists (select from community.events e where e.id = p_event_id and e.owner_id = core.current_user_id())
        or exists (select from checkin.staff s where s.event_id = p_event_id and s.user_id = core.current_user_id())
  $$;

-- The event's owner or 404/403: the host's own actions (settings, staff, decisions).
create function checkin.require_owner(p_event_id core.object_id) returns void
  language plpgsql stable security definer
  set search_path = ''
  as $$
  declare
    v_event record;
  begin
    select e.owner_id, e.status, e.visibility into v_event from community.events e where e.id = p_event_id;
    if v_event.owner_id is null or not (checkin.may_scan(p_event_id)
        or community.event_is_visible(v_event.status, v_event.visibility, v_event.owner_id, core.current_user_id())) then
      raise exception 'no event % is visible to you', p_event_id using errcode = 'PT404', hint = 'event_not_found';
    end if;
    if v_event.owner_id <> core.current_user_id() then
      raise exception 'only the event''s owner may do this' using errcode = 'PT403', hint = 'not_event_owner';
    end if;
  end
  $$;

-- The owner or staff (true), or 404/403: the door's actions (scans, bracelets, attendee lists). A
-- boolean so a listing can use it as its first condition (evaluated once, before any row).
create function checkin.require_staff(p_event_id core.object_id) returns boolean
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    if checkin.may_scan(p_event_id) then
      return true;
    end if;
    if exists (select from community.events e where e.id = p_event_id
               and community.event_is_visible(e.status, e.visibility, e.owner_id, core.current_user_id())) then
      raise exception 'only the event''s owner and its check-in staff may do this' using errcode = 'PT403', hint = 'not_event_staff';
    end if;
    raise exception 'no event % is visible to you', p_event_id using errcode = 'PT404', hint = 'event_not_found';
  end
  $$;

-- The event's settings row, created when missing, locked: every change to the event's seats
-- (reserve, approve, cancel, decline, promote, a capacity change) queues here.
create function checkin.lock_event(p_event_id core.object_id) returns checkin.event_settings
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_settings checkin.event_settings;
  begin
    insert into checkin.event_settings (event_id) values (p_event_id) on conflict (event_id) do nothing;
    select * into v_settings from checkin.event_settings where event_id = p_event_id for update;
    return v_settings;
  end
  $$;

create function checkin.settings_json(p_event_id core.object_id) returns json
  language sql stable security definer
  set search_path = ''
  as $$
    select json_build_object(
      'eventId', p_event_id,
      'capacity', s.capacity,
      'approvalRequired', coalesce(s.approval_required, false),
      'waitlistEnabled', coalesce(s.waitlist_enabled, true),
      'registrationOpensAt', community.iso_time(s.registration_opens_at),
      'registrationClosesAt', community.iso_time(s.registration_closes_at))
    from (select 1) one left join checkin.event_settings s on s.event_id = p_event_id
  $$;

-- The settings, for the owner and staff.
create function checkin.read_settings(p_event_id core.object_id) returns json
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    perform checkin.require_staff(p_event_id);
    return checkin.settings_json(p_event_id);
  end
  $$;

-- Changes the settings the caller sends (null: unchanged; p_clear names fields to set to null). A
-- larger capacity promotes waitlisted reservations at once.
create function checkin.save_settings(
  p_event_id core.object_id, p_capacity integer, p_approval_required boolean, p_waitlist_enabled boolean,
  p_opens_at timestamptz, p_closes_at timestamptz, p_clear text[] default '{}'
) returns json
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    perform checkin.require_owner(p_event_id);
    perform checkin.lock_event(p_event_id);
    update checkin.event_settings s set
      capacity = case when 'capacity' = any (p_clear) then null else coalesce(p_capacity, s.capacity) end,
      approval_required = coalesce(p_approval_required, s.approval_required),
      waitlist_enabled = coalesce(p_waitlist_enabled, s.waitlist_enabled),
      registration_opens_at = case when 'registrationOpensAt' = any (p_clear) then null else coalesce(p_opens_at, s.registration_opens_at) end,
      registration_closes_at = case when 'registrationClosesAt' = any (p_clear) then null else coalesce(p_closes_at, s.registration_closes_at) end,
      updated_at = now()
    where s.event_id = p_event_id;
    perform checkin.promote_waitlisted(p_event_id);
    return checkin.settings_json(p_event_id);
  exception when check_violation then
    raise exception 'registrationOpensAt must be before registrationClosesAt' using errcode = 'PT400', hint = 'validation_failed';
  end
  $$;

create function checkin.staff_json(p_event_id core.object_id, p_user_id core.object_id) returns json
  language sql stable security definer
  set search_path = ''
  as $$
    select json_build_object('eventId', s.event_id, 'userId', s.user_id, 'role', s.role,
      'name', coalesce(p.display_name, p.username), 'email', u.email, 'addedAt', community.iso_time(s.added_at))
    from checkin.staff s join core.users u on u.id = s.user_id left join core.profiles p on p.user_id = s.user_id
    where s.event_id = p_event_id and s.user_id = p_user_id
  $$;

-- Adds a checker by user id or e-mail (one of them); adding again changes nothing. 201 vs 200 is
-- told by `created`.
create function checkin.add_staff(p_event_id core.object_id, p_user_id core.object_id, p_email text)
  returns table (staff json, created boolean)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := p_user_id;
    v_created boolean;
  begin
    perform checkin.require_owner(p_event_id);
    if v_user is null then
      select u.id into v_user from core.users u where lower(u.email) = lower(p_email);
    elsif not exists (select from core.users u where u.id = v_user) then
      v_user := null;
    end if;
    if v_user is null then
      raise exception 'no user with this id or e-mail' using errcode = 'PT404', hint = 'user_not_found';
    end if;
    if v_user = core.current_user_id() then
      raise exception 'the owner runs the door already' using errcode = 'PT409', hint = 'owner_is_staff';
    end if;
    insert into checkin.staff (event_id, user_id) values (p_event_id, v_user) on conflict do nothing;
    v_created := found;
    return query select checkin.staff_json(p_event_id, v_user), v_created;
  end
  $$;

create function checkin.remove_staff(p_event_id core.object_id, p_user_id core.object_id) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    perform checkin.require_owner(p_event_id);
    delete from checkin.staff where event_id = p_event_id and user_id = p_user_id;
    if not found then
      raise exception 'this user is not staff of the event' using errcode = 'PT404', hint = 'staff_not_found';
    end if;
  end
  $$;

create function checkin.list_staff(p_event_id core.object_id) returns setof json
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    perform checkin.require_owner(p_event_id);
    return query select checkin.staff_json(s.event_id, s.user_id) from checkin.staff s
      where s.event_id = p_event_id order by s.added_at, s.user_id;
  end
  $$;

-- ============================================================================================
-- Reservations
-- ============================================================================================
create type checkin.reservation_status as enum ('approved', 'pending', 'waitlisted', 'declined', 'cancelled');

create table checkin.reservations (
  id               core.object_id primary key default core.new_object_id(),
  event_id         core.object_id not null references community.events (id) on delete cascade,
  user_id          core.object_id not null references core.users (id) on delete cascade,
  status           checkin.reservation_status not null,
  -- Who the door sees: the profile's name (or e-mail) when reserving.
  attendee_name    text not null check (char_length(attendee_name) between 1 and 320),
  attendee_email   text,
  -- The ticket's version: a QR code names it, and re-issuing the ticket makes the old code `revoked`.
  ticket_version   integer not null default 1 check (ticket_version > 0),
  inside           boolean not null default false,
  checked_in_at    timestamptz,
  -- The `register` rule's evidence when the event has one.
  access_evidence  jsonb,
  -- The waitlist's order: the clock, not the transaction's start, so reservations made in one
  -- transaction (or in the same microsecond) still queue in the order they were made.
  created_at       timestamptz not null default clock_timestamp(),
  updated_at       timestamptz not null default now(),
  decided_at       timestamptz,
  search_text      text generated always as (lower(attendee_name || ' ' || coalesce(attendee_email, ''))) stored
);
-- One active reservation per person and event.
create unique index reservations_one_active on checkin.reservations (event_id, user_id)
  where status in ('approved', 'pending', 'waitlisted');
create index reservations_event_listing on checkin.reservations (event_id, created_at, id);
create index reservations_event_status on checkin.reservations (event_id, status, created_at, id);
create index reservations_user_listing on checkin.reservations (user_id, created_at desc, id desc);
create index reservations_search on checkin.reservations using gin (search_text extensions.gin_trgm_ops);

alter table checkin.reservations enable row level security;
-- The person reads their own; the event's owner and staff read the event's.
create policy reservations_select_self_or_staff on checkin.reservations for select to authenticated
  using (user_id = (select core.current_user_id()) or checkin.may_scan(event_id));
grant select on checkin.reservations to authenticated;

create function checkin.reservation_json(r checkin.reservations) returns json
  language sql stable
  set search_path = ''
  as $$
    select json_build_object(
      'id', r.id, 'eventId', r.event_id, 'userId', r.user_id, 'status', r.status,
      'attendeeName', r.attendee_name, 'ticketVersion', r.ticket_version,
      'inside', r.inside, 'checkedInAt', community.iso_time(r.checked_in_at), 'accessEvidence', r.access_evidence,
      'createdAt', community.iso_time(r.created_at), 'updatedAt', community.iso_time(r.updated_at), 'decidedAt', community.iso_time(r.decided_at))
  $$;

-- Approves the oldest waitlisted reservations while seats are free (the caller holds the event's lock).
create function checkin.promote_waitlisted(p_event_id core.object_id) returns integer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_capacity integer := (select capacity from checkin.event_settings where event_id = p_event_id);
    v_free bigint;
    v_promoted integer;
  begin
    v_free := case when v_capacity is null then null
      else v_capacity - (select count(*) from checkin.reservations where event_id = p_event_id and status = 'approved') end;
    with oldest as (
      select id from checkin.reservations where event_id = p_event_id and status = 'waitlisted'
      order by created_at, id limit v_free
    )
    update checkin.reservations r set status = 'approved', decided_at = now(), updated_at = now()
      from oldest where r.id = oldest.id;
    get diagnostics v_promoted = row_count;
    return v_promoted;
  end
  $$;

-- The addresses a person has linked, by chain id ('31337', 'sui:testnet'): what the gateway reads
-- holdings of.
create function checkin.addresses_of(p_user_id core.object_id) returns jsonb
  language sql stable security definer
  set search_path = ''
  as $$
    select coalesce(jsonb_object_agg(chain_id, addresses), '{}') from (
      select a.chain_id, jsonb_agg(a.address order by a.created_at) as addresses
      from core.crypto_addresses a where a.user_id = p_user_id group by a.chain_id) by_chain
  $$;

-- The event's rules that grant `p_grant`, each with its index in access_rules.
create function checkin.rules_granting(p_rules jsonb, p_grant text) returns jsonb
  language sql immutable
  set search_path = ''
  as $$
    select coalesce(jsonb_agg(rule || jsonb_build_object('index', ordinality - 1) order by ordinality), '[]')
    from jsonb_array_elements(p_rules) with ordinality as r(rule, ordinality)
    where rule -> 'grants' ? p_grant
  $$;

create function checkin.rule_key(p_rule jsonb) returns text
  language sql immutable
  set search_path = ''
  as $$
    select concat_ws('|', p_rule ->> 'chain', p_rule ->> 'chainId', lower(p_rule ->> 'collection'), p_rule ->> 'tokenId')
  $$;

-- ============================================================================================
-- Holdings evidence
-- ============================================================================================
-- The latest read of a person's holdings for a rule (chain, chain id, collection, token id):
-- `evidence` is what the gateway read ({satisfied, balance, perOwner, tokens, block|checkpoint, readAt}).
create table checkin.holdings (
  user_id   core.object_id not null references core.users (id) on delete cascade,
  rule_key  text not null check (char_length(rule_key) <= 400),
  satisfied boolean not null,
  evidence  jsonb not null,
  read_at   timestamptz not null default now(),
  primary key (user_id, rule_key)
);
alter table checkin.holdings enable row level security;
create policy holdings_select_self on checkin.holdings for select to authenticated
  using (user_id = (select core.current_user_id()));
grant select on checkin.holdings to authenticated;

-- Keeps the reads of `p_evidence` (an array of {rule, satisfied, ...} or {rule, unavailable}) for
-- `p_user_id`; unavailable reads are not kept.
create function checkin.remember_holdings(p_user_id core.object_id, p_evidence jsonb) returns void
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into checkin.holdings as h (user_id, rule_key, satisfied, evidence, read_at)
      select p_user_id, checkin.rule_key(e -> 'rule'), (e ->> 'satisfied')::boolean, e, now()
      from jsonb_array_elements(coalesce(p_evidence, '[]')) e
      where e ? 'satisfied'
      on conflict (user_id, rule_key) do update set satisfied = excluded.satisfied, evidence = excluded.evidence, read_at = excluded.read_at
  $$;

create function checkin.my_addresses() returns jsonb
  language sql stable security definer
  set search_path = ''
  as $$ select checkin.addresses_of(core.current_user_id()) $$;

-- The caller's own reads (an access check): kept like the reads a reservation or a scan brings.
create function checkin.remember_my_holdings(p_evidence jsonb) returns void
  language sql volatile security definer
  set search_path = ''
  as $$ select checkin.remember_holdings(core.current_user_id(), p_evidence) $$;

-- What the gateway must read before deciding `p_grant` for `p_user_id`: null when the event has no
-- rule with that grant, or when `p_use_recent` and every such rule has a read within
-- holdings_decide_seconds; else {grant, rules, addresses}.
create function checkin.holdings_needed(p_rules jsonb, p_grant text, p_user_id core.object_id, p_use_recent boolean) returns jsonb
  language sql stable security definer
  set search_path = ''
  as $$
    select case
      when jsonb_array_length(rules) = 0 then null
      when p_use_recent and not exists (
        select from jsonb_array_elements(rules) rule
        where not exists (select from checkin.holdings h where h.user_id = p_user_id and h.rule_key = checkin.rule_key(rule)
                          and h.read_at > now() - make_interval(secs => checkin.holdings_decide_seconds()))) then null
      else jsonb_build_object('grant', p_grant, 'rules', rules, 'addresses', checkin.addresses_of(p_user_id)) end
    from (select checkin.rules_granting(p_rules, p_grant) as rules) r
  $$;

-- The decision for `p_grant` from fresh reads: 'granted' (with the satisfying rule's evidence),
-- 'denied', or 'unavailable' (a read failed and none succeeded: never admits).
create function checkin.holdings_decision(p_rules jsonb, p_grant text, p_user_id core.object_id, p_evidence jsonb)
  returns table (decision text, evidence jsonb)
  language plpgsql stable security definer
  set search_path = ''
  as $$
  declare
    v_rules jsonb := checkin.rules_granting(p_rules, p_grant);
    v_rule jsonb;
    v_read jsonb;
    v_unavailable boolean := false;
  begin
    for v_rule in select * from jsonb_array_elements(v_rules) loop
      select e into v_read from jsonb_array_elements(coalesce(p_evidence, '[]')) e
        where checkin.rule_key(e -> 'rule') = checkin.rule_key(v_rule) limit 1;
      if v_read is null then
        select h.evidence into v_read from checkin.holdings h
          where h.user_id = p_user_id and h.rule_key = checkin.rule_key(v_rule)
            and h.read_at > now() - make_interval(secs => checkin.holdings_decide_seconds());
      end if;
      if v_read is null or v_read ? 'unavailable' then
        v_unavailable := true;
      elsif (v_read ->> 'satisfied')::boolean then
        return query select 'granted', v_read || jsonb_build_object('rule', v_rule);
        return;
      end if;
    end loop;
    return query select case when v_unavailable then 'unavailable' else 'denied' end, coalesce(p_evidence, '[]'::jsonb);
  end
  $$;

-- Whether the caller may see `p_event_id` in a listing under its `view` rules: no such rule, the
-- caller owns or staffs it, or a read of the caller's holdings within a day satisfied one.
create function checkin.may_view_in_lists(p_event_id core.object_id, p_owner_id core.object_id, p_rules jsonb) returns boolean
  language sql stable security definer
  set search_path = ''
  as $$
    select not exists (select from jsonb_array_elements(p_rules) r where r -> 'grants' ? 'view')
      or p_owner_id = core.current_user_id()
      or checkin.may_scan(p_event_id)
      or exists (
        select from jsonb_array_elements(p_rules) r join checkin.holdings h
          on h.user_id = core.current_user_id() and h.rule_key = checkin.rule_key(r)
        where r -> 'grants' ? 'view' and h.satisfied
          and h.read_at > now() - make_interval(secs => checkin.holdings_view_seconds()))
  $$;

-- ============================================================================================
-- Reserving, deciding, cancelling
-- ============================================================================================
-- Reserves a spot for the caller. Answers the reservation and whether it is new, or `needs` (what
-- to read from chains first) when the event has `register` rules and no fresh read decides them.
-- The caller's active reservation is answered as it is (a retry). Refusals: 404 event_not_found,
-- 409 registration_closed / event_full / access_denied, 503 holdings_unavailable.
create function checkin.reserve(p_event_id core.object_id, p_evidence jsonb default null)
  returns table (reservation json, created boolean, needs jsonb)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
    v_event community.events;
    v_settings checkin.event_settings;
    v_existing checkin.reservations;
    v_needs jsonb;
    v_decision record;
    v_status checkin.reservation_status;
    v_row checkin.reservations;
  begin
    if v_user is null then
      raise exception 'no caller' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    select * into v_event from community.events e where e.id = p_event_id
      and community.event_is_visible(e.status, e.visibility, e.owner_id, v_user);
    if v_event.id is null then
      raise exception 'no event % is visible to you', p_event_id using errcode = 'PT404', hint = 'event_not_found';
    end if;
    select * into v_existing from checkin.reservations r
      where r.event_id = p_event_id and r.user_id = v_user and r.status in ('approved', 'pending', 'waitlisted');
    if v_existing.id is not null then
      return query select checkin.reservation_json(v_existing), false, null::jsonb;
      return;
    end if;
    if v_event.status <> 'PUBLISHED' then
      raise exception 'the event is not published' using errcode = 'PT409', hint = 'registration_closed';
    end if;
    if p_evidence is not null then
      perform checkin.remember_holdings(v_user, p_evidence);
    end if;
    v_needs := checkin.holdings_needed(v_event.access_rules, 'register', v_user, true);
    if v_needs is not null and p_evidence is null then
      return query select null::json, false, v_needs;
      return;
    end if;
    select * into v_decision from checkin.holdings_decision(v_event.access_rules, 'register', v_user, p_evidence);
    if jsonb_array_length(checkin.rules_granting(v_event.access_rules, 'register')) > 0 then
      if v_decision.decision = 'unavailable' then
        raise exception 'the chain could not be read to check your NFT; try again' using errcode = 'PT503', hint = 'holdings_unavailable';
      elsif v_decision.decision = 'denied' then
        raise exception 'registering needs an NFT of this event''s access rules in one of your linked wallets'
          using errcode = 'PT403', hint = 'access_denied', detail = jsonb_build_object('evidence', v_decision.evidence)::text;
      end if;
    end if;

    v_settings := checkin.lock_event(p_event_id);
    if (v_settings.registration_opens_at is not null and now() < v_settings.registration_opens_at)
       or (v_settings.registration_closes_at is not null and now() >= v_settings.registration_closes_at) then
      raise exception 'registration is not open' using errcode = 'PT409', hint = 'registration_closed',
        detail = jsonb_build_object('opensAt', v_settings.registration_opens_at, 'closesAt', v_settings.registration_closes_at)::text;
    end if;
    -- A concurrent reservation of the same person committed while this one waited for the lock.
    select * into v_existing from checkin.reservations r
      where r.event_id = p_event_id and r.user_id = v_user and r.status in ('approved', 'pending', 'waitlisted');
    if v_existing.id is not null then
      return query select checkin.reservation_json(v_existing), false, null::jsonb;
      return;
    end if;
    if v_settings.approval_required then
      v_status := 'pending';
    elsif v_settings.capacity is null
       or (select count(*) from checkin.reservations where event_id = p_event_id and status = 'approved') < v_settings.capacity then
      v_status := 'approved';
    elsif v_settings.waitlist_enabled then
      v_status := 'waitlisted';
    else
      raise exception 'the event is full' using errcode = 'PT409', hint = 'event_full';
    end if;
    insert into checkin.reservations (event_id, user_id, status, attendee_name, attendee_email, access_evidence, decided_at)
      select p_event_id, v_user, v_status, coalesce(p.display_name, p.username, u.email, 'attendee'), u.email,
             case when v_decision.decision = 'granted' then v_decision.evidence end,
             case when v_status = 'approved' then now() end
      from core.users u left join core.profiles p on p.user_id = u.id where u.id = v_user
      returning * into v_row;
    return query select checkin.reservation_json(v_row), true, null::jsonb;
  end
  $$;

-- The reservation, locked, with the caller's standing: the person's own, or the event's owner/staff.
create function checkin.lock_reservation(p_reservation_id core.object_id, p_event_id core.object_id)
  returns checkin.reservations
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_row checkin.reservations;
  begin
    select * into v_row from checkin.reservations where id = p_reservation_id and event_id = p_event_id for update;
    if v_row.id is null or (v_row.user_id <> core.current_user_id() and not checkin.may_scan(v_row.event_id)) then
      raise exception 'no reservation % of this event is visible to you', p_reservation_id using errcode = 'PT404', hint = 'reservation_not_found';
    end if;
    return v_row;
  end
  $$;

-- The person cancels their reservation; a seat it held goes to the oldest waitlisted one, in the
-- same transaction. Cancelling again answers the cancelled reservation.
create function checkin.cancel_reservation(p_event_id core.object_id, p_reservation_id core.object_id) returns json
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_row checkin.reservations;
  begin
    perform checkin.lock_event(p_event_id);
    v_row := checkin.lock_reservation(p_reservation_id, p_event_id);
    if v_row.user_id <> core.current_user_id() then
      raise exception 'only the person who reserved cancels; the host declines' using errcode = 'PT403', hint = 'not_your_reservation';
    end if;
    if v_row.status in ('approved', 'pending', 'waitlisted') then
      update checkin.reservations set status = 'cancelled', inside = false, updated_at = now() where id = p_reservation_id returning * into v_row;
      perform checkin.promote_waitlisted(p_event_id);
    end if;
    return checkin.reservation_json(v_row);
  end
  $$;

-- The host approves or declines. Approving needs a free seat (409 event_full); declining an approved
-- reservation frees its seat for the waitlist.
create function checkin.decide_reservation(p_event_id core.object_id, p_reservation_id core.object_id, p_approve boolean) returns json
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_settings checkin.event_settings;
    v_row checkin.reservations;
  begin
    perform checkin.require_owner(p_event_id);
    v_settings := checkin.lock_event(p_event_id);
    v_row := checkin.lock_reservation(p_reservation_id, p_event_id);
    if v_row.status = 'cancelled' then
      raise exception 'the person cancelled this reservation' using errcode = 'PT409', hint = 'reservation_cancelled';
    end if;
    if p_approve and v_row.status <> 'approved' then
      if v_settings.capacity is not null
         and (select count(*) from checkin.reservations where event_id = p_event_id and status = 'approved') >= v_settings.capacity then
        raise exception 'the event is full' using errcode = 'PT409', hint = 'event_full';
      end if;
      update checkin.reservations set status = 'approved', decided_at = now(), updated_at = now() where id = p_reservation_id returning * into v_row;
    elsif not p_approve and v_row.status <> 'declined' then
      update checkin.reservations set status = 'declined', inside = false, decided_at = now(), updated_at = now()
        where id = p_reservation_id returning * into v_row;
      perform checkin.promote_waitlisted(p_event_id);
    end if;
    return checkin.reservation_json(v_row);
  end
  $$;

-- A new ticket version for the person: the QR codes of earlier versions scan as `revoked`.
create function checkin.reissue_ticket(p_event_id core.object_id, p_reservation_id core.object_id) returns json
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_row checkin.reservations;
  begin
    v_row := checkin.lock_reservation(p_reservation_id, p_event_id);
    if v_row.user_id <> core.current_user_id() then
      raise exception 'only the person re-issues their ticket; the host declines a reservation' using errcode = 'PT403', hint = 'not_your_reservation';
    end if;
    update checkin.reservations set ticket_version = ticket_version + 1, updated_at = now() where id = p_reservation_id returning * into v_row;
    return checkin.reservation_json(v_row);
  end
  $$;

-- ============================================================================================
-- Bracelets
-- ============================================================================================
create table checkin.bracelets (
  id             core.object_id primary key default core.new_object_id(),
  event_id       core.object_id not null references community.events (id) on delete cascade,
  -- Upper-case hex, 4, 7 or 10 bytes (ISO 14443), normalised by the gateway.
  uid            text not null check (uid ~ '^([0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20})$'),
  reservation_id core.object_id not null references checkin.reservations (id) on delete cascade,
  -- plain: the UID alone (a phone can copy it); sun: NTAG 424 DNA messages with a read counter.
  kind           text not null check (kind in ('plain', 'sun')),
  status         text not null default 'bound' check (status in ('bound', 'unbound', 'lost')),
  last_counter   integer check (last_counter >= 0),
  bound_at       timestamptz not null default now(),
  released_at    timestamptz,
  check ((status = 'bound') = (released_at is null))
);
create unique index bracelets_bound_uid on checkin.bracelets (event_id, uid) where status = 'bound';
create unique index bracelets_bound_reservation on checkin.bracelets (reservation_id) where status = 'bound';
create index bracelets_uid_history on checkin.bracelets (event_id, uid, bound_at desc);
alter table checkin.bracelets enable row level security;
create policy bracelets_select_staff on checkin.bracelets for select to authenticated using (checkin.may_scan(event_id));
grant select on checkin.bracelets to authenticated;

create function checkin.bracelet_json(b checkin.bracelets) returns json
  language sql stable
  set search_path = ''
  as $$
    select json_build_object('id', b.id, 'eventId', b.event_id, 'uid', b.uid, 'reservationId', b.reservation_id,
      'kind', b.kind, 'status', b.status, 'lastCounter', b.last_counter, 'boundAt', community.iso_time(b.bound_at), 'releasedAt', community.iso_time(b.released_at))
  $$;

-- Binds a bracelet to an approved reservation. A UID bound to another reservation of the event is
-- 409 bracelet_in_use; a reservation with a bracelet already is 409 reservation_has_bracelet;
-- binding the same pair again answers it.
create function checkin.bind_bracelet(p_event_id core.object_id, p_reservation_id core.object_id, p_uid text, p_kind text)
  returns table (bracelet json, created boolean)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_reservation checkin.reservations;
    v_row checkin.bracelets;
  begin
    perform checkin.require_staff(p_event_id);
    v_reservation := checkin.lock_reservation(p_reservation_id, p_event_id);
    if v_reservation.status <> 'approved' then
      raise exception 'only an approved reservation gets a bracelet' using errcode = 'PT409', hint = 'reservation_not_approved';
    end if;
    select * into v_row from checkin.bracelets b where b.event_id = p_event_id and b.uid = p_uid and b.status = 'bound';
    if v_row.id is not null then
      if v_row.reservation_id = p_reservation_id then
        return query select checkin.bracelet_json(v_row), false;
        return;
      end if;
      raise exception 'this bracelet is bound to another reservation' using errcode = 'PT409', hint = 'bracelet_in_use';
    end if;
    insert into checkin.bracelets (event_id, uid, reservation_id, kind) values (p_event_id, p_uid, p_reservation_id, p_kind)
      returning * into v_row;
    return query select checkin.bracelet_json(v_row), true;
  exception when unique_violation then
    raise exception 'this reservation has a bracelet already; unbind it first' using errcode = 'PT409', hint = 'reservation_has_bracelet';
  end
  $$;

-- Unbinds (returned at the exit) or marks lost (scans then answer `revoked`); a released bracelet stays released.
create function checkin.release_bracelet(p_event_id core.object_id, p_bracelet_id core.object_id, p_status text) returns json
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_row checkin.bracelets;
  begin
    perform checkin.require_staff(p_event_id);
    update checkin.bracelets set status = p_status, released_at = now()
      where id = p_bracelet_id and event_id = p_event_id and status = 'bound' returning * into v_row;
    if v_row.id is null then
      select * into v_row from checkin.bracelets where id = p_bracelet_id and event_id = p_event_id;
      if v_row.id is null then
        raise exception 'no bracelet % in this event', p_bracelet_id using errcode = 'PT404', hint = 'bracelet_not_found';
      end if;
    end if;
    return checkin.bracelet_json(v_row);
  end
  $$;

-- ============================================================================================
-- Scans
-- ============================================================================================
create table checkin.scans (
  id             core.object_id primary key default core.new_object_id(),
  event_id       core.object_id not null references community.events (id) on delete cascade,
  reservation_id core.object_id references checkin.reservations (id) on delete cascade,
  bracelet_id    core.object_id references checkin.bracelets (id) on delete cascade,
  method         text not null check (method in ('qr', 'bracelet', 'manual')),
  direction      text not null check (direction in ('entry', 'exit')),
  result         text not null check (result in ('admitted', 'exited', 'unknown', 'wrong_event', 'not_approved', 'revoked',
                   'already_inside', 'not_inside', 'access_denied', 'access_unavailable', 'token_already_used', 'replayed_counter')),
  device_id      text not null check (device_id ~ '^[A-Za-z0-9._:-]{1,64}$'),
  nonce          text not null check (nonce ~ '^[A-Za-z0-9._:-]{8,64}$'),
  scanned_at     timestamptz not null,
  recorded_at    timestamptz not null default now(),
  scanned_by     core.object_id not null references core.users (id),
  offline        boolean not null default false,
  evidence       jsonb,
  undone_at      timestamptz,
  undone_by      core.object_id references core.users (id),
  unique (event_id, device_id, nonce)
);
-- No other index leads with event_id: a plan cached while the table was empty (a new event's first
-- offline batch fills it inside one transaction) must still find a replay by its unique key, not
-- walk every scan of the event per scan.
create index scans_reservation on checkin.scans (reservation_id, scanned_at desc) where reservation_id is not null;
alter table checkin.scans enable row level security;
create policy scans_select_staff on checkin.scans for select to authenticated using (checkin.may_scan(event_id));
grant select on checkin.scans to authenticated;

-- The tokens an admission holds: the same token admits one person per event. Released when the
-- admission is undone.
create table checkin.token_claims (
  event_id       core.object_id not null references community.events (id) on delete cascade,
  token_key      text not null check (char_length(token_key) <= 600),
  reservation_id core.object_id not null references checkin.reservations (id) on delete cascade,
  scan_id        core.object_id not null references checkin.scans (id) on delete cascade,
  claimed_at     timestamptz not null default now(),
  primary key (event_id, token_key)
);
alter table checkin.token_claims enable row level security; -- definer functions only

create function checkin.scan_json(s checkin.scans, p_attendee text, p_replayed boolean) returns json
  language sql stable
  set search_path = ''
  as $$
    select json_build_object('id', s.id, 'eventId', s.event_id, 'reservationId', s.reservation_id, 'braceletId', s.bracelet_id,
      'method', s.method, 'direction', s.direction, 'result', s.result, 'admitted', s.result in ('admitted', 'exited'),
      'attendeeName', p_attendee, 'deviceId', s.device_id, 'nonce', s.nonce, 'scannedAt', community.iso_time(s.scanned_at),
      'recordedAt', community.iso_time(s.recorded_at), 'offline', s.offline, 'evidence', s.evidence, 'undoneAt', community.iso_time(s.undone_at),
      'replayed', p_replayed)
  $$;

-- The token keys a satisfying read offers: the tokens the chain named (ERC-721 Enumerable ids, Sui
-- object ids), else one key per unit an address holds (ERC-1155 and plain ERC-721: units carry no
-- identity, so what is claimed is the holder's count).
create function checkin.offered_tokens(p_evidence jsonb) returns text[]
  language sql immutable
  set search_path = ''
  as $$
    select case when jsonb_typeof(p_evidence -> 'tokens') = 'array' then
        array(select checkin.rule_key(p_evidence -> 'rule') || '#' || lower(t) from jsonb_array_elements_text(p_evidence -> 'tokens') t)
      else
        array(select checkin.rule_key(p_evidence -> 'rule') || '@' || lower(o.key) || '#' || i
              from jsonb_each_text(coalesce(p_evidence -> 'perOwner', '{}')) o, generate_series(0, least(o.value::bigint, 1000) - 1) i)
      end
  $$;

-- One scan, decided and recorded for `p_caller` (checked to be the owner or staff by the caller of
-- this function). `p_rules`: the event's rules that grant checkIn (checkin.rules_granting), read once
-- by the caller. The credential is the reservation (a QR code's reservation and ticket version,
-- already verified by the gateway, or a manual check-in by id) or a bracelet UID (with the SUN read
-- counter for NTAG 424 bracelets). A (device, nonce) already recorded answers its first outcome with
-- `replayed`. An entry to an event with checkIn rules and no evidence answers `needs` (nothing
-- recorded) unless `p_offline`: an offline scan is decided by the reads on record.
create function checkin.decide_scan(
  p_caller core.object_id, p_event_id core.object_id, p_rules jsonb, p_method text, p_reservation_id core.object_id,
  p_ticket_version integer, p_bracelet_uid text, p_sun_counter integer, p_direction text, p_device_id text, p_nonce text,
  p_scanned_at timestamptz, p_evidence jsonb, p_offline boolean
, out scan json, out needs jsonb)
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_scan checkin.scans;
    v_bracelet checkin.bracelets;
    v_reservation checkin.reservations;
    v_result text;
    v_evidence jsonb;
    v_needs jsonb;
    v_decision record;
    v_offered text[];
    v_wanted integer;
    v_claimable text[];
  begin
    select * into v_scan from checkin.scans s where s.event_id = p_event_id and s.device_id = p_device_id and s.nonce = p_nonce;
    if v_scan.id is not null then
      scan := checkin.scan_json(v_scan, (select attendee_name from checkin.reservations where id = v_scan.reservation_id), true);
      return;
    end if;

    if p_method = 'bracelet' then
      select * into v_bracelet from checkin.bracelets b where b.event_id = p_event_id and b.uid = p_bracelet_uid
        order by b.status = 'bound' desc, b.bound_at desc limit 1 for update;
      if v_bracelet.id is null then
        v_result := 'unknown';
      elsif v_bracelet.status <> 'bound' then
        v_result := 'revoked';
      elsif v_bracelet.kind = 'sun' and (p_sun_counter is null or p_sun_counter <= coalesce(v_bracelet.last_counter, -1)) then
        v_result := 'replayed_counter';
      else
        if v_bracelet.kind = 'sun' then
          update checkin.bracelets set last_counter = p_sun_counter where id = v_bracelet.id;
        end if;
        select * into v_reservation from checkin.reservations r where r.id = v_bracelet.reservation_id for update;
      end if;
    else
      select * into v_reservation from checkin.reservations r where r.id = p_reservation_id for update;
      if v_reservation.id is null then
        v_result := 'unknown';
      elsif v_reservation.event_id <> p_event_id then
        v_result := 'wrong_event';
        v_reservation := null;
      elsif p_method = 'qr' and p_ticket_version is distinct from v_reservation.ticket_version then
        v_result := 'revoked';
      end if;
    end if;

    if v_result is null then
      if v_reservation.status in ('declined', 'cancelled') then
        v_result := 'revoked';
      elsif v_reservation.status <> 'approved' then
        v_result := 'not_approved';
      elsif p_direction = 'exit' then
        v_result := case when v_reservation.inside then 'exited' else 'not_inside' end;
      elsif v_reservation.inside then
        v_result := 'already_inside';
      end if;
    end if;

    if v_result is null then
      if p_evidence is not null then
        perform checkin.remember_holdings(v_reservation.user_id, p_evidence);
      end if;
      if jsonb_array_length(p_rules) > 0 then
        -- Online, the door reads the chain every time: a token sold a minute ago no longer admits.
        v_needs := checkin.holdings_needed(p_rules, 'checkIn', v_reservation.user_id, false);
        if p_evidence is null and not p_offline then
          needs := v_needs || jsonb_build_object('reservationId', v_reservation.id);
          return;
        end if;
        if p_offline then
          -- Offline: the latest reads on record decide, however old (the device admitted already).
          select * into v_decision from checkin.holdings_decision(p_rules, 'checkIn', v_reservation.user_id, (
            select coalesce(jsonb_agg(h.evidence), '[]') from checkin.holdings h
            where h.user_id = v_reservation.user_id and h.rule_key in (select checkin.rule_key(r) from jsonb_array_elements(p_rules) r)));
        else
          select * into v_decision from checkin.holdings_decision(p_rules, 'checkIn', v_reservation.user_id, p_evidence);
        end if;
        v_evidence := v_decision.evidence;
        if v_decision.decision = 'unavailable' then
          v_result := 'access_unavailable';
        elsif v_decision.decision = 'denied' then
          v_result := 'access_denied';
        else
          -- One token, one person: claim what the rule needs among the tokens not claimed by someone else.
          v_offered := checkin.offered_tokens(v_evidence);
          v_wanted := coalesce((v_evidence -> 'rule' ->> 'minBalance')::integer, 1);
          select coalesce(array_agg(t), '{}') into v_claimable from unnest(v_offered) t
            where not exists (select from checkin.token_claims c where c.event_id = p_event_id and c.token_key = t
                              and c.reservation_id <> v_reservation.id);
          if cardinality(v_claimable) < v_wanted then
            v_result := 'token_already_used';
          end if;
        end if;
      end if;
    end if;

    v_result := coalesce(v_result, 'admitted');
    insert into checkin.scans (event_id, reservation_id, bracelet_id, method, direction, result, device_id, nonce, scanned_at,
                               scanned_by, offline, evidence)
      values (p_event_id, v_reservation.id, v_bracelet.id, p_method, p_direction, v_result, p_device_id, p_nonce,
              coalesce(p_scanned_at, now()), p_caller, p_offline, v_evidence)
      returning * into v_scan;
    if v_result = 'admitted' then
      update checkin.reservations set inside = true, checked_in_at = coalesce(checked_in_at, v_scan.scanned_at), updated_at = now()
        where id = v_reservation.id;
      if v_claimable is not null then
        -- Tokens this person claimed on an earlier entry count first: re-entering claims nothing new.
        insert into checkin.token_claims (event_id, token_key, reservation_id, scan_id)
          select p_event_id, t, v_reservation.id, v_scan.id from (
            select t from unnest(v_claimable) t
            order by exists (select from checkin.token_claims c where c.event_id = p_event_id and c.token_key = t) desc, t
            limit v_wanted) chosen
          on conflict (event_id, token_key) do nothing;
      end if;
    elsif v_result = 'exited' then
      update checkin.reservations set inside = false, updated_at = now() where id = v_reservation.id;
    end if;
    scan := checkin.scan_json(v_scan, v_reservation.attendee_name, false);
  end
  $$;

-- One scan at the door, as the caller (owner or staff): checkin.decide_scan.
create function checkin.scan(
  p_event_id core.object_id, p_method text, p_reservation_id core.object_id, p_ticket_version integer,
  p_bracelet_uid text, p_sun_counter integer, p_direction text, p_device_id text, p_nonce text,
  p_scanned_at timestamptz, p_evidence jsonb default null, p_offline boolean default false
) returns table (scan json, needs jsonb)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    perform checkin.require_staff(p_event_id);
    return query select * from checkin.decide_scan(core.current_user_id(), p_event_id,
      checkin.rules_granting((select e.access_rules from community.events e where e.id = p_event_id), 'checkIn'),
      p_method, p_reservation_id, p_ticket_version, p_bracelet_uid, p_sun_counter, p_direction, p_device_id, p_nonce,
      p_scanned_at, p_evidence, p_offline);
  end
  $$;

-- Scans a device made offline, decided in the order they were made (first scan wins), NFT rules by the
-- reads on record. `p_scans`: [{method, reservationId, ticketVersion, braceletUid, sunCounter,
-- direction, nonce, scannedAt}]. Answers the recorded scans in that order.
create function checkin.record_offline_scans(p_event_id core.object_id, p_device_id text, p_scans jsonb)
  returns setof json
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_caller core.object_id := core.current_user_id();
    v_rules jsonb;
    v_item jsonb;
    v_scan json;
  begin
    perform checkin.require_staff(p_event_id);
    v_rules := checkin.rules_granting((select e.access_rules from community.events e where e.id = p_event_id), 'checkIn');
    for v_item in
      select s from jsonb_array_elements(p_scans) with ordinality as a(s, n) order by (s ->> 'scannedAt')::timestamptz, n
    loop
      select d.scan into v_scan from checkin.decide_scan(v_caller, p_event_id, v_rules,
        v_item ->> 'method', v_item ->> 'reservationId', (v_item ->> 'ticketVersion')::integer,
        v_item ->> 'braceletUid', (v_item ->> 'sunCounter')::integer, v_item ->> 'direction', p_device_id, v_item ->> 'nonce',
        (v_item ->> 'scannedAt')::timestamptz, null, true) d;
      return next v_scan;
    end loop;
  end
  $$;

-- Undoes an admission or an exit (a wrong scan at the door): the reservation's presence goes back,
-- the tokens the admission claimed are released. Undoing again answers the undone scan.
create function checkin.undo_scan(p_event_id core.object_id, p_scan_id core.object_id) returns json
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_scan checkin.scans;
    v_reservation checkin.reservations;
  begin
    perform checkin.require_staff(p_event_id);
    select * into v_scan from checkin.scans where id = p_scan_id and event_id = p_event_id;
    if v_scan.id is null then
      raise exception 'no scan % in this event', p_scan_id using errcode = 'PT404', hint = 'scan_not_found';
    end if;
    if v_scan.undone_at is null and v_scan.result in ('admitted', 'exited') then
      select * into v_reservation from checkin.reservations where id = v_scan.reservation_id for update;
      select * into v_scan from checkin.scans where id = p_scan_id for update;
      if v_scan.undone_at is null then
        if exists (select from checkin.scans s where s.reservation_id = v_scan.reservation_id and s.undone_at is null
                   and s.result in ('admitted', 'exited') and (s.scanned_at, s.recorded_at) > (v_scan.scanned_at, v_scan.recorded_at)) then
          raise exception 'a later entry or exit of this person stands; undo that first' using errcode = 'PT409', hint = 'later_scan_exists';
        end if;
        update checkin.scans set undone_at = now(), undone_by = core.current_user_id() where id = p_scan_id returning * into v_scan;
        delete from checkin.token_claims where scan_id = p_scan_id;
        update checkin.reservations r set
            inside = (v_scan.result = 'exited'),
            checked_in_at = (select min(s.scanned_at) from checkin.scans s where s.reservation_id = r.id and s.result = 'admitted' and s.undone_at is null),
            updated_at = now()
          where r.id = v_scan.reservation_id;
      end if;
    elsif v_scan.undone_at is null then
      raise exception 'only an admission or an exit can be undone' using errcode = 'PT409', hint = 'scan_not_undoable';
    end if;
    return checkin.scan_json(v_scan, (select attendee_name from checkin.reservations where id = v_scan.reservation_id), false);
  end
  $$;

-- Live counts for the door and the host.
create function checkin.counts(p_event_id core.object_id) returns json
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    perform checkin.require_staff(p_event_id);
    return (
      select json_build_object(
        'eventId', p_event_id,
        'capacity', (select capacity from checkin.event_settings where event_id = p_event_id),
        'approved', count(*) filter (where status = 'approved'),
        'pending', count(*) filter (where status = 'pending'),
        'waitlisted', count(*) filter (where status = 'waitlisted'),
        'checkedIn', count(*) filter (where status = 'approved' and checked_in_at is not null),
        'insideNow', count(*) filter (where status = 'approved' and inside))
      from checkin.reservations where event_id = p_event_id);
  end
  $$;

-- What an offline scanner needs: the ticket keys (`p_keys`, the gateway's), and every approved
-- reservation with its ticket version, name, presence and bound bracelets.
create function checkin.manifest(p_event_id core.object_id, p_keys json) returns json
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    perform checkin.require_staff(p_event_id);
    return json_build_object('eventId', p_event_id, 'generatedAt', community.iso_time(now()), 'keys', p_keys, 'tickets', coalesce((
      select json_agg(json_build_object('reservationId', r.id, 'ticketVersion', r.ticket_version, 'attendeeName', r.attendee_name,
          'inside', r.inside, 'braceletUids', coalesce((select json_agg(b.uid) from checkin.bracelets b where b.reservation_id = r.id and b.status = 'bound'), '[]'))
        order by r.created_at, r.id)
      from checkin.reservations r where r.event_id = p_event_id and r.status = 'approved'), '[]'));
  end
  $$;

-- ============================================================================================
-- Grants
-- ============================================================================================
revoke execute on all functions in schema checkin from public;
grant execute on function
  checkin.holdings_decide_seconds(), checkin.holdings_view_seconds(),
  checkin.may_scan(core.object_id), checkin.may_view_in_lists(core.object_id, core.object_id, jsonb),
  checkin.read_settings(core.object_id), checkin.require_staff(core.object_id),
  checkin.save_settings(core.object_id, integer, boolean, boolean, timestamptz, timestamptz, text[]),
  checkin.add_staff(core.object_id, core.object_id, text), checkin.remove_staff(core.object_id, core.object_id),
  checkin.list_staff(core.object_id),
  checkin.reservation_json(checkin.reservations), checkin.reserve(core.object_id, jsonb),
  checkin.cancel_reservation(core.object_id, core.object_id), checkin.decide_reservation(core.object_id, core.object_id, boolean),
  checkin.reissue_ticket(core.object_id, core.object_id),
  checkin.bracelet_json(checkin.bracelets), checkin.bind_bracelet(core.object_id, core.object_id, text, text),
  checkin.release_bracelet(core.object_id, core.object_id, text),
  checkin.scan_json(checkin.scans, text, boolean),
  checkin.scan(core.object_id, text, core.object_id, integer, text, integer, text, text, text, timestamptz, jsonb, boolean),
  checkin.record_offline_scans(core.object_id, text, jsonb), checkin.undo_scan(core.object_id, core.object_id),
  checkin.counts(core.object_id), checkin.manifest(core.object_id, json), checkin.my_addresses(),
  checkin.remember_my_holdings(jsonb)
  to authenticated;
-- Listings of events read the view rule as anyone.
grant usage on schema checkin to anon;
grant execute on function checkin.may_view_in_lists(core.object_id, core.object_id, jsonb), checkin.may_scan(core.object_id),
  checkin.holdings_view_seconds() to anon;
