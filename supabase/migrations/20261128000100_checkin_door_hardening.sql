-- The door against a copied bracelet, two doors at once, a reused nonce and a wrong clock:
--
--   SUN tags   an NTAG 424 tag's read-counter high-water mark belongs to the physical tag (its UID
--              and the key set its messages verify under, checkin.sun_tags), not to a binding: a
--              counter at or below it is refused at any later binding and at any event. The mark is
--              raised by the statement that claims it (an upsert whose WHERE wants a higher counter),
--              so two doors reading one copied message admit it once. A `sun` bracelet's UID is
--              7 bytes (what its messages mirror), or it cannot be bound.
--   one token  a token admits one person: the admission inserts its claims and stands only when this
--              scan's claim is the one that exists (a concurrent claim by another door is waited for
--              and wins); no "check, then insert".
--   nonces     a (device, nonce) names one scan: the scan stores a hash of its credential and
--              direction. The same nonce with the same credential answers the first outcome (a
--              retry); with another credential it is 409 nonce_reused online, and recorded as a
--              `nonce_reused` refusal in an offline batch. The scan's insert is the nonce's claim: a
--              concurrent duplicate waits for the first and answers as its replay.
--   clocks     an offline scan dated more than 5 minutes in the future is refused (`clock_skew`);
--              one made more than 6 hours before the event starts or after it ends is decided as
--              usual and flagged (`outside_event_window`).

-- ============================================================================================
-- SUN tags
-- ============================================================================================
-- One row per physical NTAG 424 tag. `key_set` names the SDM keys its messages verified under (the
-- gateway's fingerprint of them): a tag programmed with other keys is another tag (its counter may
-- start again).
create table checkin.sun_tags (
  uid          text not null check (uid ~ '^[0-9A-F]{14}$'),
  key_set      text not null check (key_set ~ '^[0-9a-f]{16}$'),
  last_counter integer not null check (last_counter between 0 and 16777215),
  updated_at   timestamptz not null default now(),
  primary key (uid, key_set)
);
alter table checkin.sun_tags enable row level security; -- definer functions only

-- Bindings made from now on; older rows are left as they are (a `sun` row with another length never
-- scanned: its messages mirror 7-byte UIDs).
alter table checkin.bracelets add constraint bracelets_sun_uid_7_bytes check (kind <> 'sun' or char_length(uid) = 14) not valid;

-- Binds a bracelet to an approved reservation. A UID bound to another reservation of the event is
-- 409 bracelet_in_use; a reservation with a bracelet already is 409 reservation_has_bracelet; a
-- `sun` bracelet whose UID is not 7 bytes is 422 sun_uid_not_7_bytes; binding the same pair again
-- answers it.
create or replace function checkin.bind_bracelet(p_event_id core.object_id, p_reservation_id core.object_id, p_uid text, p_kind text)
  returns table (bracelet json, created boolean)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_reservation checkin.reservations;
    v_row checkin.bracelets;
  begin
    perform checkin.require_staff(p_event_id);
    if p_kind = 'sun' and char_length(p_uid) <> 14 then
      raise exception 'an NTAG 424 (sun) bracelet has a 7-byte UID, not % bytes', char_length(p_uid) / 2
        using errcode = 'PT422', hint = 'sun_uid_not_7_bytes';
    end if;
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

-- ============================================================================================
-- Scans: what a nonce was used for, the new refusals, the event-window flag
-- ============================================================================================
alter table checkin.scans
  -- sha256 of the scan's method, direction and credential (reservation and ticket version, or
  -- bracelet UID, read counter and key set). Null on scans recorded before it was kept.
  add column credential_hash bytea,
  -- An offline scan made well before the event's start or after its end (clock or data to check).
  add column outside_event_window boolean not null default false,
  drop constraint scans_result_check,
  add constraint scans_result_check check (result in ('admitted', 'exited', 'unknown', 'wrong_event', 'not_approved', 'revoked',
    'already_inside', 'not_inside', 'access_denied', 'access_unavailable', 'token_already_used', 'replayed_counter',
    'nonce_reused', 'clock_skew')) not valid;
