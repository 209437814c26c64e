-- Sponsorship: a ledger of gas money that sponsors deposit and that check-ins, mints and
-- relays spend. Postgres guarantees the money, whatever the concurrency and whichever replica asks:
--   * no overdraft: a sponsor's row carries deposited, spent and held, and a CHECK keeps
--     deposited - spent - held >= 0. Every change takes the sponsor row's lock first (FOR UPDATE),
--     so 200 concurrent checks against a balance covering 50 create exactly 50 holds;
--   * nothing counted twice: deposits are unique by (chain, transaction hash); usage by (chain,
--     transaction hash) for transactions and by (chain, user-operation hash) for ERC-4337;
--   * every change is explained: each one appends ledger entries (deposit, hold, release, spend),
--     append-only, and deposited = sum(deposit), spent = sum(spend), held = sum(hold) - sum(release)
--     hold for every sponsor (tests/db/sponsorship/the_balance_always_equals_the_sum_of_its_ledger_entries.test.sql
--     checks it after every kind of change).
--
-- A sponsor is an EVM wallet on one chain: (chain_id, wallet_address). It is owned by the user who
-- linked that address on that chain (core.crypto_addresses); its row exists from its first deposit,
-- settings or usage. Amounts are wei, numeric(78,0) (uint256), never negative.
--
-- Reservation (SPEC 3): check creates it active, holding max_cost for HOLD_SECONDS (120 s). The
-- provider's verify approves it and extends it to VERIFIED_HOLD_SECONDS (900 s: broadcast, mining
-- and complete). complete turns the hold into usage (the actual cost, at most the hold); cancel
-- releases it; an expired hold is released by the job release_expired_holds (every minute) or by the
-- next check on the same sponsor, and reads never count it once expired.
--
-- Who calls what (all writes are SECURITY DEFINER functions that check the caller themselves;
-- tables grant nothing but owners' SELECT under RLS):
--   an owner or a session user (role authenticated): check, complete, cancel (their own
--     reservations), record_deposit, save_settings and the reads (their own sponsor wallets);
--   record_usage: API keys with sponsorship:write (the gateway checks the permission);
--   the provider's verifier (shared secret checked by the gateway, role service_jobs): provider_verify;
--   pg_cron (service_jobs): release_expired_holds.
--
-- Errors (PostgREST style, mapped by the gateway): PT400 validation_failed; PT404 sponsor_not_found,
-- reservation_not_found; PT409 reservation_not_active (detail {"status"}), reservation_not_verified,
-- reservation_verified (cancel after the provider approved),
-- reservation_mismatch (detail {"field"}), cost_exceeds_hold, transaction_already_charged,
-- deposit_already_recorded, insufficient_balance; PT429 rate_limited (detail {"retryAfterSeconds"}).
-- A check that is not eligible is no error: it answers eligible = false with a reason code.

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA sponsorship;

GRANT USAGE ON SCHEMA sponsorship TO authenticated;
GRANT USAGE ON SCHEMA sponsorship TO service_role;
GRANT USAGE ON SCHEMA sponsorship TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema sponsorship revoke all on tables from public;
alter default privileges in schema sponsorship revoke all on functions from public;


-- Addresses, hashes and call data are stored lowercase: the gateway normalises them.
CREATE DOMAIN sponsorship.address AS text
	CONSTRAINT address_check CHECK ((VALUE ~ '^0x[0-9a-f]{40}$'::text));


CREATE DOMAIN sponsorship.call_data AS text
	CONSTRAINT call_data_check CHECK (((VALUE ~ '^0x([0-9a-f]{2})*$'::text) AND (char_length(VALUE) <= 131074)));


CREATE DOMAIN sponsorship.chain_id AS bigint
	CONSTRAINT chain_id_check CHECK (((VALUE >= 1) AND (VALUE <= '9007199254740991'::bigint)));


CREATE DOMAIN sponsorship.hash AS text
	CONSTRAINT hash_check CHECK ((VALUE ~ '^0x[0-9a-f]{64}$'::text));


CREATE TYPE sponsorship.operation_type AS ENUM (
    'check_in',
    'nft_mint',
    'venue_gasless',
    'promoter_reward_withdrawal',
    'promoter_payments_distribution'
);


CREATE DOMAIN sponsorship.wei AS numeric(78,0)
	CONSTRAINT wei_check CHECK ((VALUE >= (0)::numeric));


-- Reads
-- The sponsor's balance for its owner (404 sponsor_not_found for anyone else, and for a wallet
-- the caller owns but that has no row yet: zeros).
CREATE FUNCTION sponsorship.balance(p_chain_id bigint, p_wallet text) RETURNS TABLE(deposited numeric, spent numeric, held numeric, available numeric, active_reservations bigint)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_sponsor sponsorship.sponsors;
  begin
    perform sponsorship.require_owned_wallet(p_chain_id, p_wallet);
    select * into v_sponsor from sponsorship.sponsors s where s.chain_id = p_chain_id and s.wallet_address = p_wallet;
    if not found then
      return query select 0::numeric, 0::numeric, 0::numeric, 0::numeric, 0::bigint;
      return;
    end if;
    return query
      select v_sponsor.deposited::numeric, v_sponsor.spent::numeric,
             coalesce(sum(r.max_cost), 0)::numeric,
             v_sponsor.deposited - v_sponsor.spent - coalesce(sum(r.max_cost), 0),
             count(r.id)
      from sponsorship.reservations r
      where r.sponsor_id = v_sponsor.id and r.status = 'active' and r.expires_at > now();
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.balance(p_chain_id bigint, p_wallet text) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.balance(p_chain_id bigint, p_wallet text) TO authenticated;


