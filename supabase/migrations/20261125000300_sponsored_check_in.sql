-- Sponsored check-in: an admitted attendee gets one token of the event owner's free collection (a
-- proof of attendance), minted by the service's relayer and paid from a sponsor's balance through
-- the ledger as operation `check_in`.
--
-- Who may spend the sponsor's money. sponsorship.check lets a caller hold a sponsor's money for an
-- actor when the caller owns the sponsor wallet or linked the actor's address. At the door the actor
-- is the attendee and the caller is the event's owner or a checker the owner added, who speaks for
-- neither. So a check-in relay has the door's rule instead: the caller runs the event's door, the
-- scan admitted the attendee and stands, and the sponsor wallet is the caller's own or the event
-- owner's (staff spend the money of the host who made them staff, for that host's event, never a
-- third party's). The sponsor's own rules still apply: `check_in` enabled, allowedTargets (when not
-- empty) naming the collection, caps, balance.
--
-- To give the door its own rule without a second copy of the ledger's, the check splits in two:
--   sponsorship.requester_for_actor: who may ask (rate limit, authentication, the actor rule);
--   sponsorship.hold_for: the hold for a requester already vouched for (settings, caps, balance).
-- sponsorship.check is the two in a row, as before. Relays likewise: relays.hold_for maps a refusal
-- to an error and applies the venue allowlist; relays.reserve is the actor rule and relays.hold_for;
-- checkin.hold_attendance_mint is the door's rule and relays.hold_for.
--
-- One attendance mint per reservation and collection: checkin.attendance_mints, written in the
-- relayer's transaction that records the signed relay (checkin.record_attendance_mint, as
-- service_jobs), so a row exists exactly when a relay does and two racing requests record one relay
-- (the other's transaction rolls back before anything is broadcast). A mint whose relay failed (its
-- nonce went to a transaction not ours) may be asked for again.

-- ============================================================================================
-- Sponsorship: who may ask, apart from the hold
-- ============================================================================================
-- The caller, when they may ask `p_wallet` to pay for `p_actor`: the sponsor's owner for any actor,
-- anyone else for an address they linked on that chain. PT401 unauthenticated, PT403
-- actor_not_linked, PT429 rate_limited.
create function sponsorship.requester_for_actor(p_chain_id bigint, p_wallet text, p_actor text, p_rate_limit integer)
  returns core.object_id
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
  begin
    perform core.take_rate_limit('sponsorship.check', p_rate_limit, 60);
    if v_user is null then
      raise exception 'no user' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    if not sponsorship.owns_wallet(p_chain_id, p_wallet) and not sponsorship.owns_wallet(p_chain_id, p_actor) then
      raise exception 'the actor % is not one of your linked addresses on chain %', p_actor, p_chain_id
        using errcode = 'PT403', hint = 'actor_not_linked';
    end if;
    return v_user;
  end
  $$;