alter table checkin.scans validate constraint scans_result_check;

-- One scan per (device, nonce), besides the refusals recorded for an offline batch that reused one.
-- Still the only index leading with event_id (see 20261125000200_checkin.sql): the replay lookup's
-- plan finds it whatever the table held when the plan was cached.
create unique index scans_one_per_nonce on checkin.scans (event_id, device_id, nonce) where result <> 'nonce_reused';
alter table checkin.scans drop constraint scans_event_id_device_id_nonce_key;

create or replace function checkin.scan_json(s checkin.scans, p_attendee text, p_replayed boolean) returns json
  language sql stable
  set search_path = ''
  as $$
    select json_build_object('id', s.id, 'eventId', s.event_id, 'reservationId', s.reservation_id, 'braceletId', s.bracelet_id,
      'method', s.method, 'direction', s.direction, 'result', s.result, 'admitted', s.result in ('admitted', 'exited'),
      'attendeeName', p_attendee, 'deviceId', s.device_id, 'nonce', s.nonce, 'scannedAt', community.iso_time(s.scanned_at),
      'recordedAt', community.iso_time(s.recorded_at), 'offline', s.offline, 'outsideEventWindow', s.outside_event_window,
      'evidence', s.evidence, 'undoneAt', community.iso_time(s.undone_at), 'replayed', p_replayed)
  $$;

-- ============================================================================================
-- Deciding a scan
-- ============================================================================================
drop function checkin.scan(core.object_id, text, core.object_id, integer, text, integer, text, text, text, timestamptz, jsonb, boolean);
drop function checkin.decide_scan(core.object_id, core.object_id, jsonb, text, core.object_id, integer, text, integer, text, text, text,
  timestamptz, jsonb, boolean);

