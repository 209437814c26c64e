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

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA checkin;

GRANT USAGE ON SCHEMA checkin TO authenticated;
GRANT USAGE ON SCHEMA checkin TO anon;
GRANT USAGE ON SCHEMA checkin TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema checkin revoke all on tables from public;


-- Reservations
CREATE TYPE checkin.reservation_status AS ENUM (
    'approved',
    'pending',
    'waitlisted',
    'declined',
    'cancelled'
);


-- Adds a checker by user id or e-mail (one of them); adding again changes nothing. 201 vs 200 is
-- told by `created`.
CREATE FUNCTION checkin.add_staff(p_event_id core.object_id, p_user_id core.object_id, p_email text) RETURNS TABLE(staff json, created boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.add_staff(p_event_id core.object_id, p_user_id core.object_id, p_email text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.add_staff(p_event_id core.object_id, p_user_id core.object_id, p_email text) TO authenticated;


-- The addresses a person has linked, by chain id ('31337', 'sui:testnet'): what the gateway reads
-- holdings of.
CREATE FUNCTION checkin.addresses_of(p_user_id core.object_id) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select coalesce(jsonb_object_agg(chain_id, addresses), '{}') from (
      select a.chain_id, jsonb_agg(a.address order by a.created_at) as addresses
      from core.crypto_addresses a where a.user_id = p_user_id group by a.chain_id) by_chain
  $$;

REVOKE ALL ON FUNCTION checkin.addresses_of(p_user_id core.object_id) FROM PUBLIC;


-- An attendance mint as the door asks for it, or the refusal: the caller runs the event's door
-- (PT403 not_event_staff, PT404 event_not_found), the scan is one of the event's (PT404
-- scan_not_found), an admission not undone whose reservation is still approved (PT409
-- scan_not_admitted), of a registered collection (PT404 collection_not_found) of the event's owner
-- (PT409 collection_not_event_owners), to the attendee's first address linked on the collection's
-- chain (PT409 attendee_has_no_wallet). `relay_id` is the mint asked for already (its relay not
-- failed), else null; the collection's pricing is for the gateway's free-mint check.
CREATE FUNCTION checkin.attendance_mint_plan(p_event_id core.object_id, p_scan_id core.object_id, p_collection_id core.object_id) RETURNS TABLE(reservation_id core.object_id, recipient text, chain_id bigint, collection_address text, pricing text, mint_price numeric, payment_token text, event_owner_id core.object_id, relay_id core.object_id)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.attendance_mint_plan(p_event_id core.object_id, p_scan_id core.object_id, p_collection_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.attendance_mint_plan(p_event_id core.object_id, p_scan_id core.object_id, p_collection_id core.object_id) TO authenticated;


-- Binds a bracelet to an approved reservation. A UID bound to another reservation of the event is
-- 409 bracelet_in_use; a reservation with a bracelet already is 409 reservation_has_bracelet; a
-- `sun` bracelet whose UID is not 7 bytes is 422 sun_uid_not_7_bytes; binding the same pair again
-- answers it.
CREATE FUNCTION checkin.bind_bracelet(p_event_id core.object_id, p_reservation_id core.object_id, p_uid text, p_kind text) RETURNS TABLE(bracelet json, created boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.bind_bracelet(p_event_id core.object_id, p_reservation_id core.object_id, p_uid text, p_kind text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.bind_bracelet(p_event_id core.object_id, p_reservation_id core.object_id, p_uid text, p_kind text) TO authenticated;


-- Bracelets
CREATE TABLE checkin.bracelets (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    event_id core.object_id NOT NULL,
    uid text NOT NULL,
    reservation_id core.object_id NOT NULL,
    kind text NOT NULL,
    status text DEFAULT 'bound'::text NOT NULL,
    last_counter integer,
    bound_at timestamp with time zone DEFAULT now() NOT NULL,
    released_at timestamp with time zone,
    CONSTRAINT bracelets_check CHECK (((status = 'bound'::text) = (released_at IS NULL))),
    CONSTRAINT bracelets_kind_check CHECK ((kind = ANY (ARRAY['plain'::text, 'sun'::text]))),
    CONSTRAINT bracelets_last_counter_check CHECK ((last_counter >= 0)),
    CONSTRAINT bracelets_status_check CHECK ((status = ANY (ARRAY['bound'::text, 'unbound'::text, 'lost'::text]))),
    CONSTRAINT bracelets_uid_check CHECK ((uid ~ '^([0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20})$'::text)),
    CONSTRAINT bracelets_pkey PRIMARY KEY (id),
    CONSTRAINT bracelets_event_id_fkey FOREIGN KEY (event_id) REFERENCES community.events(id) ON DELETE CASCADE
);

create unique index bracelets_bound_reservation on checkin.bracelets (reservation_id) where status = 'bound';

create unique index bracelets_bound_uid on checkin.bracelets (event_id, uid) where status = 'bound';

create index bracelets_uid_history on checkin.bracelets (event_id, uid, bound_at desc);

ALTER TABLE checkin.bracelets ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE checkin.bracelets TO authenticated;


CREATE FUNCTION checkin.bracelet_json(b checkin.bracelets) RETURNS json
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
    select json_build_object('id', b.id, 'eventId', b.event_id, 'uid', b.uid, 'reservationId', b.reservation_id,
      'kind', b.kind, 'status', b.status, 'lastCounter', b.last_counter, 'boundAt', community.iso_time(b.bound_at), 'releasedAt', community.iso_time(b.released_at))
  $$;

REVOKE ALL ON FUNCTION checkin.bracelet_json(b checkin.bracelets) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.bracelet_json(b checkin.bracelets) TO authenticated;


-- The person cancels their reservation; a seat it held goes to the oldest waitlisted one, in the
-- same transaction. Cancelling again answers the cancelled reservation.
CREATE FUNCTION checkin.cancel_reservation(p_event_id core.object_id, p_reservation_id core.object_id) RETURNS json
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.cancel_reservation(p_event_id core.object_id, p_reservation_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.cancel_reservation(p_event_id core.object_id, p_reservation_id core.object_id) TO authenticated;


-- Live counts for the door and the host.
CREATE FUNCTION checkin.counts(p_event_id core.object_id) RETURNS json
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.counts(p_event_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.counts(p_event_id core.object_id) TO authenticated;


-- The host approves or declines. Approving needs a free seat (409 event_full); declining an approved
-- reservation frees its seat for the waitlist.
CREATE FUNCTION checkin.decide_reservation(p_event_id core.object_id, p_reservation_id core.object_id, p_approve boolean) RETURNS json
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.decide_reservation(p_event_id core.object_id, p_reservation_id core.object_id, p_approve boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.decide_reservation(p_event_id core.object_id, p_reservation_id core.object_id, p_approve boolean) TO authenticated;


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
CREATE FUNCTION checkin.decide_scan(p_caller core.object_id, p_event_id core.object_id, p_rules jsonb, p_window tstzrange, p_method text, p_reservation_id core.object_id, p_ticket_version integer, p_bracelet_uid text, p_sun_counter integer, p_sun_key_set text, p_direction text, p_device_id text, p_nonce text, p_scanned_at timestamp with time zone, p_evidence jsonb, p_offline boolean, OUT scan json, OUT needs jsonb) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.decide_scan(p_caller core.object_id, p_event_id core.object_id, p_rules jsonb, p_window tstzrange, p_method text, p_reservation_id core.object_id, p_ticket_version integer, p_bracelet_uid text, p_sun_counter integer, p_sun_key_set text, p_direction text, p_device_id text, p_nonce text, p_scanned_at timestamp with time zone, p_evidence jsonb, p_offline boolean, OUT scan json, OUT needs jsonb) FROM PUBLIC;


-- The sponsor's hold for an attendance mint of `p_call_data` (the gateway's encoding of the mint to
-- the plan's recipient): the plan's rules again (the scan may have been undone since), none asked
-- for already (PT409 attendance_mint_exists), a sponsor wallet of the caller's or of the event's
-- owner (PT403 sponsor_not_event_owners), then the relay's hold as operation `check_in` against the
-- attendee's address, requested by the caller.
CREATE FUNCTION checkin.hold_attendance_mint(p_event_id core.object_id, p_scan_id core.object_id, p_collection_id core.object_id, p_sponsor_wallet text, p_call_data text, p_max_cost numeric, p_rate_limit integer) RETURNS TABLE(reservation_id core.object_id, expires_at timestamp with time zone, available numeric)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.hold_attendance_mint(p_event_id core.object_id, p_scan_id core.object_id, p_collection_id core.object_id, p_sponsor_wallet text, p_call_data text, p_max_cost numeric, p_rate_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.hold_attendance_mint(p_event_id core.object_id, p_scan_id core.object_id, p_collection_id core.object_id, p_sponsor_wallet text, p_call_data text, p_max_cost numeric, p_rate_limit integer) TO authenticated;


-- How long a holdings read decides `register` and `checkIn` (a transfer after the read is seen by the
-- next read after this), and how long it still decides `view` in listings.
CREATE FUNCTION checkin.holdings_decide_seconds() RETURNS integer
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$ select 15 $$;

REVOKE ALL ON FUNCTION checkin.holdings_decide_seconds() FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.holdings_decide_seconds() TO authenticated;


-- The decision for `p_grant` from fresh reads: 'granted' (with the satisfying rule's evidence),
-- 'denied', or 'unavailable' (a read failed and none succeeded: never admits).
CREATE FUNCTION checkin.holdings_decision(p_rules jsonb, p_grant text, p_user_id core.object_id, p_evidence jsonb) RETURNS TABLE(decision text, evidence jsonb)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.holdings_decision(p_rules jsonb, p_grant text, p_user_id core.object_id, p_evidence jsonb) FROM PUBLIC;


-- What the gateway must read before deciding `p_grant` for `p_user_id`: null when the event has no
-- rule with that grant, or when `p_use_recent` and every such rule has a read within
-- holdings_decide_seconds; else {grant, rules, addresses}.
CREATE FUNCTION checkin.holdings_needed(p_rules jsonb, p_grant text, p_user_id core.object_id, p_use_recent boolean) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select case
      when jsonb_array_length(rules) = 0 then null
      when p_use_recent and not exists (
        select from jsonb_array_elements(rules) rule
        where not exists (select from checkin.holdings h where h.user_id = p_user_id and h.rule_key = checkin.rule_key(rule)
                          and h.read_at > now() - make_interval(secs => checkin.holdings_decide_seconds()))) then null
      else jsonb_build_object('grant', p_grant, 'rules', rules, 'addresses', checkin.addresses_of(p_user_id)) end
    from (select checkin.rules_granting(p_rules, p_grant) as rules) r
  $$;

REVOKE ALL ON FUNCTION checkin.holdings_needed(p_rules jsonb, p_grant text, p_user_id core.object_id, p_use_recent boolean) FROM PUBLIC;


CREATE FUNCTION checkin.holdings_view_seconds() RETURNS integer
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$ select 86400 $$;

REVOKE ALL ON FUNCTION checkin.holdings_view_seconds() FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.holdings_view_seconds() TO authenticated;
GRANT ALL ON FUNCTION checkin.holdings_view_seconds() TO anon;


CREATE FUNCTION checkin.list_staff(p_event_id core.object_id) RETURNS SETOF json
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    perform checkin.require_owner(p_event_id);
    return query select checkin.staff_json(s.event_id, s.user_id) from checkin.staff s
      where s.event_id = p_event_id order by s.added_at, s.user_id;
  end
  $$;

REVOKE ALL ON FUNCTION checkin.list_staff(p_event_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.list_staff(p_event_id core.object_id) TO authenticated;


-- Settings and staff
-- No row: no capacity, no approval, waitlist on, registration always open.
CREATE TABLE checkin.event_settings (
    event_id core.object_id NOT NULL,
    capacity integer,
    approval_required boolean DEFAULT false NOT NULL,
    waitlist_enabled boolean DEFAULT true NOT NULL,
    registration_opens_at timestamp with time zone,
    registration_closes_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT event_settings_capacity_check CHECK (((capacity >= 1) AND (capacity <= 1000000))),
    CONSTRAINT event_settings_check CHECK (((registration_opens_at IS NULL) OR (registration_closes_at IS NULL) OR (registration_opens_at < registration_closes_at))),
    CONSTRAINT event_settings_pkey PRIMARY KEY (event_id),
    CONSTRAINT event_settings_event_id_fkey FOREIGN KEY (event_id) REFERENCES community.events(id) ON DELETE CASCADE
);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON checkin.event_settings AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE checkin.event_settings ENABLE ROW LEVEL SECURITY;


-- The event's settings row, created when missing, locked: every change to the event's seats
-- (reserve, approve, cancel, decline, promote, a capacity change) queues here.
CREATE FUNCTION checkin.lock_event(p_event_id core.object_id) RETURNS checkin.event_settings
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_settings checkin.event_settings;
  begin
    insert into checkin.event_settings (event_id) values (p_event_id) on conflict (event_id) do nothing;
    select * into v_settings from checkin.event_settings where event_id = p_event_id for update;
    return v_settings;
  end
  $$;

REVOKE ALL ON FUNCTION checkin.lock_event(p_event_id core.object_id) FROM PUBLIC;


CREATE TABLE checkin.reservations (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    event_id core.object_id NOT NULL,
    user_id core.object_id NOT NULL,
    status checkin.reservation_status NOT NULL,
    attendee_name text NOT NULL,
    attendee_email text,
    ticket_version integer DEFAULT 1 NOT NULL,
    inside boolean DEFAULT false NOT NULL,
    checked_in_at timestamp with time zone,
    access_evidence jsonb,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    decided_at timestamp with time zone,
    search_text text GENERATED ALWAYS AS (lower(((attendee_name || ' '::text) || COALESCE(attendee_email, ''::text)))) STORED,
    CONSTRAINT reservations_attendee_name_check CHECK (((char_length(attendee_name) >= 1) AND (char_length(attendee_name) <= 320))),
    CONSTRAINT reservations_ticket_version_check CHECK ((ticket_version > 0)),
    CONSTRAINT reservations_pkey PRIMARY KEY (id),
    CONSTRAINT reservations_event_id_fkey FOREIGN KEY (event_id) REFERENCES community.events(id) ON DELETE CASCADE,
    CONSTRAINT reservations_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index reservations_event_listing on checkin.reservations (event_id, created_at, id);

create index reservations_event_status on checkin.reservations (event_id, status, created_at, id);

create unique index reservations_one_active on checkin.reservations (event_id, user_id)
  where status in ('approved', 'pending', 'waitlisted');

create index reservations_search on checkin.reservations using gin (search_text extensions.gin_trgm_ops);

create index reservations_user_listing on checkin.reservations (user_id, created_at desc, id desc);

ALTER TABLE checkin.reservations ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE checkin.reservations TO authenticated;


-- The reservation, locked, with the caller's standing: the person's own, or the event's owner/staff.
CREATE FUNCTION checkin.lock_reservation(p_reservation_id core.object_id, p_event_id core.object_id) RETURNS checkin.reservations
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.lock_reservation(p_reservation_id core.object_id, p_event_id core.object_id) FROM PUBLIC;


-- What an offline scanner needs: the ticket keys (`p_keys`, the gateway's), and every approved
-- reservation with its ticket version, name, presence and bound bracelets.
CREATE FUNCTION checkin.manifest(p_event_id core.object_id, p_keys json) RETURNS json
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    perform checkin.require_staff(p_event_id);
    return json_build_object('eventId', p_event_id, 'generatedAt', community.iso_time(now()), 'keys', p_keys, 'tickets', coalesce((
      select json_agg(json_build_object('reservationId', r.id, 'ticketVersion', r.ticket_version, 'attendeeName', r.attendee_name,
          'inside', r.inside, 'braceletUids', coalesce((select json_agg(b.uid) from checkin.bracelets b where b.reservation_id = r.id and b.status = 'bound'), '[]'))
        order by r.created_at, r.id)
      from checkin.reservations r where r.event_id = p_event_id and r.status = 'approved'), '[]'));
  end
  $$;

REVOKE ALL ON FUNCTION checkin.manifest(p_event_id core.object_id, p_keys json) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.manifest(p_event_id core.object_id, p_keys json) TO authenticated;


-- Whether the caller runs the door of `p_event_id`: its owner, or staff the owner added.
CREATE FUNCTION checkin.may_scan(p_event_id core.object_id) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select exists (select from community.events e where e.id = p_event_id and e.owner_id = core.current_user_id())
        or exists (select from checkin.staff s where s.event_id = p_event_id and s.user_id = core.current_user_id())
  $$;

REVOKE ALL ON FUNCTION checkin.may_scan(p_event_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.may_scan(p_event_id core.object_id) TO authenticated;
GRANT ALL ON FUNCTION checkin.may_scan(p_event_id core.object_id) TO anon;


-- Whether the caller may see `p_event_id` in a listing under its `view` rules: no such rule, the
-- caller owns or staffs it, or a read of the caller's holdings within a day satisfied one.
CREATE FUNCTION checkin.may_view_in_lists(p_event_id core.object_id, p_owner_id core.object_id, p_rules jsonb) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select not exists (select from jsonb_array_elements(p_rules) r where r -> 'grants' ? 'view')
      or p_owner_id = core.current_user_id()
      or checkin.may_scan(p_event_id)
      or exists (
        select from jsonb_array_elements(p_rules) r join checkin.holdings h
          on h.user_id = core.current_user_id() and h.rule_key = checkin.rule_key(r)
        where r -> 'grants' ? 'view' and h.satisfied
          and h.read_at > now() - make_interval(secs => checkin.holdings_view_seconds()))
  $$;

REVOKE ALL ON FUNCTION checkin.may_view_in_lists(p_event_id core.object_id, p_owner_id core.object_id, p_rules jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.may_view_in_lists(p_event_id core.object_id, p_owner_id core.object_id, p_rules jsonb) TO authenticated;
GRANT ALL ON FUNCTION checkin.may_view_in_lists(p_event_id core.object_id, p_owner_id core.object_id, p_rules jsonb) TO anon;


CREATE FUNCTION checkin.my_addresses() RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$ select checkin.addresses_of(core.current_user_id()) $$;

REVOKE ALL ON FUNCTION checkin.my_addresses() FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.my_addresses() TO authenticated;


-- The token keys a satisfying read offers: the tokens the chain named (ERC-721 Enumerable ids, Sui
-- object ids), else one key per unit an address holds (ERC-1155 and plain ERC-721: units carry no
-- identity, so what is claimed is the holder's count).
CREATE FUNCTION checkin.offered_tokens(p_evidence jsonb) RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
    select case when jsonb_typeof(p_evidence -> 'tokens') = 'array' then
        array(select checkin.rule_key(p_evidence -> 'rule') || '#' || lower(t) from jsonb_array_elements_text(p_evidence -> 'tokens') t)
      else
        array(select checkin.rule_key(p_evidence -> 'rule') || '@' || lower(o.key) || '#' || i
              from jsonb_each_text(coalesce(p_evidence -> 'perOwner', '{}')) o, generate_series(0, least(o.value::bigint, 1000) - 1) i)
      end
  $$;

REVOKE ALL ON FUNCTION checkin.offered_tokens(p_evidence jsonb) FROM PUBLIC;


-- Approves the oldest waitlisted reservations while seats are free (the caller holds the event's lock).
CREATE FUNCTION checkin.promote_waitlisted(p_event_id core.object_id) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_capacity integer := (select capacity from checkin.event_settings where event_id = p_event_id);
    v_free bigint;
    v_promoted integer;
  begin
    v_free := case when v_capacity is null then null
      else greatest(v_capacity - (select count(*) from checkin.reservations where event_id = p_event_id and status = 'approved'), 0) end;
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

REVOKE ALL ON FUNCTION checkin.promote_waitlisted(p_event_id core.object_id) FROM PUBLIC;


-- The settings, for the owner and staff.
CREATE FUNCTION checkin.read_settings(p_event_id core.object_id) RETURNS json
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    perform checkin.require_staff(p_event_id);
    return checkin.settings_json(p_event_id);
  end
  $$;

REVOKE ALL ON FUNCTION checkin.read_settings(p_event_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.read_settings(p_event_id core.object_id) TO authenticated;


-- Records the attendance mint of a check-in relay, in the relayer's transaction that records the
-- relay: a second one of the same reservation and collection is PT409 attendance_mint_exists (the
-- transaction rolls back, nothing is broadcast), unless the first one's relay failed.
CREATE FUNCTION checkin.record_attendance_mint(p_relay_id core.object_id, p_reservation_id core.object_id, p_collection_id core.object_id, p_scan_id core.object_id) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.record_attendance_mint(p_relay_id core.object_id, p_reservation_id core.object_id, p_collection_id core.object_id, p_scan_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.record_attendance_mint(p_relay_id core.object_id, p_reservation_id core.object_id, p_collection_id core.object_id, p_scan_id core.object_id) TO service_jobs;


-- Scans a device made offline, decided in the order they were made (first scan wins), NFT rules by the
-- reads on record. `p_scans`: [{method, reservationId, ticketVersion, braceletUid, sunCounter,
-- sunKeySet, direction, nonce, scannedAt}]. Answers the recorded scans in that order. A scan made
-- more than 6 hours before the event starts or after it ends is flagged `outside_event_window`.
CREATE FUNCTION checkin.record_offline_scans(p_event_id core.object_id, p_device_id text, p_scans jsonb) RETURNS SETOF json
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.record_offline_scans(p_event_id core.object_id, p_device_id text, p_scans jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.record_offline_scans(p_event_id core.object_id, p_device_id text, p_scans jsonb) TO authenticated;


-- A new ticket version for the person: the QR codes of earlier versions scan as `revoked`.
CREATE FUNCTION checkin.reissue_ticket(p_event_id core.object_id, p_reservation_id core.object_id) RETURNS json
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.reissue_ticket(p_event_id core.object_id, p_reservation_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.reissue_ticket(p_event_id core.object_id, p_reservation_id core.object_id) TO authenticated;


-- Unbinds (returned at the exit) or marks lost (scans then answer `revoked`); a released bracelet stays released.
CREATE FUNCTION checkin.release_bracelet(p_event_id core.object_id, p_bracelet_id core.object_id, p_status text) RETURNS json
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.release_bracelet(p_event_id core.object_id, p_bracelet_id core.object_id, p_status text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.release_bracelet(p_event_id core.object_id, p_bracelet_id core.object_id, p_status text) TO authenticated;


-- Keeps the reads of `p_evidence` (an array of {rule, satisfied, ...} or {rule, unavailable}) for
-- `p_user_id`; unavailable reads are not kept.
CREATE FUNCTION checkin.remember_holdings(p_user_id core.object_id, p_evidence jsonb) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    insert into checkin.holdings as h (user_id, rule_key, satisfied, evidence, read_at)
      select p_user_id, checkin.rule_key(e -> 'rule'), (e ->> 'satisfied')::boolean, e, now()
      from jsonb_array_elements(coalesce(p_evidence, '[]')) e
      where e ? 'satisfied'
      on conflict (user_id, rule_key) do update set satisfied = excluded.satisfied, evidence = excluded.evidence, read_at = excluded.read_at
  $$;

REVOKE ALL ON FUNCTION checkin.remember_holdings(p_user_id core.object_id, p_evidence jsonb) FROM PUBLIC;


-- The caller's own reads (an access check): kept like the reads a reservation or a scan brings.
CREATE FUNCTION checkin.remember_my_holdings(p_evidence jsonb) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$ select checkin.remember_holdings(core.current_user_id(), p_evidence) $$;

REVOKE ALL ON FUNCTION checkin.remember_my_holdings(p_evidence jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.remember_my_holdings(p_evidence jsonb) TO authenticated;


CREATE FUNCTION checkin.remove_staff(p_event_id core.object_id, p_user_id core.object_id) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    perform checkin.require_owner(p_event_id);
    delete from checkin.staff where event_id = p_event_id and user_id = p_user_id;
    if not found then
      raise exception 'this user is not staff of the event' using errcode = 'PT404', hint = 'staff_not_found';
    end if;
  end
  $$;

REVOKE ALL ON FUNCTION checkin.remove_staff(p_event_id core.object_id, p_user_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.remove_staff(p_event_id core.object_id, p_user_id core.object_id) TO authenticated;


-- The event's owner or 404/403: the host's own actions (settings, staff, decisions).
CREATE FUNCTION checkin.require_owner(p_event_id core.object_id) RETURNS void
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.require_owner(p_event_id core.object_id) FROM PUBLIC;


-- The owner or staff (true), or 404/403: the door's actions (scans, bracelets, attendee lists). A
-- boolean so a listing can use it as its first condition (evaluated once, before any row).
CREATE FUNCTION checkin.require_staff(p_event_id core.object_id) RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.require_staff(p_event_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.require_staff(p_event_id core.object_id) TO authenticated;


CREATE FUNCTION checkin.reservation_json(r checkin.reservations) RETURNS json
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
    select json_build_object(
      'id', r.id, 'eventId', r.event_id, 'userId', r.user_id, 'status', r.status,
      'attendeeName', r.attendee_name, 'ticketVersion', r.ticket_version,
      'inside', r.inside, 'checkedInAt', community.iso_time(r.checked_in_at), 'accessEvidence', r.access_evidence,
      'createdAt', community.iso_time(r.created_at), 'updatedAt', community.iso_time(r.updated_at), 'decidedAt', community.iso_time(r.decided_at))
  $$;

REVOKE ALL ON FUNCTION checkin.reservation_json(r checkin.reservations) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.reservation_json(r checkin.reservations) TO authenticated;


-- Reserving, deciding, cancelling
-- Reserves a spot for the caller. Answers the reservation and whether it is new, or `needs` (what
-- to read from chains first) when the event has `register` rules and no fresh read decides them.
-- The caller's active reservation is answered as it is (a retry). Refusals: 404 event_not_found,
-- 409 registration_closed / event_full / access_denied, 503 holdings_unavailable.
CREATE FUNCTION checkin.reserve(p_event_id core.object_id, p_evidence jsonb DEFAULT NULL::jsonb) RETURNS TABLE(reservation json, created boolean, needs jsonb)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.reserve(p_event_id core.object_id, p_evidence jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.reserve(p_event_id core.object_id, p_evidence jsonb) TO authenticated;


CREATE FUNCTION checkin.rule_key(p_rule jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
    select concat_ws('|', p_rule ->> 'chain', p_rule ->> 'chainId', lower(p_rule ->> 'collection'), p_rule ->> 'tokenId')
  $$;

REVOKE ALL ON FUNCTION checkin.rule_key(p_rule jsonb) FROM PUBLIC;


-- The event's rules that grant `p_grant`, each with its index in access_rules.
CREATE FUNCTION checkin.rules_granting(p_rules jsonb, p_grant text) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
    select coalesce(jsonb_agg(rule || jsonb_build_object('index', ordinality - 1) order by ordinality), '[]')
    from jsonb_array_elements(p_rules) with ordinality as r(rule, ordinality)
    where rule -> 'grants' ? p_grant
  $$;

REVOKE ALL ON FUNCTION checkin.rules_granting(p_rules jsonb, p_grant text) FROM PUBLIC;


-- Changes the settings the caller sends (null: unchanged; p_clear names fields to set to null). A
-- larger capacity promotes waitlisted reservations at once.
CREATE FUNCTION checkin.save_settings(p_event_id core.object_id, p_capacity integer, p_approval_required boolean, p_waitlist_enabled boolean, p_opens_at timestamp with time zone, p_closes_at timestamp with time zone, p_clear text[] DEFAULT '{}'::text[]) RETURNS json
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.save_settings(p_event_id core.object_id, p_capacity integer, p_approval_required boolean, p_waitlist_enabled boolean, p_opens_at timestamp with time zone, p_closes_at timestamp with time zone, p_clear text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.save_settings(p_event_id core.object_id, p_capacity integer, p_approval_required boolean, p_waitlist_enabled boolean, p_opens_at timestamp with time zone, p_closes_at timestamp with time zone, p_clear text[]) TO authenticated;


-- One scan at the door, as the caller (owner or staff): checkin.decide_scan.
CREATE FUNCTION checkin.scan(p_event_id core.object_id, p_method text, p_reservation_id core.object_id, p_ticket_version integer, p_bracelet_uid text, p_sun_counter integer, p_direction text, p_device_id text, p_nonce text, p_scanned_at timestamp with time zone, p_evidence jsonb DEFAULT NULL::jsonb, p_offline boolean DEFAULT false, p_sun_key_set text DEFAULT NULL::text) RETURNS TABLE(scan json, needs jsonb)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    perform checkin.require_staff(p_event_id);
    return query select * from checkin.decide_scan(core.current_user_id(), p_event_id,
      checkin.rules_granting((select e.access_rules from community.events e where e.id = p_event_id), 'checkIn'), null,
      p_method, p_reservation_id, p_ticket_version, p_bracelet_uid, p_sun_counter, p_sun_key_set, p_direction, p_device_id, p_nonce,
      p_scanned_at, p_evidence, p_offline);
  end
  $$;

REVOKE ALL ON FUNCTION checkin.scan(p_event_id core.object_id, p_method text, p_reservation_id core.object_id, p_ticket_version integer, p_bracelet_uid text, p_sun_counter integer, p_direction text, p_device_id text, p_nonce text, p_scanned_at timestamp with time zone, p_evidence jsonb, p_offline boolean, p_sun_key_set text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.scan(p_event_id core.object_id, p_method text, p_reservation_id core.object_id, p_ticket_version integer, p_bracelet_uid text, p_sun_counter integer, p_direction text, p_device_id text, p_nonce text, p_scanned_at timestamp with time zone, p_evidence jsonb, p_offline boolean, p_sun_key_set text) TO authenticated;


-- Scans
CREATE TABLE checkin.scans (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    event_id core.object_id NOT NULL,
    reservation_id core.object_id,
    bracelet_id core.object_id,
    method text NOT NULL,
    direction text NOT NULL,
    result text NOT NULL,
    device_id text NOT NULL,
    nonce text NOT NULL,
    scanned_at timestamp with time zone NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    scanned_by core.object_id NOT NULL,
    offline boolean DEFAULT false NOT NULL,
    evidence jsonb,
    undone_at timestamp with time zone,
    undone_by core.object_id,
    credential_hash bytea,
    outside_event_window boolean DEFAULT false NOT NULL,
    CONSTRAINT scans_device_id_check CHECK ((device_id ~ '^[A-Za-z0-9._:-]{1,64}$'::text)),
    CONSTRAINT scans_direction_check CHECK ((direction = ANY (ARRAY['entry'::text, 'exit'::text]))),
    CONSTRAINT scans_method_check CHECK ((method = ANY (ARRAY['qr'::text, 'bracelet'::text, 'manual'::text]))),
    CONSTRAINT scans_nonce_check CHECK ((nonce ~ '^[A-Za-z0-9._:-]{8,64}$'::text)),
    CONSTRAINT scans_result_check CHECK ((result = ANY (ARRAY['admitted'::text, 'exited'::text, 'unknown'::text, 'wrong_event'::text, 'not_approved'::text, 'revoked'::text, 'already_inside'::text, 'not_inside'::text, 'access_denied'::text, 'access_unavailable'::text, 'token_already_used'::text, 'replayed_counter'::text, 'nonce_reused'::text, 'clock_skew'::text]))),
    CONSTRAINT scans_pkey PRIMARY KEY (id),
    CONSTRAINT scans_bracelet_id_fkey FOREIGN KEY (bracelet_id) REFERENCES checkin.bracelets(id) ON DELETE CASCADE,
    CONSTRAINT scans_event_id_fkey FOREIGN KEY (event_id) REFERENCES community.events(id) ON DELETE CASCADE,
    CONSTRAINT scans_reservation_id_fkey FOREIGN KEY (reservation_id) REFERENCES checkin.reservations(id) ON DELETE CASCADE,
    CONSTRAINT scans_scanned_by_fkey FOREIGN KEY (scanned_by) REFERENCES core.users(id),
    CONSTRAINT scans_undone_by_fkey FOREIGN KEY (undone_by) REFERENCES core.users(id)
);

create index scans_bracelet_id_idx on checkin.scans (bracelet_id);

create unique index scans_one_per_nonce on checkin.scans (event_id, device_id, nonce) where result <> 'nonce_reused';

create index scans_reservation on checkin.scans (reservation_id, scanned_at desc) where reservation_id is not null;

create index scans_scanned_by_idx on checkin.scans (scanned_by);

create index scans_undone_by_idx on checkin.scans (undone_by);

ALTER TABLE checkin.scans ENABLE ROW LEVEL SECURITY;

create policy scans_select_staff on checkin.scans for select to authenticated using (checkin.may_scan(event_id));

GRANT SELECT ON TABLE checkin.scans TO authenticated;


CREATE FUNCTION checkin.scan_json(s checkin.scans, p_attendee text, p_replayed boolean) RETURNS json
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
    select json_build_object('id', s.id, 'eventId', s.event_id, 'reservationId', s.reservation_id, 'braceletId', s.bracelet_id,
      'method', s.method, 'direction', s.direction, 'result', s.result, 'admitted', s.result in ('admitted', 'exited'),
      'attendeeName', p_attendee, 'deviceId', s.device_id, 'nonce', s.nonce, 'scannedAt', community.iso_time(s.scanned_at),
      'recordedAt', community.iso_time(s.recorded_at), 'offline', s.offline, 'outsideEventWindow', s.outside_event_window,
      'evidence', s.evidence, 'undoneAt', community.iso_time(s.undone_at), 'replayed', p_replayed)
  $$;

REVOKE ALL ON FUNCTION checkin.scan_json(s checkin.scans, p_attendee text, p_replayed boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.scan_json(s checkin.scans, p_attendee text, p_replayed boolean) TO authenticated;


CREATE FUNCTION checkin.settings_json(p_event_id core.object_id) RETURNS json
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select json_build_object(
      'eventId', p_event_id,
      'capacity', s.capacity,
      'approvalRequired', coalesce(s.approval_required, false),
      'waitlistEnabled', coalesce(s.waitlist_enabled, true),
      'registrationOpensAt', community.iso_time(s.registration_opens_at),
      'registrationClosesAt', community.iso_time(s.registration_closes_at))
    from (select 1) one left join checkin.event_settings s on s.event_id = p_event_id
  $$;

REVOKE ALL ON FUNCTION checkin.settings_json(p_event_id core.object_id) FROM PUBLIC;


CREATE FUNCTION checkin.staff_json(p_event_id core.object_id, p_user_id core.object_id) RETURNS json
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select json_build_object('eventId', s.event_id, 'userId', s.user_id, 'role', s.role,
      'name', coalesce(p.display_name, p.username), 'email', u.email, 'addedAt', community.iso_time(s.added_at))
    from checkin.staff s join core.users u on u.id = s.user_id left join core.profiles p on p.user_id = s.user_id
    where s.event_id = p_event_id and s.user_id = p_user_id
  $$;

REVOKE ALL ON FUNCTION checkin.staff_json(p_event_id core.object_id, p_user_id core.object_id) FROM PUBLIC;


-- Undoes an admission or an exit (a wrong scan at the door): the reservation's presence goes back,
-- the tokens the admission claimed are released. Undoing again answers the undone scan.
CREATE FUNCTION checkin.undo_scan(p_event_id core.object_id, p_scan_id core.object_id) RETURNS json
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkin.undo_scan(p_event_id core.object_id, p_scan_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkin.undo_scan(p_event_id core.object_id, p_scan_id core.object_id) TO authenticated;


-- Attendance mints
CREATE TABLE checkin.attendance_mints (
    reservation_id core.object_id NOT NULL,
    collection_id core.object_id NOT NULL,
    scan_id core.object_id NOT NULL,
    relay_id core.object_id NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT attendance_mints_pkey PRIMARY KEY (reservation_id, collection_id),
    CONSTRAINT attendance_mints_relay_id_key UNIQUE (relay_id),
    CONSTRAINT attendance_mints_collection_id_fkey FOREIGN KEY (collection_id) REFERENCES checkout.collections(id) ON DELETE CASCADE,
    CONSTRAINT attendance_mints_relay_id_fkey FOREIGN KEY (relay_id) REFERENCES relays.relays(id),
    CONSTRAINT attendance_mints_reservation_id_fkey FOREIGN KEY (reservation_id) REFERENCES checkin.reservations(id) ON DELETE CASCADE,
    CONSTRAINT attendance_mints_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES checkin.scans(id) ON DELETE CASCADE
);

create index attendance_mints_collection_id_idx on checkin.attendance_mints (collection_id);

create index attendance_mints_scan_id_idx on checkin.attendance_mints (scan_id);

ALTER TABLE checkin.attendance_mints ENABLE ROW LEVEL SECURITY;

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON checkin.attendance_mints AS RESTRICTIVE USING (false) WITH CHECK (false);


-- Holdings evidence
-- The latest read of a person's holdings for a rule (chain, chain id, collection, token id):
-- `evidence` is what the gateway read ({satisfied, balance, perOwner, tokens, block|checkpoint, readAt}).
CREATE TABLE checkin.holdings (
    user_id core.object_id NOT NULL,
    rule_key text NOT NULL,
    satisfied boolean NOT NULL,
    evidence jsonb NOT NULL,
    read_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT holdings_rule_key_check CHECK ((char_length(rule_key) <= 400)),
    CONSTRAINT holdings_pkey PRIMARY KEY (user_id, rule_key),
    CONSTRAINT holdings_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

ALTER TABLE checkin.holdings ENABLE ROW LEVEL SECURITY;

create policy holdings_select_self on checkin.holdings for select to authenticated
  using (user_id = (select core.current_user_id()));

GRANT SELECT ON TABLE checkin.holdings TO authenticated;


CREATE TABLE checkin.staff (
    event_id core.object_id NOT NULL,
    user_id core.object_id NOT NULL,
    role text DEFAULT 'checker'::text NOT NULL,
    added_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT staff_role_check CHECK ((role = 'checker'::text)),
    CONSTRAINT staff_pkey PRIMARY KEY (event_id, user_id),
    CONSTRAINT staff_event_id_fkey FOREIGN KEY (event_id) REFERENCES community.events(id) ON DELETE CASCADE,
    CONSTRAINT staff_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index staff_user_idx on checkin.staff (user_id);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON checkin.staff AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE checkin.staff ENABLE ROW LEVEL SECURITY;


-- SUN tags
-- One row per physical NTAG 424 tag. `key_set` names the SDM keys its messages verified under (the
-- gateway's fingerprint of them): a tag programmed with other keys is another tag (its counter may
-- start again).
CREATE TABLE checkin.sun_tags (
    uid text NOT NULL,
    key_set text NOT NULL,
    last_counter integer NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT sun_tags_key_set_check CHECK ((key_set ~ '^[0-9a-f]{16}$'::text)),
    CONSTRAINT sun_tags_last_counter_check CHECK (((last_counter >= 0) AND (last_counter <= 16777215))),
    CONSTRAINT sun_tags_uid_check CHECK ((uid ~ '^[0-9A-F]{14}$'::text)),
    CONSTRAINT sun_tags_pkey PRIMARY KEY (uid, key_set)
);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON checkin.sun_tags AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE checkin.sun_tags ENABLE ROW LEVEL SECURITY;


-- The tokens an admission holds: the same token admits one person per event. Released when the
-- admission is undone.
CREATE TABLE checkin.token_claims (
    event_id core.object_id NOT NULL,
    token_key text NOT NULL,
    reservation_id core.object_id NOT NULL,
    scan_id core.object_id NOT NULL,
    claimed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT token_claims_token_key_check CHECK ((char_length(token_key) <= 600)),
    CONSTRAINT token_claims_pkey PRIMARY KEY (event_id, token_key),
    CONSTRAINT token_claims_event_id_fkey FOREIGN KEY (event_id) REFERENCES community.events(id) ON DELETE CASCADE,
    CONSTRAINT token_claims_reservation_id_fkey FOREIGN KEY (reservation_id) REFERENCES checkin.reservations(id) ON DELETE CASCADE,
    CONSTRAINT token_claims_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES checkin.scans(id) ON DELETE CASCADE
);

create index token_claims_reservation_id_idx on checkin.token_claims (reservation_id);

create index token_claims_scan_id_idx on checkin.token_claims (scan_id);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON checkin.token_claims AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE checkin.token_claims ENABLE ROW LEVEL SECURITY;


ALTER TABLE checkin.bracelets
    ADD CONSTRAINT bracelets_sun_uid_7_bytes CHECK (((kind <> 'sun'::text) OR (char_length(uid) = 14))) NOT VALID;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY checkin.bracelets
    ADD CONSTRAINT bracelets_reservation_id_fkey FOREIGN KEY (reservation_id) REFERENCES checkin.reservations(id) ON DELETE CASCADE;

create policy bracelets_select_staff on checkin.bracelets for select to authenticated using (checkin.may_scan(event_id));

create policy reservations_select_self_or_staff on checkin.reservations for select to authenticated
  using (user_id = (select core.current_user_id()) or checkin.may_scan(event_id));