-- Eligibility and the hold for `p_requested_by`, whose right to ask was decided by the caller
-- (sponsorship.check's actor rule, or the door's). The reasons are check's.
create function sponsorship.hold_for(
  p_requested_by core.object_id, p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_client_id text,
  p_target text, p_call_data text, p_native_value numeric, p_actor text, p_smart_account text, p_max_cost numeric
) returns table (eligible boolean, reason text, reservation_id core.object_id, expires_at timestamptz, available numeric)
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    c_hold_seconds constant integer := 120;
    v_sponsor sponsorship.sponsors;
    v_settings sponsorship.settings;
    v_has_settings boolean;
    v_today date := (now() at time zone 'utc')::date;
    v_day_start timestamptz := (now() at time zone 'utc')::date at time zone 'utc';
    v_actor_spent numeric;
    v_actor_count bigint;
    v_available numeric;
    v_reservation core.object_id;
    v_expires timestamptz := now() + make_interval(secs => c_hold_seconds);
  begin
    select * into v_sponsor from sponsorship.sponsors s
      where s.chain_id = p_chain_id and s.wallet_address = p_wallet for update;
    if not found then
      return query select false, 'sponsor_not_found', null::core.object_id, null::timestamptz, 0::numeric;
      return;
    end if;
    -- Expired holds are released first; the row is read again only when that changed `held`.
    if sponsorship.release_expired_of(v_sponsor.id) > 0 then
      select * into v_sponsor from sponsorship.sponsors s where s.id = v_sponsor.id;
    end if;
    v_available := v_sponsor.deposited - v_sponsor.spent - v_sponsor.held;
    select * into v_settings from sponsorship.settings s where s.sponsor_id = v_sponsor.id;
    v_has_settings := found;

    reason := case
      when not v_has_settings or not (p_operation = any (v_settings.enabled_operations)) then 'operation_not_enabled'
      when (v_settings.active_from is not null and now() < v_settings.active_from)
        or (v_settings.active_until is not null and now() >= v_settings.active_until) then 'outside_active_window'
      when cardinality(v_settings.allowed_targets) > 0 and not (p_target = any (v_settings.allowed_targets::text[])) then 'target_not_allowed'
      when cardinality(v_settings.allowed_selectors) > 0 and not (substr(p_call_data, 1, 10) = any (v_settings.allowed_selectors)) then 'selector_not_allowed'
      when v_settings.max_cost_per_tx is not null and p_max_cost > v_settings.max_cost_per_tx then 'max_cost_exceeds_limit'
    end;
    if reason is null and (v_settings.actor_daily_amount is not null or v_settings.actor_daily_count is not null) then
      -- Today's usage and live holds of this actor: both count against the actor's caps.
      select coalesce(sum(u.amount), 0), count(*) into v_actor_spent, v_actor_count
        from sponsorship.usage u
        where u.sponsor_id = v_sponsor.id and u.actor_address = p_actor and u.created_at >= v_day_start;
      select v_actor_spent + coalesce(sum(r.max_cost), 0), v_actor_count + count(*) into v_actor_spent, v_actor_count
        from sponsorship.reservations r
        where r.sponsor_id = v_sponsor.id and r.actor_address = p_actor and r.status = 'active';
      reason := case
        when v_settings.actor_daily_count is not null and v_actor_count + 1 > v_settings.actor_daily_count then 'actor_daily_count_exceeded'
        when v_settings.actor_daily_amount is not null and v_actor_spent + p_max_cost > v_settings.actor_daily_amount then 'actor_daily_amount_exceeded'
      end;
    end if;
    if reason is null and v_settings.sponsor_daily_amount is not null
       and coalesce((select d.spent from sponsorship.sponsor_days d where d.sponsor_id = v_sponsor.id and d.day = v_today), 0)
           + v_sponsor.held + p_max_cost > v_settings.sponsor_daily_amount then
      reason := 'sponsor_daily_amount_exceeded';
    end if;
    if reason is null and v_available < p_max_cost then
      reason := 'insufficient_balance';
    end if;
    if reason is not null then
      return query select false, reason, null::core.object_id, null::timestamptz, v_available;
      return;
    end if;

    insert into sponsorship.reservations (sponsor_id, requested_by, operation_type, client_id, target_address,
        call_data, native_value_wei, actor_address, smart_account_address, max_cost, expires_at)
      values (v_sponsor.id, p_requested_by, p_operation, p_client_id, p_target, p_call_data, p_native_value, p_actor,
        p_smart_account, p_max_cost, v_expires)
      returning id into v_reservation;
    insert into sponsorship.ledger_entries (sponsor_id, kind, amount, reservation_id)
      values (v_sponsor.id, 'hold', p_max_cost, v_reservation);
    update sponsorship.sponsors set held = held + p_max_cost where id = v_sponsor.id;
    return query select true, 'eligible', v_reservation, v_expires, v_available - p_max_cost;
  end
  $$;

-- The same check as before: who may ask, then the hold.
create or replace function sponsorship.check(
  p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_client_id text,
  p_target text, p_call_data text, p_native_value numeric, p_actor text, p_smart_account text,
  p_max_cost numeric, p_rate_limit integer
) returns table (eligible boolean, reason text, reservation_id core.object_id, expires_at timestamptz, available numeric)
  language sql volatile security definer
  set search_path = ''
  as $$
    select * from sponsorship.hold_for(sponsorship.requester_for_actor(p_chain_id, p_wallet, p_actor, p_rate_limit),
      p_chain_id, p_wallet, p_operation, p_client_id, p_target, p_call_data, p_native_value, p_actor, p_smart_account, p_max_cost)
  $$;