-- One scan, decided and recorded for `p_caller` (checked to be the owner or staff by the caller of
-- this function). `p_rules`: the event's rules that grant checkIn (checkin.rules_granting), read once
-- by the caller; `p_window`: for an offline scan, when the event runs give or take a margin (a scan
-- outside it is flagged). The credential is the reservation (a QR code's reservation and ticket
-- version, already verified by the gateway, or a manual check-in by id) or a bracelet UID (with the
-- SUN read counter and key set for NTAG 424 bracelets). A (device, nonce) already recorded with the
-- same credential and direction answers its first outcome with `replayed`; with another, it is 409
-- nonce_reused (online) or recorded as refused `nonce_reused` (offline). An entry to an event with
-- checkIn rules and no evidence answers `needs` (nothing recorded) unless `p_offline`: an offline
-- scan is decided by the reads on record.
create function checkin.decide_scan(
  p_caller core.object_id, p_event_id core.object_id, p_rules jsonb, p_window tstzrange, p_method text,
  p_reservation_id core.object_id, p_ticket_version integer, p_bracelet_uid text, p_sun_counter integer, p_sun_key_set text,
  p_direction text, p_device_id text, p_nonce text, p_scanned_at timestamptz, p_evidence jsonb, p_offline boolean,
  out scan json, out needs jsonb)
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_credential bytea := sha256(convert_to(format('%s|%s|%s|%s|%s|%s|%s', p_method, p_direction, p_reservation_id,
      p_ticket_version, p_bracelet_uid, p_sun_counter, p_sun_key_set), 'UTF8'));
    v_scanned_at timestamptz := coalesce(p_scanned_at, now());
    v_scan checkin.scans;
    v_bracelet checkin.bracelets;
    v_reservation checkin.reservations;
    v_result text;
    v_evidence jsonb;
    v_needs jsonb;
    v_decision record;
    v_offered text[];
    v_wanted integer;
    v_held text[];
    v_claimed text[] := '{}';
    v_token text;
  begin
    select * into v_scan from checkin.scans s
      where s.event_id = p_event_id and s.device_id = p_device_id and s.nonce = p_nonce and s.result <> 'nonce_reused';
    if v_scan.id is not null then
      if v_scan.credential_hash is null or v_scan.credential_hash = v_credential then
        scan := checkin.scan_json(v_scan, (select attendee_name from checkin.reservations where id = v_scan.reservation_id), true);
        return;
      elsif not p_offline then
        raise exception 'this device used nonce % for another scan; send a new nonce for each scan', p_nonce
          using errcode = 'PT409', hint = 'nonce_reused', detail = json_build_object('scanId', v_scan.id)::text;
      end if;
      v_result := 'nonce_reused';
    elsif p_offline and v_scanned_at > now() + interval '5 minutes' then
      v_result := 'clock_skew';
    end if;

    if v_result is null and p_method = 'bracelet' then
      select * into v_bracelet from checkin.bracelets b where b.event_id = p_event_id and b.uid = p_bracelet_uid
        order by b.status = 'bound' desc, b.bound_at desc limit 1 for update;
      if v_bracelet.id is null then
        v_result := 'unknown';
      elsif v_bracelet.status <> 'bound' then
        v_result := 'revoked';
      elsif v_bracelet.kind = 'sun' then
        -- A fresh tap raises the tag's mark in this statement, or nothing does: a counter at or below
        -- it (a copied message, from this binding or any earlier one, at any event) is refused. The
        -- binding's own mark still counts for bindings that scanned before tags had theirs.
        if p_sun_counter is null or p_sun_key_set is null or p_sun_counter <= coalesce(v_bracelet.last_counter, -1) then
          v_result := 'replayed_counter';
        else
          insert into checkin.sun_tags as t (uid, key_set, last_counter) values (v_bracelet.uid, p_sun_key_set, p_sun_counter)
            on conflict (uid, key_set) do update set last_counter = excluded.last_counter, updated_at = now()
            where t.last_counter < excluded.last_counter;
          if found then
            update checkin.bracelets set last_counter = p_sun_counter where id = v_bracelet.id;
          else
            v_result := 'replayed_counter';
          end if;
        end if;
      end if;
      if v_result is null then
        select * into v_reservation from checkin.reservations r where r.id = v_bracelet.reservation_id for update;
      end if;
    elsif v_result is null then
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
          -- Admitted if the tokens can be claimed (below, once the scan is recorded).
          v_offered := checkin.offered_tokens(v_evidence);
          v_wanted := coalesce((v_evidence -> 'rule' ->> 'minBalance')::integer, 1);
        end if;
      end if;
    end if;

    v_result := coalesce(v_result, 'admitted');
    -- The nonce's claim: this insert, or the scan of the same device and nonce that a concurrent
    -- request recorded first (waited for), which this one then answers as its replay or as reused.
    insert into checkin.scans (event_id, reservation_id, bracelet_id, method, direction, result, device_id, nonce, scanned_at,
                               scanned_by, offline, evidence, credential_hash, outside_event_window)
      values (p_event_id, v_reservation.id, v_bracelet.id, p_method, p_direction, v_result, p_device_id, p_nonce,
              v_scanned_at, p_caller, p_offline, v_evidence, v_credential, coalesce(not (v_scanned_at <@ p_window), false))
      on conflict (event_id, device_id, nonce) where result <> 'nonce_reused' do nothing
      returning * into v_scan;
    if not found then
      select d.scan, d.needs into scan, needs from checkin.decide_scan(p_caller, p_event_id, p_rules, p_window, p_method,
        p_reservation_id, p_ticket_version, p_bracelet_uid, p_sun_counter, p_sun_key_set, p_direction, p_device_id, p_nonce,
        p_scanned_at, p_evidence, p_offline) d;
      return;
    end if;

    if v_offered is not null then
      -- One token, one person: the tokens this person claimed on an earlier entry count first
      -- (re-entering claims nothing new); then a token is this admission's only when its insert here
      -- is the claim that exists (another door's concurrent claim is waited for, and wins).
      select coalesce(array_agg(c.token_key), '{}') into v_held from checkin.token_claims c
        where c.event_id = p_event_id and c.token_key = any (v_offered) and c.reservation_id = v_reservation.id;
      for v_token in select t from unnest(v_offered) t where t <> all (v_held) order by t loop
        exit when cardinality(v_held) + cardinality(v_claimed) >= v_wanted;
        insert into checkin.token_claims (event_id, token_key, reservation_id, scan_id)
          values (p_event_id, v_token, v_reservation.id, v_scan.id)
          on conflict (event_id, token_key) do nothing;
        if found then
          v_claimed := v_claimed || v_token;
        end if;
      end loop;
      if cardinality(v_held) + cardinality(v_claimed) < v_wanted then
        delete from checkin.token_claims c where c.event_id = p_event_id and c.token_key = any (v_claimed);
        update checkin.scans set result = 'token_already_used' where id = v_scan.id returning * into v_scan;
        v_result := v_scan.result;
      end if;
    end if;

    if v_result = 'admitted' then
      update checkin.reservations set inside = true, checked_in_at = coalesce(checked_in_at, v_scan.scanned_at), updated_at = now()
        where id = v_reservation.id;
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
  p_scanned_at timestamptz, p_evidence jsonb default null, p_offline boolean default false, p_sun_key_set text default null
) returns table (scan json, needs jsonb)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    perform checkin.require_staff(p_event_id);
    return query select * from checkin.decide_scan(core.current_user_id(), p_event_id,
      checkin.rules_granting((select e.access_rules from community.events e where e.id = p_event_id), 'checkIn'), null,
      p_method, p_reservation_id, p_ticket_version, p_bracelet_uid, p_sun_counter, p_sun_key_set, p_direction, p_device_id, p_nonce,
      p_scanned_at, p_evidence, p_offline);
  end
  $$;

