-- Gasless relays: the service's relayer wallet submits an allowed transaction for a caller (a venue
-- check-in call, a free mint on a registered collection), paid from a sponsor's balance through the
-- same ledger path as every sponsored transaction:
--   relays.reserve (as the caller): sponsorship.check (settings, caps, balance; a hold) plus the
--     relay's own rules, or an error and nothing held;
--   relays.take_nonce + relays.record_signed (as service_jobs, ONE transaction): the relayer
--     account's row lock, the next nonce, the signed transaction persisted, the reservation approved
--     (the relayer is the provider), next_nonce + 1. Committed BEFORE the transaction is broadcast:
--     a crash after signing leaves the signed transaction, which the recovery pass broadcasts;
--   relays.complete (service_jobs): the receipt's real cost becomes usage (mode 'relayed') against
--     the actor, once: the relay row's lock, its status and usage's unique reservation_id;
--   relays.fail (service_jobs): the nonce was consumed by a transaction that is not ours (the key
--     was used elsewhere): the hold is released, nothing charged.
--
-- Nonces: unique (chain_id, relayer, nonce) on relays, one row per nonce whatever its replacements
-- (relays.attempts: the same nonce re-signed with higher fees). next_nonce only grows: it moves by
-- one under the row lock when a relay is recorded, and relays.sync_nonce raises it to the chain's
-- pending nonce when the table is behind (a fresh table, or the key used outside the service).
--
-- A schema of its own (not sponsorship): its functions' grants are listed by tests/db/relays/, and
-- the sponsorship schema's grant lists stay what its own tests say. Everything is SECURITY DEFINER
-- with an empty search_path; tables grant nothing to anyone (RLS on, no policy).

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA relays;

GRANT USAGE ON SCHEMA relays TO authenticated;
GRANT USAGE ON SCHEMA relays TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema relays revoke all on tables from public;
alter default privileges in schema relays revoke all on functions from public;


CREATE FUNCTION relays.add_attempt(p_relay_id text, p_tx_hash text, p_raw_tx text, p_max_fee numeric, p_priority_fee numeric) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_relay relays.relays;
    v_last relays.attempts;
    v_max_cost numeric;
  begin
    select * into v_relay from relays.relays r where r.id = p_relay_id and r.status in ('signed', 'sent') for update;
    if not found then
      raise exception 'relay % is not pending', p_relay_id using errcode = 'PT409', hint = 'relay_not_pending';
    end if;
    select * into v_last from relays.attempts a where a.relay_id = p_relay_id order by a.attempt desc limit 1;
    if p_max_fee * 8 < v_last.max_fee_per_gas * 9 or p_priority_fee * 8 < v_last.max_priority_fee_per_gas * 9 then
      raise exception 'a replacement must raise both fees by at least 12.5 %%' using errcode = 'PT409', hint = 'replacement_underpriced';
    end if;
    select v.max_cost into v_max_cost from sponsorship.reservations v where v.id = v_relay.reservation_id;
    if v_relay.gas_limit * p_max_fee > v_max_cost then
      raise exception 'gas limit x max fee exceeds the hold' using errcode = 'PT409', hint = 'cost_exceeds_hold';
    end if;
    insert into relays.attempts (relay_id, attempt, tx_hash, raw_tx, max_fee_per_gas, max_priority_fee_per_gas)
      values (p_relay_id, v_last.attempt + 1, p_tx_hash, p_raw_tx, p_max_fee, p_priority_fee);
    update relays.relays set updated_at = now() where id = p_relay_id;
    return v_last.attempt + 1;
  end
  $$;

REVOKE ALL ON FUNCTION relays.add_attempt(p_relay_id text, p_tx_hash text, p_raw_tx text, p_max_fee numeric, p_priority_fee numeric) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.add_attempt(p_relay_id text, p_tx_hash text, p_raw_tx text, p_max_fee numeric, p_priority_fee numeric) TO service_jobs;