revoke execute on function sponsorship.requester_for_actor(bigint, text, text, integer),
  sponsorship.hold_for(core.object_id, bigint, text, sponsorship.operation_type, text, text, text, numeric, text, text, numeric)
  from public;

-- ============================================================================================
-- Relays: a check-in relay mints from a collection; the hold for a vouched-for requester
-- ============================================================================================
alter table relays.relays
  drop constraint relays_kind_check,
  add constraint relays_kind_check check (kind in ('venue_gasless', 'nft_mint', 'check_in')),
  drop constraint relays_check1,
  add constraint relays_collection_iff_mint check ((kind in ('nft_mint', 'check_in')) = (collection_id is not null));

-- The hold of a relay for `p_requested_by` (the caller's function decided they may ask): the
-- ledger's rules, and for a venue call the explicit allowlist (the relayer is msg.sender of whatever
-- it calls, so a sponsor's "any target" never lets it call anything). Not eligible is an error
-- (PT409 with the reason as code, PT404 sponsor_not_found), so a refused relay leaves nothing held.
create function relays.hold_for(
  p_requested_by core.object_id, p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_target text,
  p_call_data text, p_actor text, p_max_cost numeric
) returns table (reservation_id core.object_id, expires_at timestamptz, available numeric)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_check record;
    v_targets text[];
  begin
    select * into v_check from sponsorship.hold_for(p_requested_by, p_chain_id, p_wallet, p_operation, 'relayer', p_target,
      p_call_data, 0, p_actor, null, p_max_cost);
    if v_check.reason = 'sponsor_not_found' then
      raise exception 'no sponsor wallet % on chain %', p_wallet, p_chain_id using errcode = 'PT404', hint = 'sponsor_not_found';
    elsif not v_check.eligible then
      raise exception 'the sponsor does not pay for this relay: %', v_check.reason
        using errcode = 'PT409', hint = v_check.reason, detail = json_build_object('reason', v_check.reason, 'availableWei', v_check.available::text)::text;
    end if;
    if p_operation = 'venue_gasless' then
      select st.allowed_targets::text[] into v_targets from sponsorship.settings st
        join sponsorship.sponsors s on s.id = st.sponsor_id
        where s.chain_id = p_chain_id and s.wallet_address = p_wallet;
      if not (p_target = any (coalesce(v_targets, '{}'))) then
        raise exception 'a venue relay needs its target in the sponsor''s allowedTargets'
          using errcode = 'PT409', hint = 'target_not_allowed', detail = json_build_object('reason', 'target_not_allowed')::text;
      end if;
    end if;
    return query select v_check.reservation_id, v_check.expires_at, v_check.available;
  end
  $$;

-- A relay the caller vouches for under sponsorship's actor rule. A check-in relay is not one of
-- them: its actor is the attendee, and its rule the door's (checkin.hold_attendance_mint).
create or replace function relays.reserve(
  p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_target text, p_call_data text,
  p_actor text, p_max_cost numeric, p_rate_limit integer
) returns table (reservation_id core.object_id, expires_at timestamptz, available numeric)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    if p_operation not in ('venue_gasless', 'nft_mint') then
      raise exception 'relays are venue_gasless or nft_mint' using errcode = 'PT400', hint = 'validation_failed';
    end if;
    return query select * from relays.hold_for(sponsorship.requester_for_actor(p_chain_id, p_wallet, p_actor, p_rate_limit),
      p_chain_id, p_wallet, p_operation, p_target, p_call_data, p_actor, p_max_cost);
  end
  $$;

revoke execute on function relays.hold_for(core.object_id, bigint, text, sponsorship.operation_type, text, text, text, numeric) from public;

-- ============================================================================================
-- Attendance mints
-- ============================================================================================
create table checkin.attendance_mints (
  reservation_id core.object_id not null references checkin.reservations (id) on delete cascade,
  collection_id  core.object_id not null references checkout.collections (id) on delete cascade,
  -- The admission it was asked for.
  scan_id        core.object_id not null references checkin.scans (id) on delete cascade,
  relay_id       core.object_id not null unique references relays.relays (id),
  created_at     timestamptz not null default now(),
  -- The rule: one attendance mint per reservation and collection.
  primary key (reservation_id, collection_id)
);
alter table checkin.attendance_mints enable row level security; -- definer functions only

-- An attendance mint as the door asks for it, or the refusal: the caller runs the event's door
-- (PT403 not_event_staff, PT404 event_not_found), the scan is one of the event's (PT404
-- scan_not_found), an admission not undone whose reservation is still approved (PT409
-- scan_not_admitted), of a registered collection (PT404 collection_not_found) of the event's owner
-- (PT409 collection_not_event_owners), to the attendee's first address linked on the collection's
-- chain (PT409 attendee_has_no_wallet). `relay_id` is the mint asked for already (its relay not
-- failed), else null; the collection's pricing is for the gateway's free-mint check.
create function checkin.attendance_mint_plan(p_event_id core.object_id, p_scan_id core.object_id, p_collection_id core.object_id)
  returns table (reservation_id core.object_id, recipient text, chain_id bigint, collection_address text, pricing text,
                 mint_price numeric, payment_token text, event_owner_id core.object_id, relay_id core.object_id)
  language plpgsql stable security definer
  set search_path = ''
  as $$
  declare
    v_scan checkin.scans;
    v_reservation checkin.reservations;
    v_collection checkout.collections;
    v_owner core.object_id;
  begin
    perform checkin.require_staff(p_event_id);
    select * into v_scan from checkin.scans s where s.id = p_scan_id and s.event_id = p_event_id;
    if v_scan.id is null then
      raise exception 'no scan % in this event', p_scan_id using errcode = 'PT404', hint = 'scan_not_found';
    end if;
    select * into v_reservation from checkin.reservations r where r.id = v_scan.reservation_id;
    if v_scan.result <> 'admitted' or v_scan.undone_at is not null or v_reservation.status is distinct from 'approved' then
      raise exception 'only an admission that stands earns an attendance mint' using errcode = 'PT409', hint = 'scan_not_admitted',
        detail = json_build_object('result', v_scan.result, 'undone', v_scan.undone_at is not null,
          'reservationStatus', v_reservation.status)::text;
    end if;
    select * into v_collection from checkout.collections c where c.id = p_collection_id;
    if v_collection.id is null then
      raise exception 'collection % not found', p_collection_id using errcode = 'PT404', hint = 'collection_not_found';
    end if;
    select e.owner_id into v_owner from community.events e where e.id = p_event_id;
    if v_collection.owner_id <> v_owner then
      raise exception 'an attendance mint is of a collection the event''s owner registered'
        using errcode = 'PT409', hint = 'collection_not_event_owners';
    end if;
    return query
      select v_reservation.id, lower(a.address), v_collection.chain_id, lower(v_collection.address), v_collection.pricing,
             v_collection.mint_price, v_collection.payment_token, v_owner,
             (select m.relay_id from checkin.attendance_mints m join relays.relays r on r.id = m.relay_id
              where m.reservation_id = v_reservation.id and m.collection_id = p_collection_id and r.status <> 'failed')
      from core.crypto_addresses a
      where a.user_id = v_reservation.user_id and a.chain_id = v_collection.chain_id::text
      order by a.created_at, a.id
      limit 1;
    if not found then
      raise exception 'the attendee has linked no wallet on chain %', v_collection.chain_id
        using errcode = 'PT409', hint = 'attendee_has_no_wallet', detail = json_build_object('chainId', v_collection.chain_id)::text;
    end if;
  end
  $$;