-- cancel: the provider denied before broadcast; release the matching hold
CREATE FUNCTION sponsorship.cancel(p_reservation_id text, p_client_id text, p_target text, p_call_data text, p_native_value numeric) RETURNS TABLE(released numeric)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_reservation sponsorship.reservations;
    v_field text;
  begin
    v_reservation := sponsorship.lock_own_reservation(p_reservation_id);
    if v_reservation.status <> 'active' or v_reservation.expires_at <= now() then
      raise exception 'reservation % is not active', p_reservation_id
        using errcode = 'PT409', hint = 'reservation_not_active',
              detail = json_build_object('status', case when v_reservation.status = 'active' then 'expired' else v_reservation.status end)::text;
    end if;
    -- Once the provider approved it, the transaction may be broadcast: it completes or expires.
    if v_reservation.verified_at is not null then
      raise exception 'reservation % was approved by the provider; it can only complete or expire', p_reservation_id
        using errcode = 'PT409', hint = 'reservation_verified';
    end if;
    v_field := sponsorship.mismatched_field(v_reservation, p_client_id, p_target, p_call_data, p_native_value);
    if v_field is not null then
      raise exception '% differs from the reservation', v_field
        using errcode = 'PT409', hint = 'reservation_mismatch', detail = json_build_object('field', v_field)::text;
    end if;
    update sponsorship.reservations set status = 'released', release_reason = 'cancelled', settled_at = now()
      where id = v_reservation.id;
    insert into sponsorship.ledger_entries (sponsor_id, kind, amount, reservation_id)
      values (v_reservation.sponsor_id, 'release', v_reservation.max_cost, v_reservation.id);
    update sponsorship.sponsors set held = held - v_reservation.max_cost where id = v_reservation.sponsor_id;
    return query select v_reservation.max_cost::numeric;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.cancel(p_reservation_id text, p_client_id text, p_target text, p_call_data text, p_native_value numeric) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.cancel(p_reservation_id text, p_client_id text, p_target text, p_call_data text, p_native_value numeric) TO authenticated;


-- check: eligibility, and a hold when eligible
-- Who may ask: the sponsor's owner for any actor, anyone else for an actor address they linked
-- on that chain (a user asks for their own check-in). Reasons (eligible = false):
--   sponsor_not_found, operation_not_enabled, outside_active_window, target_not_allowed,
--   selector_not_allowed, max_cost_exceeds_limit, actor_daily_amount_exceeded,
--   actor_daily_count_exceeded, sponsor_daily_amount_exceeded, insufficient_balance.
-- actor_not_linked is an error (PT403): the caller may not speak for that actor.
CREATE FUNCTION sponsorship."check"(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_client_id text, p_target text, p_call_data text, p_native_value numeric, p_actor text, p_smart_account text, p_max_cost numeric, p_rate_limit integer) RETURNS TABLE(eligible boolean, reason text, reservation_id core.object_id, expires_at timestamp with time zone, available numeric)
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select * from sponsorship.hold_for(sponsorship.requester_for_actor(p_chain_id, p_wallet, p_actor, p_rate_limit),
      p_chain_id, p_wallet, p_operation, p_client_id, p_target, p_call_data, p_native_value, p_actor, p_smart_account, p_max_cost)
  $$;