-- What a gasless mint needs to know of a registered collection (any caller: a mint is public).
CREATE FUNCTION relays.collection_for_mint(p_collection_id text) RETURNS TABLE(chain_id bigint, address text, pricing text, mint_price numeric, payment_token text)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select c.chain_id, lower(c.address), c.pricing, c.mint_price, c.payment_token
    from checkout.collections c where c.id = p_collection_id
  $$;

REVOKE ALL ON FUNCTION relays.collection_for_mint(p_collection_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.collection_for_mint(p_collection_id text) TO authenticated;


-- The relay's transaction `p_tx_hash` (one of its attempts) is mined: its cost becomes usage
-- against the reservation's actor, the hold is released, in one transaction under the relay's and
-- the sponsor's locks. Once: completing a mined relay again with the same hash replays.
CREATE FUNCTION relays.complete(p_relay_id text, p_tx_hash text, p_cost numeric, p_reverted boolean) RETURNS TABLE(usage_id bigint, amount numeric, replayed boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_relay relays.relays;
    v_reservation sponsorship.reservations;
    v_usage sponsorship.usage;
    v_amount numeric;
  begin
    select * into v_relay from relays.relays r where r.id = p_relay_id for update;
    if not found then
      raise exception 'relay % not found', p_relay_id using errcode = 'PT404', hint = 'relay_not_found';
    end if;
    if v_relay.status = 'mined' and v_relay.mined_tx_hash = p_tx_hash then
      return query select v_relay.usage_id, v_relay.cost::numeric, true;
      return;
    end if;
    if v_relay.status not in ('signed', 'sent') then
      raise exception 'relay % is %', p_relay_id, v_relay.status using errcode = 'PT409', hint = 'relay_not_pending';
    end if;
    if not exists (select from relays.attempts a where a.relay_id = p_relay_id and a.tx_hash = p_tx_hash) then
      raise exception '% is not a transaction of relay %', p_tx_hash, p_relay_id using errcode = 'PT409', hint = 'reservation_mismatch';
    end if;
    select * into v_reservation from sponsorship.reservations r where r.id = v_relay.reservation_id;
    perform from sponsorship.sponsors s where s.id = v_reservation.sponsor_id for update;
    select * into v_reservation from sponsorship.reservations r where r.id = v_relay.reservation_id;
    if v_reservation.status <> 'active' then
      -- Released after a day pending: the relay is recorded mined, never charged.
      update relays.relays set status = 'mined', mined_tx_hash = p_tx_hash, reverted = p_reverted, cost = p_cost,
        failure_reason = 'hold_released_before_mining', updated_at = now() where id = p_relay_id;
      return query select null::bigint, 0::numeric, false;
      return;
    end if;
    -- By construction cost <= gas limit x max fee <= hold; an L1 fee above that is the sponsor's
    -- hold at most, never an overdraft.
    v_amount := least(p_cost, v_reservation.max_cost);
    insert into sponsorship.usage (sponsor_id, chain_id, reservation_id, operation_type, actor_address, mode, tx_hash, amount, recorded_by)
      values (v_reservation.sponsor_id, v_relay.chain_id, v_reservation.id, v_reservation.operation_type, v_reservation.actor_address,
              'relayed', p_tx_hash, v_amount, v_reservation.requested_by)
      returning * into v_usage;
    update sponsorship.reservations set status = 'completed', settled_at = now() where id = v_reservation.id;
    insert into sponsorship.ledger_entries (sponsor_id, kind, amount, reservation_id, usage_id)
      values (v_reservation.sponsor_id, 'release', v_reservation.max_cost, v_reservation.id, null),
             (v_reservation.sponsor_id, 'spend', v_amount, null, v_usage.id);
    update sponsorship.sponsors set held = held - v_reservation.max_cost, spent = spent + v_amount where id = v_reservation.sponsor_id;
    insert into sponsorship.sponsor_days as d (sponsor_id, day, spent)
      values (v_reservation.sponsor_id, (now() at time zone 'utc')::date, v_amount)
      on conflict (sponsor_id, day) do update set spent = d.spent + excluded.spent;
    update relays.relays set status = 'mined', mined_tx_hash = p_tx_hash, reverted = p_reverted, cost = p_cost,
      usage_id = v_usage.id, updated_at = now() where id = p_relay_id;
    return query select v_usage.id, v_amount, false;
  end
  $$;

REVOKE ALL ON FUNCTION relays.complete(p_relay_id text, p_tx_hash text, p_cost numeric, p_reverted boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.complete(p_relay_id text, p_tx_hash text, p_cost numeric, p_reverted boolean) TO service_jobs;


-- The relay's nonce was consumed by a transaction that is none of its attempts: nothing of ours
-- was mined, so its hold is released and nothing charged.
CREATE FUNCTION relays.fail(p_relay_id text, p_reason text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_relay relays.relays;
    v_reservation sponsorship.reservations;
  begin
    select * into v_relay from relays.relays r where r.id = p_relay_id and r.status in ('signed', 'sent') for update;
    if not found then return; end if;
    select * into v_reservation from sponsorship.reservations r where r.id = v_relay.reservation_id;
    perform from sponsorship.sponsors s where s.id = v_reservation.sponsor_id for update;
    select * into v_reservation from sponsorship.reservations r where r.id = v_relay.reservation_id;
    if v_reservation.status = 'active' then
      update sponsorship.reservations set status = 'released', release_reason = 'cancelled', settled_at = now() where id = v_reservation.id;
      insert into sponsorship.ledger_entries (sponsor_id, kind, amount, reservation_id)
        values (v_reservation.sponsor_id, 'release', v_reservation.max_cost, v_reservation.id);
      update sponsorship.sponsors set held = held - v_reservation.max_cost where id = v_reservation.sponsor_id;
    end if;
    update relays.relays set status = 'failed', failure_reason = p_reason, updated_at = now() where id = p_relay_id;
  end
  $$;

REVOKE ALL ON FUNCTION relays.fail(p_relay_id text, p_reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.fail(p_relay_id text, p_reason text) TO service_jobs;


-- The hold of a relay for `p_requested_by` (the caller's function decided they may ask): the
-- ledger's rules, and for a venue call the explicit allowlist (the relayer is msg.sender of whatever
-- it calls, so a sponsor's "any target" never lets it call anything). Not eligible is an error
-- (PT409 with the reason as code, PT404 sponsor_not_found), so a refused relay leaves nothing held.
CREATE FUNCTION relays.hold_for(p_requested_by core.object_id, p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_target text, p_call_data text, p_actor text, p_max_cost numeric) RETURNS TABLE(reservation_id core.object_id, expires_at timestamp with time zone, available numeric)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION relays.hold_for(p_requested_by core.object_id, p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_target text, p_call_data text, p_actor text, p_max_cost numeric) FROM PUBLIC;


-- A replacement: the relay row's lock (skip locked: another replica is replacing it), then the new
-- attempt in the same transaction. Fees must rise by at least 12.5 % (EIP-1559 replacement rule
-- of geth and most nodes) and gas limit x max fee stay within the hold.
CREATE FUNCTION relays.lock_pending(p_relay_id text) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select exists (select from relays.relays r where r.id = p_relay_id and r.status in ('signed', 'sent') for update skip locked)
  $$;

REVOKE ALL ON FUNCTION relays.lock_pending(p_relay_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.lock_pending(p_relay_id text) TO service_jobs;


-- A node accepted the attempt `p_tx_hash`.
CREATE FUNCTION relays.mark_sent(p_relay_id text, p_tx_hash text) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    update relays.attempts set broadcast_at = coalesce(broadcast_at, now()) where relay_id = p_relay_id and tx_hash = p_tx_hash;
    update relays.relays set status = 'sent', updated_at = now() where id = p_relay_id and status = 'signed';
  $$;

REVOKE ALL ON FUNCTION relays.mark_sent(p_relay_id text, p_tx_hash text) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.mark_sent(p_relay_id text, p_tx_hash text) TO service_jobs;


-- The relayer's pending relays, oldest nonce first.
CREATE FUNCTION relays.pending(p_chain_id bigint, p_relayer text, p_limit integer) RETURNS TABLE(id text, nonce bigint, status text, to_address text, call_data text, gas_limit numeric, max_cost numeric, tx_hashes text[], latest_raw_tx text, latest_max_fee numeric, latest_priority_fee numeric, latest_at timestamp with time zone, attempts integer)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select p.id, p.nonce, p.status, p.to_address, p.call_data, p.gas_limit, p.max_cost, p.tx_hashes,
           p.latest_raw_tx, p.latest_max_fee, p.latest_priority_fee, p.latest_at, p.attempts
    from relays.pending_relays p
    where p.chain_id = p_chain_id and p.relayer = p_relayer
    order by p.nonce
    limit p_limit
  $$;

REVOKE ALL ON FUNCTION relays.pending(p_chain_id bigint, p_relayer text, p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.pending(p_chain_id bigint, p_relayer text, p_limit integer) TO service_jobs;


-- One of them, by id (the primary key), with exactly the columns and conditions of relays.pending:
-- the same chain and relayer, status signed or sent, its newest attempt. No row when the relay is
-- not pending, is another relayer's or chain's, or does not exist.
CREATE FUNCTION relays.pending_relay(p_chain_id bigint, p_relayer text, p_relay_id text) RETURNS TABLE(id text, nonce bigint, status text, to_address text, call_data text, gas_limit numeric, max_cost numeric, tx_hashes text[], latest_raw_tx text, latest_max_fee numeric, latest_priority_fee numeric, latest_at timestamp with time zone, attempts integer)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select p.id, p.nonce, p.status, p.to_address, p.call_data, p.gas_limit, p.max_cost, p.tx_hashes,
           p.latest_raw_tx, p.latest_max_fee, p.latest_priority_fee, p.latest_at, p.attempts
    from relays.pending_relays p
    where p.id = p_relay_id and p.chain_id = p_chain_id and p.relayer = p_relayer
  $$;

REVOKE ALL ON FUNCTION relays.pending_relay(p_chain_id bigint, p_relayer text, p_relay_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.pending_relay(p_chain_id bigint, p_relayer text, p_relay_id text) TO service_jobs;


-- Records the signed transaction of a relay with the nonce take_nonce gave (same transaction) and
-- approves the reservation: the relayer is its provider. The hold then lasts a day (a relay is
-- mined, replaced or failed by the recovery pass long before; a relay still pending then is
-- released, and never charged).
CREATE FUNCTION relays.record_signed(p_reservation_id text, p_chain_id bigint, p_relayer text, p_nonce bigint, p_kind text, p_collection_id text, p_to text, p_call_data text, p_gas_limit numeric, p_tx_hash text, p_raw_tx text, p_max_fee numeric, p_priority_fee numeric) RETURNS core.object_id
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_next bigint;
    v_reservation sponsorship.reservations;
    v_relay core.object_id;
  begin
    select a.next_nonce into v_next from relays.relayer_accounts a
      where a.chain_id = p_chain_id and a.address = p_relayer for update;
    if v_next is distinct from p_nonce then
      raise exception 'nonce % is not the relayer''s next (%)', p_nonce, v_next using errcode = 'PT409', hint = 'nonce_not_next';
    end if;
    select * into v_reservation from sponsorship.reservations r where r.id = p_reservation_id;
    perform from sponsorship.sponsors s where s.id = v_reservation.sponsor_id for update;
    select * into v_reservation from sponsorship.reservations r where r.id = p_reservation_id;
    if not found or v_reservation.status <> 'active' or v_reservation.expires_at <= now() or v_reservation.verified_at is not null
       or v_reservation.client_id <> 'relayer' then
      raise exception 'reservation % is not an active relay hold', p_reservation_id using errcode = 'PT409', hint = 'reservation_not_active';
    end if;
    if (select s.chain_id from sponsorship.sponsors s where s.id = v_reservation.sponsor_id) <> p_chain_id
       or v_reservation.target_address <> p_to or v_reservation.call_data <> p_call_data
       or v_reservation.operation_type::text <> p_kind then
      raise exception 'the signed transaction is not the reserved call' using errcode = 'PT409', hint = 'reservation_mismatch';
    end if;
    if p_gas_limit * p_max_fee > v_reservation.max_cost then
      raise exception 'gas limit x max fee exceeds the hold' using errcode = 'PT409', hint = 'cost_exceeds_hold';
    end if;
    update sponsorship.reservations r
      set verified_at = now(), verified_gas_cost = p_gas_limit * p_max_fee, expires_at = now() + interval '1 day'
      where r.id = v_reservation.id;
    insert into sponsorship.verifications (reservation_id, client_id, chain_id, sender, gas_cost, allowed, reason)
      values (v_reservation.id, 'relayer', p_chain_id, p_relayer, p_gas_limit * p_max_fee, true, 'relayed');
    insert into relays.relays (reservation_id, kind, collection_id, chain_id, relayer, nonce, to_address, call_data, gas_limit)
      values (v_reservation.id, p_kind, p_collection_id, p_chain_id, p_relayer, p_nonce, p_to, p_call_data, p_gas_limit)
      returning id into v_relay;
    insert into relays.attempts (relay_id, attempt, tx_hash, raw_tx, max_fee_per_gas, max_priority_fee_per_gas)
      values (v_relay, 1, p_tx_hash, p_raw_tx, p_max_fee, p_priority_fee);
    update relays.relayer_accounts set next_nonce = p_nonce + 1 where chain_id = p_chain_id and address = p_relayer;
    return v_relay;
  end
  $$;

REVOKE ALL ON FUNCTION relays.record_signed(p_reservation_id text, p_chain_id bigint, p_relayer text, p_nonce bigint, p_kind text, p_collection_id text, p_to text, p_call_data text, p_gas_limit numeric, p_tx_hash text, p_raw_tx text, p_max_fee numeric, p_priority_fee numeric) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.record_signed(p_reservation_id text, p_chain_id bigint, p_relayer text, p_nonce bigint, p_kind text, p_collection_id text, p_to text, p_call_data text, p_gas_limit numeric, p_tx_hash text, p_raw_tx text, p_max_fee numeric, p_priority_fee numeric) TO service_jobs;


-- The caller's side (authenticated)
-- The hold of a relay the caller vouches for under sponsorship's actor rule: sponsorship.check (rate
-- limit, actor linked, settings, caps, balance) and, for a venue call, an explicit allowlist: the
-- relayer's address is msg.sender of whatever it calls, so a sponsor's "any target" (empty
-- allowed_targets) never lets the relayer call anything. Not eligible is an error here (PT409 with
-- the reason as code, PT404 sponsor_not_found), so a refused relay leaves nothing held. A check-in
-- relay is not one of them: its actor is the attendee, and its rule the door's
-- (checkin.hold_attendance_mint).
CREATE FUNCTION relays.reserve(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_target text, p_call_data text, p_actor text, p_max_cost numeric, p_rate_limit integer) RETURNS TABLE(reservation_id core.object_id, expires_at timestamp with time zone, available numeric)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    if p_operation not in ('venue_gasless', 'nft_mint') then
      raise exception 'relays are venue_gasless or nft_mint' using errcode = 'PT400', hint = 'validation_failed';
    end if;
    return query select * from relays.hold_for(sponsorship.requester_for_actor(p_chain_id, p_wallet, p_actor, p_rate_limit),
      p_chain_id, p_wallet, p_operation, p_target, p_call_data, p_actor, p_max_cost);
  end
  $$;

REVOKE ALL ON FUNCTION relays.reserve(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_target text, p_call_data text, p_actor text, p_max_cost numeric, p_rate_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.reserve(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_target text, p_call_data text, p_actor text, p_max_cost numeric, p_rate_limit integer) TO authenticated;


-- A relay, for whoever asked for it, the sponsor's owner, and (an attendance mint) the event's door.
CREATE FUNCTION relays.status(p_relay_id text) RETURNS TABLE(id text, kind text, collection_id text, reservation_id text, chain_id bigint, relayer text, nonce bigint, status text, tx_hash text, attempts integer, reverted boolean, cost numeric, usage_id bigint, failure_reason text, created_at timestamp with time zone, updated_at timestamp with time zone)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION relays.status(p_relay_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.status(p_relay_id text) TO authenticated;


-- The relayer's side (service_jobs)
-- Raises next_nonce to the chain's pending nonce when the table is behind; never lowers it.
CREATE FUNCTION relays.sync_nonce(p_chain_id bigint, p_relayer text, p_chain_nonce bigint) RETURNS bigint
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    insert into relays.relayer_accounts as a (chain_id, address, next_nonce, synced_at)
      values (p_chain_id, p_relayer, p_chain_nonce, now())
      on conflict (chain_id, address) do update
        set next_nonce = greatest(a.next_nonce, excluded.next_nonce), synced_at = now()
      returning next_nonce
  $$;

REVOKE ALL ON FUNCTION relays.sync_nonce(p_chain_id bigint, p_relayer text, p_chain_nonce bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.sync_nonce(p_chain_id bigint, p_relayer text, p_chain_nonce bigint) TO service_jobs;


-- The next nonce, under the relayer account's row lock held until the caller's transaction ends:
-- the caller signs with it and records the relay (record_signed) before committing.
CREATE FUNCTION relays.take_nonce(p_chain_id bigint, p_relayer text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_nonce bigint;
  begin
    select a.next_nonce into v_nonce from relays.relayer_accounts a
      where a.chain_id = p_chain_id and a.address = p_relayer for update;
    if not found then
      raise exception 'relayer % on chain % was never synced with the chain', p_relayer, p_chain_id
        using errcode = 'PT503', hint = 'relayer_not_synced';
    end if;
    return v_nonce;
  end
  $$;

REVOKE ALL ON FUNCTION relays.take_nonce(p_chain_id bigint, p_relayer text) FROM PUBLIC;
GRANT ALL ON FUNCTION relays.take_nonce(p_chain_id bigint, p_relayer text) TO service_jobs;


-- Every signed version of a relay's transaction: the first, then replacements (same nonce, fees
-- at least 12.5 % higher). The raw transaction is kept so it can be broadcast again after a crash.
CREATE TABLE relays.attempts (
    id bigint NOT NULL,
    relay_id core.object_id NOT NULL,
    attempt smallint NOT NULL,
    tx_hash sponsorship.hash NOT NULL,
    raw_tx text NOT NULL,
    max_fee_per_gas sponsorship.wei NOT NULL,
    max_priority_fee_per_gas sponsorship.wei NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    broadcast_at timestamp with time zone,
    CONSTRAINT attempts_attempt_check CHECK (((attempt >= 1) AND (attempt <= 20))),
    CONSTRAINT attempts_raw_tx_check CHECK ((raw_tx ~ '^0x([0-9a-f]{2})+$'::text)),
    CONSTRAINT attempts_pkey PRIMARY KEY (id),
    CONSTRAINT attempts_relay_id_attempt_key UNIQUE (relay_id, attempt),
    CONSTRAINT attempts_tx_hash_key UNIQUE (tx_hash)
);

ALTER TABLE relays.attempts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME relays.attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE relays.attempts ENABLE ROW LEVEL SECURITY;

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON relays.attempts AS RESTRICTIVE USING (false) WITH CHECK (false);


CREATE TABLE relays.relays (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    reservation_id core.object_id NOT NULL,
    kind text NOT NULL,
    collection_id core.object_id,
    chain_id sponsorship.chain_id NOT NULL,
    relayer sponsorship.address NOT NULL,
    nonce bigint NOT NULL,
    to_address sponsorship.address NOT NULL,
    call_data sponsorship.call_data NOT NULL,
    gas_limit sponsorship.wei NOT NULL,
    status text DEFAULT 'signed'::text NOT NULL,
    mined_tx_hash sponsorship.hash,
    reverted boolean,
    cost sponsorship.wei,
    usage_id bigint,
    failure_reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT relays_check CHECK (((status = 'mined'::text) = (mined_tx_hash IS NOT NULL))),
    CONSTRAINT relays_collection_iff_mint CHECK (((kind = ANY (ARRAY['nft_mint'::text, 'check_in'::text])) = (collection_id IS NOT NULL))),
    CONSTRAINT relays_gas_limit_check CHECK (((gas_limit)::numeric > (0)::numeric)),
    CONSTRAINT relays_kind_check CHECK ((kind = ANY (ARRAY['venue_gasless'::text, 'nft_mint'::text, 'check_in'::text]))),
    CONSTRAINT relays_nonce_check CHECK ((nonce >= 0)),
    CONSTRAINT relays_status_check CHECK ((status = ANY (ARRAY['signed'::text, 'sent'::text, 'mined'::text, 'failed'::text]))),
    CONSTRAINT relays_nonce_once UNIQUE (chain_id, relayer, nonce),
    CONSTRAINT relays_pkey PRIMARY KEY (id),
    CONSTRAINT relays_reservation_id_key UNIQUE (reservation_id),
    CONSTRAINT relays_reservation_id_fkey FOREIGN KEY (reservation_id) REFERENCES sponsorship.reservations(id),
    CONSTRAINT relays_usage_id_fkey FOREIGN KEY (usage_id) REFERENCES sponsorship.usage(id)
);

create index relays_pending_idx on relays.relays (chain_id, relayer, nonce) where status in ('signed', 'sent');

create index relays_usage_id_idx on relays.relays (usage_id);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON relays.relays AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE relays.relays ENABLE ROW LEVEL SECURITY;


-- The relayer's pending relays: not mined nor failed, each with its attempts (newest first) and the
-- hold that caps replacement fees. What a pending relay is, is said once, in this view, which both
-- functions below read: the recovery pass's batch (relays.pending) and a status read's own relay
-- (relays.pending_relay), which must find its relay whatever its nonce, however many relays of the
-- relayer are pending below it. A view, not a function: the planner inlines it, so the by-id read
-- stays a primary-key lookup and the batch read keeps its (chain_id, relayer, nonce) index order.
-- Nobody is granted the view; only the definer functions read it.
CREATE VIEW relays.pending_relays AS
 SELECT r.chain_id,
    r.relayer,
    r.id,
    r.nonce,
    r.status,
    r.to_address,
    r.call_data,
    r.gas_limit,
    v.max_cost,
    ( SELECT array_agg(a.tx_hash ORDER BY a.attempt DESC) AS array_agg
           FROM relays.attempts a
          WHERE ((a.relay_id)::text = (r.id)::text)) AS tx_hashes,
    l.raw_tx AS latest_raw_tx,
    l.max_fee_per_gas AS latest_max_fee,
    l.max_priority_fee_per_gas AS latest_priority_fee,
    l.created_at AS latest_at,
    (l.attempt)::integer AS attempts
   FROM ((relays.relays r
     JOIN sponsorship.reservations v ON (((v.id)::text = (r.reservation_id)::text)))
     CROSS JOIN LATERAL ( SELECT a.id,
            a.relay_id,
            a.attempt,
            a.tx_hash,
            a.raw_tx,
            a.max_fee_per_gas,
            a.max_priority_fee_per_gas,
            a.created_at,
            a.broadcast_at
           FROM relays.attempts a
          WHERE ((a.relay_id)::text = (r.id)::text)
          ORDER BY a.attempt DESC
         LIMIT 1) l)
  WHERE (r.status = ANY (ARRAY['signed'::text, 'sent'::text]));


CREATE TABLE relays.relayer_accounts (
    chain_id sponsorship.chain_id NOT NULL,
    address sponsorship.address NOT NULL,
    next_nonce bigint NOT NULL,
    synced_at timestamp with time zone,
    CONSTRAINT relayer_accounts_next_nonce_check CHECK ((next_nonce >= 0)),
    CONSTRAINT relayer_accounts_pkey PRIMARY KEY (chain_id, address)
);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON relays.relayer_accounts AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE relays.relayer_accounts ENABLE ROW LEVEL SECURITY;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY relays.attempts
    ADD CONSTRAINT attempts_relay_id_fkey FOREIGN KEY (relay_id) REFERENCES relays.relays(id);

ALTER TABLE ONLY relays.relays
    ADD CONSTRAINT relays_chain_id_relayer_fkey FOREIGN KEY (chain_id, relayer) REFERENCES relays.relayer_accounts(chain_id, address);