-- The sponsor's hold for an attendance mint of `p_call_data` (the gateway's encoding of the mint to
-- the plan's recipient): the plan's rules again (the scan may have been undone since), none asked
-- for already (PT409 attendance_mint_exists), a sponsor wallet of the caller's or of the event's
-- owner (PT403 sponsor_not_event_owners), then the relay's hold as operation `check_in` against the
-- attendee's address, requested by the caller.
create function checkin.hold_attendance_mint(
  p_event_id core.object_id, p_scan_id core.object_id, p_collection_id core.object_id, p_sponsor_wallet text,
  p_call_data text, p_max_cost numeric, p_rate_limit integer
) returns table (reservation_id core.object_id, expires_at timestamptz, available numeric)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_plan record;
  begin
    perform core.take_rate_limit('sponsorship.check', p_rate_limit, 60);
    select * into v_plan from checkin.attendance_mint_plan(p_event_id, p_scan_id, p_collection_id);
    if v_plan.relay_id is not null then
      raise exception 'this attendee''s mint of this collection was asked for already' using errcode = 'PT409', hint = 'attendance_mint_exists';
    end if;
    if not sponsorship.owns_wallet(v_plan.chain_id, p_sponsor_wallet) and not exists (
        select from core.crypto_addresses a
        where a.user_id = v_plan.event_owner_id and a.chain_id = v_plan.chain_id::text and lower(a.address) = p_sponsor_wallet) then
      raise exception 'the sponsor wallet is neither yours nor the event owner''s' using errcode = 'PT403', hint = 'sponsor_not_event_owners';
    end if;
    return query select * from relays.hold_for(core.current_user_id(), v_plan.chain_id, p_sponsor_wallet, 'check_in',
      v_plan.collection_address, p_call_data, v_plan.recipient, p_max_cost);
  end
  $$;