REVOKE ALL ON FUNCTION sponsorship."check"(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_client_id text, p_target text, p_call_data text, p_native_value numeric, p_actor text, p_smart_account text, p_max_cost numeric, p_rate_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship."check"(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_client_id text, p_target text, p_call_data text, p_native_value numeric, p_actor text, p_smart_account text, p_max_cost numeric, p_rate_limit integer) TO authenticated;


-- complete: the verified transaction happened; its cost becomes usage
-- The gateway has verified the transaction on-chain and passes its cost. Here: the reservation is
-- the caller's, active and verified, the fields match the verified ones (else PT409
-- reservation_mismatch naming the field), the cost is within the hold; then, under the sponsor's
-- lock, the hold is released, the cost spent and the usage recorded, in this one transaction.
-- Idempotent: the same reservation completed again with the same transaction returns the first
-- usage; a transaction (or user operation) already charged elsewhere is PT409.
CREATE FUNCTION sponsorship.complete(p_reservation_id text, p_client_id text, p_target text, p_call_data text, p_native_value numeric, p_mode text, p_tx_hash text, p_user_op_hash text, p_usage_actor text, p_cost numeric, p_smart_account text DEFAULT NULL::text) RETURNS TABLE(usage_id bigint, amount numeric, released numeric, replayed boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_user core.object_id := core.current_user_id();
    v_reservation sponsorship.reservations;
    v_sponsor sponsorship.sponsors;
    v_usage sponsorship.usage;
    v_field text;
  begin
    v_reservation := sponsorship.lock_own_reservation(p_reservation_id);
    select * into v_sponsor from sponsorship.sponsors s where s.id = v_reservation.sponsor_id;

    select * into v_usage from sponsorship.usage u where u.reservation_id = v_reservation.id;
    if found then
      if v_usage.tx_hash = p_tx_hash and v_usage.user_op_hash is not distinct from p_user_op_hash then
        return query select v_usage.id, v_usage.amount::numeric, v_reservation.max_cost - v_usage.amount, true;
        return;
      end if;
      raise exception 'reservation % was completed by another transaction', p_reservation_id
        using errcode = 'PT409', hint = 'reservation_not_active', detail = json_build_object('status', v_reservation.status)::text;
    end if;
    if v_reservation.status <> 'active' then
      raise exception 'reservation % is %', p_reservation_id, v_reservation.status
        using errcode = 'PT409', hint = 'reservation_not_active', detail = json_build_object('status', v_reservation.status)::text;
    end if;
    if v_reservation.verified_at is null then
      raise exception 'reservation % was not verified by the provider', p_reservation_id
        using errcode = 'PT409', hint = 'reservation_not_verified';
    end if;
    -- Usage counts against the reservation's actor (its daily caps): the transaction's must be the
    -- same; and the smart account that sent it must be the one reserved (none when none was).
    v_field := coalesce(
      sponsorship.mismatched_field(v_reservation, p_client_id, p_target, p_call_data, p_native_value),
      case when v_reservation.actor_address is distinct from p_usage_actor then 'actorAddress'
           when v_reservation.smart_account_address is distinct from p_smart_account then 'smartAccountAddress' end);
    if v_field is not null then
      raise exception '% differs from the verified transaction', v_field
        using errcode = 'PT409', hint = 'reservation_mismatch', detail = json_build_object('field', v_field)::text;
    end if;
    if p_cost > v_reservation.max_cost then
      raise exception 'the transaction cost % wei, more than the % wei held', p_cost, v_reservation.max_cost
        using errcode = 'PT409', hint = 'cost_exceeds_hold';
    end if;

    begin
      insert into sponsorship.usage (sponsor_id, chain_id, reservation_id, operation_type, actor_address, mode,
          tx_hash, user_op_hash, amount, recorded_by)
        values (v_sponsor.id, v_sponsor.chain_id, v_reservation.id, v_reservation.operation_type, p_usage_actor,
          p_mode, p_tx_hash, p_user_op_hash, p_cost, v_user)
        returning * into v_usage;
    exception when unique_violation then
      raise exception 'this transaction has already been charged' using errcode = 'PT409', hint = 'transaction_already_charged';
    end;
    update sponsorship.reservations set status = 'completed', settled_at = now() where id = v_reservation.id;
    insert into sponsorship.ledger_entries (sponsor_id, kind, amount, reservation_id, usage_id)
      values (v_sponsor.id, 'release', v_reservation.max_cost, v_reservation.id, null),
             (v_sponsor.id, 'spend', p_cost, null, v_usage.id);
    update sponsorship.sponsors set held = held - v_reservation.max_cost, spent = spent + p_cost where id = v_sponsor.id;
    insert into sponsorship.sponsor_days as d (sponsor_id, day, spent)
      values (v_sponsor.id, (now() at time zone 'utc')::date, p_cost)
      on conflict (sponsor_id, day) do update set spent = d.spent + excluded.spent;
    return query select v_usage.id, p_cost, v_reservation.max_cost - p_cost, false;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.complete(p_reservation_id text, p_client_id text, p_target text, p_call_data text, p_native_value numeric, p_mode text, p_tx_hash text, p_user_op_hash text, p_usage_actor text, p_cost numeric, p_smart_account text) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.complete(p_reservation_id text, p_client_id text, p_target text, p_call_data text, p_native_value numeric, p_mode text, p_tx_hash text, p_user_op_hash text, p_usage_actor text, p_cost numeric, p_smart_account text) TO authenticated;


-- Deposits and trusted usage
-- What the gateway asks before it spends RPC calls on a deposit: the caller's rate limit is taken
-- and the wallet must be theirs (PT404 sponsor_not_found). record_deposit then runs without a limit.
CREATE FUNCTION sponsorship.deposit_preflight(p_chain_id bigint, p_wallet text, p_rate_limit integer) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    perform core.take_rate_limit('sponsorship.deposits.record', p_rate_limit, 60);
    perform sponsorship.require_owned_wallet(p_chain_id, p_wallet);
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.deposit_preflight(p_chain_id bigint, p_wallet text, p_rate_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.deposit_preflight(p_chain_id bigint, p_wallet text, p_rate_limit integer) TO authenticated;


-- Eligibility and the hold for `p_requested_by`, whose right to ask was decided by the caller
-- (sponsorship.check's actor rule, or the door's). The reasons are check's.
CREATE FUNCTION sponsorship.hold_for(p_requested_by core.object_id, p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_client_id text, p_target text, p_call_data text, p_native_value numeric, p_actor text, p_smart_account text, p_max_cost numeric) RETURNS TABLE(eligible boolean, reason text, reservation_id core.object_id, expires_at timestamp with time zone, available numeric)
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION sponsorship.hold_for(p_requested_by core.object_id, p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_client_id text, p_target text, p_call_data text, p_native_value numeric, p_actor text, p_smart_account text, p_max_cost numeric) FROM PUBLIC;


CREATE TABLE sponsorship.reservations (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    sponsor_id bigint NOT NULL,
    requested_by core.object_id NOT NULL,
    operation_type sponsorship.operation_type NOT NULL,
    client_id text NOT NULL,
    target_address sponsorship.address NOT NULL,
    call_data sponsorship.call_data NOT NULL,
    native_value_wei sponsorship.wei NOT NULL,
    actor_address sponsorship.address NOT NULL,
    smart_account_address sponsorship.address,
    max_cost sponsorship.wei NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    release_reason text,
    expires_at timestamp with time zone NOT NULL,
    verified_at timestamp with time zone,
    verified_gas_cost sponsorship.wei,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    settled_at timestamp with time zone,
    CONSTRAINT reservations_check CHECK (((status = 'released'::text) = (release_reason IS NOT NULL))),
    CONSTRAINT reservations_check1 CHECK (((status = 'active'::text) = (settled_at IS NULL))),
    CONSTRAINT reservations_client_id_check CHECK (((char_length(client_id) >= 1) AND (char_length(client_id) <= 200))),
    CONSTRAINT reservations_max_cost_check CHECK (((max_cost)::numeric > (0)::numeric)),
    CONSTRAINT reservations_release_reason_check CHECK ((release_reason = ANY (ARRAY['cancelled'::text, 'expired'::text]))),
    CONSTRAINT reservations_status_check CHECK ((status = ANY (ARRAY['active'::text, 'completed'::text, 'released'::text]))),
    CONSTRAINT reservations_pkey PRIMARY KEY (id)
);

create index reservations_active_actor_idx on sponsorship.reservations (sponsor_id, actor_address) where status = 'active';

create index reservations_active_expiry_idx on sponsorship.reservations (sponsor_id, expires_at) where status = 'active';

create index reservations_active_match_idx on sponsorship.reservations (client_id, target_address) where status = 'active';

create index reservations_expiring_idx on sponsorship.reservations (expires_at) where status = 'active';

ALTER TABLE sponsorship.reservations ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE sponsorship.reservations TO authenticated;
GRANT SELECT ON TABLE sponsorship.reservations TO service_role;


-- The caller's own reservation (PT404 reservation_not_found for anyone else's), read again after
-- its sponsor's row lock is taken: the lock comes first, as on every path that moves money.
CREATE FUNCTION sponsorship.lock_own_reservation(p_reservation_id text) RETURNS sponsorship.reservations
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_reservation sponsorship.reservations;
  begin
    select * into v_reservation from sponsorship.reservations r where r.id = p_reservation_id;
    if not found or v_reservation.requested_by is distinct from core.current_user_id() then
      raise exception 'reservation % not found', p_reservation_id using errcode = 'PT404', hint = 'reservation_not_found';
    end if;
    perform from sponsorship.sponsors s where s.id = v_reservation.sponsor_id for update;
    select * into v_reservation from sponsorship.reservations r where r.id = p_reservation_id;
    return v_reservation;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.lock_own_reservation(p_reservation_id text) FROM PUBLIC;


-- Sponsors, settings, the ledger
CREATE TABLE sponsorship.sponsors (
    id bigint NOT NULL,
    chain_id sponsorship.chain_id NOT NULL,
    wallet_address sponsorship.address NOT NULL,
    deposited sponsorship.wei DEFAULT 0 NOT NULL,
    spent sponsorship.wei DEFAULT 0 NOT NULL,
    held sponsorship.wei DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT sponsors_not_overdrawn CHECK (((((deposited)::numeric - (spent)::numeric) - (held)::numeric) >= (0)::numeric)),
    CONSTRAINT sponsors_chain_id_wallet_address_key UNIQUE (chain_id, wallet_address),
    CONSTRAINT sponsors_pkey PRIMARY KEY (id)
);

ALTER TABLE sponsorship.sponsors ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME sponsorship.sponsors_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE sponsorship.sponsors ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE sponsorship.sponsors TO authenticated;
GRANT SELECT ON TABLE sponsorship.sponsors TO service_role;


-- Internal helpers (definer callers only)
-- The sponsor's row, created when missing, locked for the rest of the transaction. Every change
-- to a sponsor's money goes through here first.
CREATE FUNCTION sponsorship.lock_sponsor(p_chain_id bigint, p_wallet text) RETURNS sponsorship.sponsors
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_sponsor sponsorship.sponsors;
  begin
    select * into v_sponsor from sponsorship.sponsors
      where chain_id = p_chain_id and wallet_address = p_wallet for update;
    if not found then
      insert into sponsorship.sponsors (chain_id, wallet_address) values (p_chain_id, p_wallet)
        on conflict (chain_id, wallet_address) do nothing;
      select * into v_sponsor from sponsorship.sponsors
        where chain_id = p_chain_id and wallet_address = p_wallet for update;
    end if;
    return v_sponsor;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.lock_sponsor(p_chain_id bigint, p_wallet text) FROM PUBLIC;


-- The first of the reserved call's fields that `complete` or `cancel` names differently (SPEC 4.5
-- rule 3), as the API spells it; null when all match. A missing value never matches.
CREATE FUNCTION sponsorship.mismatched_field(p_reservation sponsorship.reservations, p_client_id text, p_target text, p_call_data text, p_native_value numeric) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$
    select case
      when p_reservation.client_id is distinct from p_client_id then 'clientId'
      when p_reservation.target_address is distinct from p_target then 'targetAddress'
      when p_reservation.call_data is distinct from p_call_data then 'callData'
      when p_reservation.native_value_wei is distinct from p_native_value then 'nativeValueWei'
    end
  $$;