-- Scans a device made offline, decided in the order they were made (first scan wins), NFT rules by the
-- reads on record. `p_scans`: [{method, reservationId, ticketVersion, braceletUid, sunCounter,
-- sunKeySet, direction, nonce, scannedAt}]. Answers the recorded scans in that order. A scan made
-- more than 6 hours before the event starts or after it ends is flagged `outside_event_window`.
create or replace function checkin.record_offline_scans(p_event_id core.object_id, p_device_id text, p_scans jsonb)
  returns setof json
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_caller core.object_id := core.current_user_id();
    v_rules jsonb;
    v_window tstzrange;
    v_item jsonb;
    v_scan json;
  begin
    perform checkin.require_staff(p_event_id);
    select checkin.rules_granting(e.access_rules, 'checkIn'),
           tstzrange(e.starts_at - interval '6 hours', e.ends_at + interval '6 hours', '[]')
      into v_rules, v_window
      from community.events e where e.id = p_event_id;
    for v_item in
      select s from jsonb_array_elements(p_scans) with ordinality as a(s, n) order by (s ->> 'scannedAt')::timestamptz, n
    loop
      select d.scan into v_scan from checkin.decide_scan(v_caller, p_event_id, v_rules, v_window,
        v_item ->> 'method', v_item ->> 'reservationId', (v_item ->> 'ticketVersion')::integer,
        v_item ->> 'braceletUid', (v_item ->> 'sunCounter')::integer, v_item ->> 'sunKeySet', v_item ->> 'direction', p_device_id,
        v_item ->> 'nonce', (v_item ->> 'scannedAt')::timestamptz, null, true) d;
      return next v_scan;
    end loop;
  end
  $$;

-- ============================================================================================
-- Grants
-- ============================================================================================
revoke execute on function
  checkin.decide_scan(core.object_id, core.object_id, jsonb, tstzrange, text, core.object_id, integer, text, integer, text, text, text,
    text, timestamptz, jsonb, boolean),
  checkin.scan(core.object_id, text, core.object_id, integer, text, integer, text, text, text, timestamptz, jsonb, boolean, text)
  from public;
grant execute on function
  checkin.scan(core.object_id, text, core.object_id, integer, text, integer, text, text, text, timestamptz, jsonb, boolean, text)
  to authenticated;