-- Records the attendance mint of a check-in relay, in the relayer's transaction that records the
-- relay: a second one of the same reservation and collection is PT409 attendance_mint_exists (the
-- transaction rolls back, nothing is broadcast), unless the first one's relay failed.
create function checkin.record_attendance_mint(
  p_relay_id core.object_id, p_reservation_id core.object_id, p_collection_id core.object_id, p_scan_id core.object_id
) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    if not exists (select from relays.relays r where r.id = p_relay_id and r.kind = 'check_in' and r.collection_id = p_collection_id) then
      raise exception 'relay % is no check-in mint of collection %', p_relay_id, p_collection_id
        using errcode = 'PT409', hint = 'reservation_mismatch';
    end if;
    insert into checkin.attendance_mints as m (reservation_id, collection_id, scan_id, relay_id)
      values (p_reservation_id, p_collection_id, p_scan_id, p_relay_id)
      on conflict (reservation_id, collection_id) do update
        set scan_id = excluded.scan_id, relay_id = excluded.relay_id, created_at = now()
        where (select r.status from relays.relays r where r.id = m.relay_id) = 'failed';
    if not found then
      raise exception 'this attendee''s mint of this collection was asked for already' using errcode = 'PT409', hint = 'attendance_mint_exists';
    end if;
  end
  $$;

-- A relay, for whoever asked for it, the sponsor's owner, and (an attendance mint) the event's door.
create or replace function relays.status(p_relay_id text)
  returns table (id text, kind text, collection_id text, reservation_id text, chain_id bigint, relayer text, nonce bigint,
                 status text, tx_hash text, attempts integer, reverted boolean, cost numeric, usage_id bigint,
                 failure_reason text, created_at timestamptz, updated_at timestamptz)
  language sql stable security definer
  set search_path = ''
  as $$
    select r.id, r.kind, r.collection_id, r.reservation_id, r.chain_id, r.relayer, r.nonce, r.status,
           coalesce(r.mined_tx_hash, (select a.tx_hash from relays.attempts a where a.relay_id = r.id order by a.attempt desc limit 1)),
           (select count(*)::integer from relays.attempts a where a.relay_id = r.id),
           r.reverted, r.cost, r.usage_id, r.failure_reason, r.created_at, r.updated_at
    from relays.relays r
    join sponsorship.reservations v on v.id = r.reservation_id
    where r.id = p_relay_id
      and (v.requested_by = (select core.current_user_id()) or sponsorship.owns_sponsor(v.sponsor_id)
           or exists (select from checkin.attendance_mints m join checkin.reservations cr on cr.id = m.reservation_id
                      where m.relay_id = r.id and checkin.may_scan(cr.event_id)))
  $$;

-- ============================================================================================
-- Grants
-- ============================================================================================
revoke execute on function
  checkin.attendance_mint_plan(core.object_id, core.object_id, core.object_id),
  checkin.hold_attendance_mint(core.object_id, core.object_id, core.object_id, text, text, numeric, integer),
  checkin.record_attendance_mint(core.object_id, core.object_id, core.object_id, core.object_id)
  from public;
grant execute on function
  checkin.attendance_mint_plan(core.object_id, core.object_id, core.object_id),
  checkin.hold_attendance_mint(core.object_id, core.object_id, core.object_id, text, text, numeric, integer)
  to authenticated;
grant usage on schema checkin to service_jobs;
grant execute on function checkin.record_attendance_mint(core.object_id, core.object_id, core.object_id, core.object_id) to service_jobs;