REVOKE ALL ON FUNCTION sponsorship.mismatched_field(p_reservation sponsorship.reservations, p_client_id text, p_target text, p_call_data text, p_native_value numeric) FROM PUBLIC;


CREATE FUNCTION sponsorship.owns_sponsor(p_sponsor_id bigint) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select exists (
      select from sponsorship.sponsors s
      join core.crypto_addresses a on a.chain_id = s.chain_id::text and lower(a.address) = s.wallet_address
      where s.id = p_sponsor_id and a.user_id = (select core.current_user_id()))
  $$;

REVOKE ALL ON FUNCTION sponsorship.owns_sponsor(p_sponsor_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.owns_sponsor(p_sponsor_id bigint) TO authenticated;


-- Row level security: owners read their own sponsors' rows; nobody writes but the functions below
-- True when the calling user linked `p_wallet` on `p_chain_id` (crypto_addresses' own RLS shows a
-- user their links only, so this needs no definer rights).
CREATE FUNCTION sponsorship.owns_wallet(p_chain_id bigint, p_wallet text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
    select exists (
      select from core.crypto_addresses a
      where a.user_id = (select core.current_user_id())
        and a.chain_id = p_chain_id::text
        and lower(a.address) = lower(p_wallet))
  $$;

REVOKE ALL ON FUNCTION sponsorship.owns_wallet(p_chain_id bigint, p_wallet text) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.owns_wallet(p_chain_id bigint, p_wallet text) TO authenticated;


-- provider_verify: the sponsored-transaction provider asks before it sponsors
-- Approves only a transaction matching an active, unexpired reservation: same client id, chain,
-- target, call data and value, sent by the reservation's actor (or its smart account), and a gas
-- cost (gas limit x gas price) within the hold. The oldest such reservation not verified yet is
-- chosen and locked, so two verifies of one transaction approve it once per reservation. Every
-- answer is recorded. Reasons: approved, no_matching_reservation, gas_cost_exceeds_hold.
CREATE FUNCTION sponsorship.provider_verify(p_client_id text, p_chain_id bigint, p_sender text, p_target text, p_call_data text, p_native_value numeric, p_gas_cost numeric) RETURNS TABLE(is_allowed boolean, reason text, reservation_id core.object_id)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    c_verified_hold_seconds constant integer := 900;
    v_reservation sponsorship.reservations;
  begin
    select r.* into v_reservation
      from sponsorship.reservations r
      join sponsorship.sponsors s on s.id = r.sponsor_id
      where r.status = 'active' and r.expires_at > now() and r.verified_at is null
        and r.client_id = p_client_id and s.chain_id = p_chain_id
        and r.target_address = p_target and r.call_data = p_call_data and r.native_value_wei = p_native_value
        and coalesce(r.smart_account_address, r.actor_address) = p_sender
      order by r.created_at
      limit 1
      for update of r skip locked;
    if not found then
      is_allowed := false; reason := 'no_matching_reservation';
    elsif p_gas_cost > v_reservation.max_cost then
      is_allowed := false; reason := 'gas_cost_exceeds_hold';
    else
      update sponsorship.reservations r
        set verified_at = now(), verified_gas_cost = p_gas_cost,
            expires_at = greatest(r.expires_at, now() + make_interval(secs => c_verified_hold_seconds))
        where r.id = v_reservation.id;
      is_allowed := true; reason := 'approved';
    end if;
    reservation_id := v_reservation.id;
    insert into sponsorship.verifications (reservation_id, client_id, chain_id, sender, gas_cost, allowed, reason)
      values (v_reservation.id, p_client_id, p_chain_id, p_sender, p_gas_cost, is_allowed, reason);
    return next;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.provider_verify(p_client_id text, p_chain_id bigint, p_sender text, p_target text, p_call_data text, p_native_value numeric, p_gas_cost numeric) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.provider_verify(p_client_id text, p_chain_id bigint, p_sender text, p_target text, p_call_data text, p_native_value numeric, p_gas_cost numeric) TO service_jobs;


-- The gateway verified the deposit on-chain (from the sponsor, to the chain's vault, confirmed).
-- Recorded once per (chain, hash): recording it again returns the first record.
CREATE FUNCTION sponsorship.record_deposit(p_chain_id bigint, p_wallet text, p_tx_hash text, p_amount numeric, p_to text, p_block_number bigint, p_rate_limit integer) RETURNS TABLE(deposit_id bigint, amount numeric, replayed boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_sponsor sponsorship.sponsors;
    v_deposit sponsorship.deposits;
  begin
    -- Null: the gateway took the limit already, in deposit_preflight before it read the chain.
    if p_rate_limit is not null then
      perform core.take_rate_limit('sponsorship.deposits.record', p_rate_limit, 60);
    end if;
    perform sponsorship.require_owned_wallet(p_chain_id, p_wallet);
    v_sponsor := sponsorship.lock_sponsor(p_chain_id, p_wallet);
    select * into v_deposit from sponsorship.deposits d where d.chain_id = p_chain_id and d.tx_hash = p_tx_hash;
    if found then
      if v_deposit.sponsor_id <> v_sponsor.id then
        raise exception 'this deposit is recorded for another sponsor' using errcode = 'PT409', hint = 'deposit_already_recorded';
      end if;
      return query select v_deposit.id, v_deposit.amount::numeric, true;
      return;
    end if;
    begin
      insert into sponsorship.deposits (sponsor_id, chain_id, tx_hash, amount, from_address, to_address, block_number, recorded_by)
        values (v_sponsor.id, p_chain_id, p_tx_hash, p_amount, p_wallet, p_to, p_block_number, core.current_user_id())
        returning * into v_deposit;
    exception when unique_violation then
      -- Recorded meanwhile for another sponsor (this sponsor's own records wait for its lock).
      raise exception 'this deposit is recorded for another sponsor' using errcode = 'PT409', hint = 'deposit_already_recorded';
    end;
    insert into sponsorship.ledger_entries (sponsor_id, kind, amount, deposit_id)
      values (v_sponsor.id, 'deposit', p_amount, v_deposit.id);
    update sponsorship.sponsors set deposited = deposited + p_amount where id = v_sponsor.id;
    return query select v_deposit.id, p_amount, false;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.record_deposit(p_chain_id bigint, p_wallet text, p_tx_hash text, p_amount numeric, p_to text, p_block_number bigint, p_rate_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.record_deposit(p_chain_id bigint, p_wallet text, p_tx_hash text, p_amount numeric, p_to text, p_block_number bigint, p_rate_limit integer) TO authenticated;


-- Usage a trusted integration spent outside the check/complete flow, for its own sponsor wallet.
-- Charged once per transaction; refused (insufficient_balance) rather than overdrawing.
CREATE FUNCTION sponsorship.record_usage(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_actor text, p_tx_hash text, p_amount numeric, p_rate_limit integer) RETURNS TABLE(usage_id bigint, amount numeric, replayed boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_sponsor sponsorship.sponsors;
    v_usage sponsorship.usage;
  begin
    perform core.take_rate_limit('sponsorship.usage.record', p_rate_limit, 60);
    perform sponsorship.require_owned_wallet(p_chain_id, p_wallet);
    v_sponsor := sponsorship.lock_sponsor(p_chain_id, p_wallet);
    select * into v_usage from sponsorship.usage u
      where u.chain_id = p_chain_id and u.tx_hash = p_tx_hash and u.user_op_hash is null;
    if found then
      if v_usage.sponsor_id = v_sponsor.id and v_usage.mode = 'recorded' and v_usage.amount = p_amount then
        return query select v_usage.id, v_usage.amount::numeric, true;
        return;
      end if;
      raise exception 'this transaction has already been charged' using errcode = 'PT409', hint = 'transaction_already_charged';
    end if;
    perform sponsorship.release_expired_of(v_sponsor.id);
    if (select s.deposited - s.spent - s.held from sponsorship.sponsors s where s.id = v_sponsor.id) < p_amount then
      raise exception 'the sponsor balance does not cover % wei', p_amount using errcode = 'PT409', hint = 'insufficient_balance';
    end if;
    begin
      insert into sponsorship.usage (sponsor_id, chain_id, operation_type, actor_address, mode, tx_hash, amount, recorded_by)
        values (v_sponsor.id, p_chain_id, p_operation, p_actor, 'recorded', p_tx_hash, p_amount, core.current_user_id())
        returning * into v_usage;
    exception when unique_violation then
      -- Charged meanwhile by another sponsor's usage or a completion (they hold other locks).
      raise exception 'this transaction has already been charged' using errcode = 'PT409', hint = 'transaction_already_charged';
    end;
    insert into sponsorship.ledger_entries (sponsor_id, kind, amount, usage_id) values (v_sponsor.id, 'spend', p_amount, v_usage.id);
    update sponsorship.sponsors set spent = spent + p_amount where id = v_sponsor.id;
    insert into sponsorship.sponsor_days as d (sponsor_id, day, spent)
      values (v_sponsor.id, (now() at time zone 'utc')::date, p_amount)
      on conflict (sponsor_id, day) do update set spent = d.spent + excluded.spent;
    return query select v_usage.id, p_amount, false;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.record_usage(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_actor text, p_tx_hash text, p_amount numeric, p_rate_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.record_usage(p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_actor text, p_tx_hash text, p_amount numeric, p_rate_limit integer) TO authenticated;


-- A verify request refused before any reservation could match it (no call data, or a batch of
-- calls: a reservation is one call), recorded like every other answer.
CREATE FUNCTION sponsorship.record_verification_refusal(p_client_id text, p_chain_id bigint, p_sender text, p_gas_cost numeric, p_reason text) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    insert into sponsorship.verifications (reservation_id, client_id, chain_id, sender, gas_cost, allowed, reason)
    values (null, p_client_id, p_chain_id, p_sender, p_gas_cost, false, p_reason)
  $$;

REVOKE ALL ON FUNCTION sponsorship.record_verification_refusal(p_client_id text, p_chain_id bigint, p_sender text, p_gas_cost numeric, p_reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.record_verification_refusal(p_client_id text, p_chain_id bigint, p_sender text, p_gas_cost numeric, p_reason text) TO service_jobs;


-- Append-only, for everyone including the table owner.
CREATE FUNCTION sponsorship.refuse_ledger_change() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$ begin raise exception 'the sponsorship ledger is append-only' using errcode = 'PT403', hint = 'ledger_append_only'; end $$;

REVOKE ALL ON FUNCTION sponsorship.refuse_ledger_change() FROM PUBLIC;


-- The job: release expired holds (every minute)
-- Security definer like the functions that take holds: it changes any sponsor's money, taking each
-- sponsor's lock in id order (the order every other path takes one lock in), skipping sponsors busy
-- right now (their next check releases their holds anyway).
CREATE FUNCTION sponsorship.release_expired_holds() RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_sponsor_id bigint;
    v_total integer := 0;
  begin
    for v_sponsor_id in
      select s.id from sponsorship.sponsors s
      where exists (select from sponsorship.reservations r
                    where r.sponsor_id = s.id and r.status = 'active' and r.expires_at <= now())
      order by s.id
      for update skip locked
    loop
      v_total := v_total + sponsorship.release_expired_of(v_sponsor_id);
    end loop;
    return v_total;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.release_expired_holds() FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.release_expired_holds() TO service_jobs;


-- Releases `p_sponsor_id`'s holds that expired (the caller holds the sponsor's lock).
CREATE FUNCTION sponsorship.release_expired_of(p_sponsor_id bigint) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_count integer;
    v_total numeric;
  begin
    with released as (
      update sponsorship.reservations
        set status = 'released', release_reason = 'expired', settled_at = now()
        where sponsor_id = p_sponsor_id and status = 'active' and expires_at <= now()
        returning id, max_cost
    ), entries as (
      insert into sponsorship.ledger_entries (sponsor_id, kind, amount, reservation_id)
        select p_sponsor_id, 'release', max_cost, id from released
    )
    select count(*), coalesce(sum(max_cost), 0) into v_count, v_total from released;
    if v_count > 0 then
      update sponsorship.sponsors set held = held - v_total where id = p_sponsor_id;
    end if;
    return v_count;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.release_expired_of(p_sponsor_id bigint) FROM PUBLIC;


-- Sponsorship: who may ask, apart from the hold
-- The caller, when they may ask `p_wallet` to pay for `p_actor`: the sponsor's owner for any actor,
-- anyone else for an address they linked on that chain. PT401 unauthenticated, PT403
-- actor_not_linked, PT429 rate_limited.
CREATE FUNCTION sponsorship.requester_for_actor(p_chain_id bigint, p_wallet text, p_actor text, p_rate_limit integer) RETURNS core.object_id
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION sponsorship.requester_for_actor(p_chain_id bigint, p_wallet text, p_actor text, p_rate_limit integer) FROM PUBLIC;


-- PT404 sponsor_not_found unless the calling user linked the wallet on the chain: the owner-only
-- operations' first check.
CREATE FUNCTION sponsorship.require_owned_wallet(p_chain_id bigint, p_wallet text) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO ''
    AS $$
  begin
    if not sponsorship.owns_wallet(p_chain_id, p_wallet) then
      raise exception 'no sponsor wallet % on chain % for this user', p_wallet, p_chain_id
        using errcode = 'PT404', hint = 'sponsor_not_found';
    end if;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.require_owned_wallet(p_chain_id bigint, p_wallet text) FROM PUBLIC;


-- The chain of the caller's own reservation (null for anyone else's, or an unknown id): what
-- complete needs to know which chain to verify on before it calls the chain.
CREATE FUNCTION sponsorship.reservation_chain_id(p_reservation_id text) RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select s.chain_id from sponsorship.reservations r
    join sponsorship.sponsors s on s.id = r.sponsor_id
    where r.id = p_reservation_id and r.requested_by = (select core.current_user_id())
  $$;

REVOKE ALL ON FUNCTION sponsorship.reservation_chain_id(p_reservation_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.reservation_chain_id(p_reservation_id text) TO authenticated;


-- The limits paymaster policies offer (Alchemy Gas Manager, thirdweb, Pimlico). A null limit is no
-- limit; empty allowlists allow everything; nothing is enabled until the owner says so.
CREATE TABLE sponsorship.settings (
    sponsor_id bigint NOT NULL,
    enabled_operations sponsorship.operation_type[] DEFAULT '{}'::sponsorship.operation_type[] NOT NULL,
    max_cost_per_tx sponsorship.wei,
    actor_daily_amount sponsorship.wei,
    actor_daily_count integer,
    sponsor_daily_amount sponsorship.wei,
    allowed_targets sponsorship.address[] DEFAULT '{}'::sponsorship.address[] NOT NULL,
    allowed_selectors text[] DEFAULT '{}'::text[] NOT NULL,
    active_from timestamp with time zone,
    active_until timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT settings_actor_daily_count_check CHECK ((actor_daily_count >= 0)),
    CONSTRAINT settings_allowed_selectors_check CHECK ((array_to_string(allowed_selectors, ','::text) ~ '^(0x[0-9a-f]{8}(,0x[0-9a-f]{8})*)?$'::text)),
    CONSTRAINT settings_check CHECK (((active_from IS NULL) OR (active_until IS NULL) OR (active_from < active_until))),
    CONSTRAINT settings_check1 CHECK (((cardinality(allowed_targets) <= 100) AND (cardinality(allowed_selectors) <= 100))),
    CONSTRAINT settings_pkey PRIMARY KEY (sponsor_id),
    CONSTRAINT settings_sponsor_id_fkey FOREIGN KEY (sponsor_id) REFERENCES sponsorship.sponsors(id)
);

ALTER TABLE sponsorship.settings ENABLE ROW LEVEL SECURITY;

create policy settings_select_owner on sponsorship.settings for select to authenticated
  using (sponsorship.owns_sponsor(sponsor_id));

GRANT SELECT ON TABLE sponsorship.settings TO authenticated;
GRANT SELECT ON TABLE sponsorship.settings TO service_role;


-- Settings
CREATE FUNCTION sponsorship.save_settings(p_chain_id bigint, p_wallet text, p_enabled_operations sponsorship.operation_type[], p_max_cost_per_tx numeric, p_actor_daily_amount numeric, p_actor_daily_count integer, p_sponsor_daily_amount numeric, p_allowed_targets text[], p_allowed_selectors text[], p_active_from timestamp with time zone, p_active_until timestamp with time zone) RETURNS sponsorship.settings
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_sponsor sponsorship.sponsors;
    v_settings sponsorship.settings;
  begin
    perform sponsorship.require_owned_wallet(p_chain_id, p_wallet);
    v_sponsor := sponsorship.lock_sponsor(p_chain_id, p_wallet);
    insert into sponsorship.settings as s (sponsor_id, enabled_operations, max_cost_per_tx, actor_daily_amount,
        actor_daily_count, sponsor_daily_amount, allowed_targets, allowed_selectors, active_from, active_until)
      values (v_sponsor.id, coalesce((select array_agg(distinct o order by o) from unnest(p_enabled_operations) o), '{}'),
        p_max_cost_per_tx, p_actor_daily_amount, p_actor_daily_count, p_sponsor_daily_amount,
        coalesce((select array_agg(distinct t order by t) from unnest(p_allowed_targets) t), '{}'),
        coalesce((select array_agg(distinct f order by f) from unnest(p_allowed_selectors) f), '{}'),
        p_active_from, p_active_until)
      on conflict (sponsor_id) do update set
        enabled_operations = excluded.enabled_operations, max_cost_per_tx = excluded.max_cost_per_tx,
        actor_daily_amount = excluded.actor_daily_amount, actor_daily_count = excluded.actor_daily_count,
        sponsor_daily_amount = excluded.sponsor_daily_amount, allowed_targets = excluded.allowed_targets,
        allowed_selectors = excluded.allowed_selectors, active_from = excluded.active_from,
        active_until = excluded.active_until, updated_at = now()
      returning * into v_settings;
    return v_settings;
  end
  $$;

REVOKE ALL ON FUNCTION sponsorship.save_settings(p_chain_id bigint, p_wallet text, p_enabled_operations sponsorship.operation_type[], p_max_cost_per_tx numeric, p_actor_daily_amount numeric, p_actor_daily_count integer, p_sponsor_daily_amount numeric, p_allowed_targets text[], p_allowed_selectors text[], p_active_from timestamp with time zone, p_active_until timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION sponsorship.save_settings(p_chain_id bigint, p_wallet text, p_enabled_operations sponsorship.operation_type[], p_max_cost_per_tx numeric, p_actor_daily_amount numeric, p_actor_daily_count integer, p_sponsor_daily_amount numeric, p_allowed_targets text[], p_allowed_selectors text[], p_active_from timestamp with time zone, p_active_until timestamp with time zone) TO authenticated;


CREATE TABLE sponsorship.deposits (
    id bigint NOT NULL,
    sponsor_id bigint NOT NULL,
    chain_id sponsorship.chain_id NOT NULL,
    tx_hash sponsorship.hash NOT NULL,
    amount sponsorship.wei NOT NULL,
    from_address sponsorship.address NOT NULL,
    to_address sponsorship.address NOT NULL,
    block_number bigint NOT NULL,
    recorded_by core.object_id NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT deposits_amount_check CHECK (((amount)::numeric > (0)::numeric)),
    CONSTRAINT deposits_once UNIQUE (chain_id, tx_hash),
    CONSTRAINT deposits_pkey PRIMARY KEY (id),
    CONSTRAINT deposits_sponsor_id_fkey FOREIGN KEY (sponsor_id) REFERENCES sponsorship.sponsors(id)
);

ALTER TABLE sponsorship.deposits ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME sponsorship.deposits_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

create index deposits_sponsor_idx on sponsorship.deposits (sponsor_id, id desc);

ALTER TABLE sponsorship.deposits ENABLE ROW LEVEL SECURITY;

create policy deposits_select_owner on sponsorship.deposits for select to authenticated
  using (sponsorship.owns_sponsor(sponsor_id));

GRANT SELECT ON TABLE sponsorship.deposits TO authenticated;
GRANT SELECT ON TABLE sponsorship.deposits TO service_role;


CREATE TABLE sponsorship.ledger_entries (
    id bigint NOT NULL,
    sponsor_id bigint NOT NULL,
    kind text NOT NULL,
    amount sponsorship.wei NOT NULL,
    deposit_id bigint,
    reservation_id core.object_id,
    usage_id bigint,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ledger_entries_check CHECK (
CASE kind
    WHEN 'deposit'::text THEN (deposit_id IS NOT NULL)
    WHEN 'hold'::text THEN (reservation_id IS NOT NULL)
    WHEN 'release'::text THEN (reservation_id IS NOT NULL)
    ELSE (usage_id IS NOT NULL)
END),
    CONSTRAINT ledger_entries_kind_check CHECK ((kind = ANY (ARRAY['deposit'::text, 'hold'::text, 'release'::text, 'spend'::text]))),
    CONSTRAINT ledger_entries_pkey PRIMARY KEY (id),
    CONSTRAINT ledger_entries_deposit_id_fkey FOREIGN KEY (deposit_id) REFERENCES sponsorship.deposits(id),
    CONSTRAINT ledger_entries_reservation_id_fkey FOREIGN KEY (reservation_id) REFERENCES sponsorship.reservations(id),
    CONSTRAINT ledger_entries_sponsor_id_fkey FOREIGN KEY (sponsor_id) REFERENCES sponsorship.sponsors(id)
);

ALTER TABLE sponsorship.ledger_entries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME sponsorship.ledger_entries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

create index ledger_entries_deposit_id_idx on sponsorship.ledger_entries (deposit_id);

create index ledger_entries_reservation_id_idx on sponsorship.ledger_entries (reservation_id);

create index ledger_entries_sponsor_idx on sponsorship.ledger_entries (sponsor_id, id);

create index ledger_entries_usage_id_idx on sponsorship.ledger_entries (usage_id);

CREATE TRIGGER ledger_entries_append_only BEFORE DELETE OR UPDATE ON sponsorship.ledger_entries FOR EACH ROW EXECUTE FUNCTION sponsorship.refuse_ledger_change();

CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON sponsorship.ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION sponsorship.refuse_ledger_change();

ALTER TABLE sponsorship.ledger_entries ENABLE ROW LEVEL SECURITY;

create policy ledger_select_owner on sponsorship.ledger_entries for select to authenticated
  using (sponsorship.owns_sponsor(sponsor_id));

GRANT SELECT ON TABLE sponsorship.ledger_entries TO authenticated;
GRANT SELECT ON TABLE sponsorship.ledger_entries TO service_role;


-- Daily totals per sponsor (UTC days), kept with the usage so a daily cap costs one row read.
CREATE TABLE sponsorship.sponsor_days (
    sponsor_id bigint NOT NULL,
    day date NOT NULL,
    spent sponsorship.wei DEFAULT 0 NOT NULL,
    CONSTRAINT sponsor_days_pkey PRIMARY KEY (sponsor_id, day),
    CONSTRAINT sponsor_days_sponsor_id_fkey FOREIGN KEY (sponsor_id) REFERENCES sponsorship.sponsors(id)
);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON sponsorship.sponsor_days AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE sponsorship.sponsor_days ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE sponsorship.sponsor_days TO service_role;


CREATE TABLE sponsorship.usage (
    id bigint NOT NULL,
    sponsor_id bigint NOT NULL,
    chain_id sponsorship.chain_id NOT NULL,
    reservation_id core.object_id,
    operation_type sponsorship.operation_type NOT NULL,
    actor_address sponsorship.address NOT NULL,
    mode text NOT NULL,
    tx_hash sponsorship.hash NOT NULL,
    user_op_hash sponsorship.hash,
    amount sponsorship.wei NOT NULL,
    recorded_by core.object_id NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT usage_check CHECK (
CASE mode
    WHEN 'erc4337'::text THEN (user_op_hash IS NOT NULL)
    WHEN 'eip7702'::text THEN true
    ELSE (user_op_hash IS NULL)
END),
    CONSTRAINT usage_mode_check CHECK ((mode = ANY (ARRAY['eoa'::text, 'eip7702'::text, 'erc4337'::text, 'recorded'::text, 'relayed'::text]))),
    CONSTRAINT usage_pkey PRIMARY KEY (id),
    CONSTRAINT usage_reservation_id_key UNIQUE (reservation_id),
    CONSTRAINT usage_reservation_id_fkey FOREIGN KEY (reservation_id) REFERENCES sponsorship.reservations(id),
    CONSTRAINT usage_sponsor_id_fkey FOREIGN KEY (sponsor_id) REFERENCES sponsorship.sponsors(id)
);

ALTER TABLE sponsorship.usage ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME sponsorship.usage_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

create index usage_actor_day_idx on sponsorship.usage (sponsor_id, actor_address, created_at);

create index usage_sponsor_idx on sponsorship.usage (sponsor_id, id desc);

create unique index usage_tx_once on sponsorship.usage (chain_id, tx_hash) where user_op_hash is null;

create unique index usage_user_op_once on sponsorship.usage (chain_id, user_op_hash) where user_op_hash is not null;

ALTER TABLE sponsorship.usage ENABLE ROW LEVEL SECURITY;

create policy usage_select_owner on sponsorship.usage for select to authenticated
  using (sponsorship.owns_sponsor(sponsor_id));

GRANT SELECT ON TABLE sponsorship.usage TO authenticated;
GRANT SELECT ON TABLE sponsorship.usage TO service_role;


CREATE TABLE sponsorship.verifications (
    id bigint NOT NULL,
    reservation_id core.object_id,
    client_id text NOT NULL,
    chain_id bigint NOT NULL,
    sender text NOT NULL,
    gas_cost numeric NOT NULL,
    allowed boolean NOT NULL,
    reason text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT verifications_pkey PRIMARY KEY (id),
    CONSTRAINT verifications_reservation_id_fkey FOREIGN KEY (reservation_id) REFERENCES sponsorship.reservations(id)
);

ALTER TABLE sponsorship.verifications ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME sponsorship.verifications_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

create index verifications_reservation_idx on sponsorship.verifications (reservation_id);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON sponsorship.verifications AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE sponsorship.verifications ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE sponsorship.verifications TO service_role;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY sponsorship.reservations
    ADD CONSTRAINT reservations_sponsor_id_fkey FOREIGN KEY (sponsor_id) REFERENCES sponsorship.sponsors(id);

create policy reservations_select_requester on sponsorship.reservations for select to authenticated
  using (requested_by = (select core.current_user_id()) or sponsorship.owns_sponsor(sponsor_id));

create policy sponsors_select_owner on sponsorship.sponsors for select to authenticated
  using (sponsorship.owns_wallet(chain_id, wallet_address));

ALTER TABLE ONLY sponsorship.ledger_entries
    ADD CONSTRAINT ledger_entries_usage_id_fkey FOREIGN KEY (usage_id) REFERENCES sponsorship.usage(id);


-- Background jobs, run by pg_cron as service_jobs (core.schedule_job: scheduling a job of the same
-- name again replaces it).
select core.schedule_job('release_expired_sponsorship_holds', '* * * * *', 'sponsorship.release_expired_holds');
