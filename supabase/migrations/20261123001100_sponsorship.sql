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

create schema sponsorship;
revoke all on schema sponsorship from public;
grant usage on schema sponsorship to authenticated, service_role, service_jobs;
alter default privileges in schema sponsorship revoke all on tables from public;
alter default privileges in schema sponsorship revoke all on functions from public;

create domain sponsorship.wei as numeric(78, 0) check (value >= 0);
-- Addresses, hashes and call data are stored lowercase: the gateway normalises them.
create domain sponsorship.address as text check (value ~ '^0x[0-9a-f]{40}$');
create domain sponsorship.hash as text check (value ~ '^0x[0-9a-f]{64}$');
create domain sponsorship.call_data as text check (value ~ '^0x([0-9a-f]{2})*$' and char_length(value) <= 131074);
create domain sponsorship.chain_id as bigint check (value between 1 and 9007199254740991);

-- ============================================================================================
-- Sponsors, settings, the ledger
-- ============================================================================================
create table sponsorship.sponsors (
  id             bigint generated always as identity primary key,
  chain_id       sponsorship.chain_id not null,
  wallet_address sponsorship.address not null,
  deposited      sponsorship.wei not null default 0,
  spent          sponsorship.wei not null default 0,
  held           sponsorship.wei not null default 0,
  created_at     timestamptz not null default now(),
  unique (chain_id, wallet_address),
  -- The guarantee: no sponsor is ever overdrawn.
  constraint sponsors_not_overdrawn check (deposited - spent - held >= 0)
);

create type sponsorship.operation_type as enum
  ('check_in', 'nft_mint', 'venue_gasless', 'promoter_reward_withdrawal', 'promoter_payments_distribution');

-- The limits paymaster policies offer (Alchemy Gas Manager, thirdweb, Pimlico). A null limit is no
-- limit; empty allowlists allow everything; nothing is enabled until the owner says so.
create table sponsorship.settings (
  sponsor_id            bigint primary key references sponsorship.sponsors (id),
  enabled_operations    sponsorship.operation_type[] not null default '{}',
  max_cost_per_tx       sponsorship.wei,
  actor_daily_amount    sponsorship.wei,
  actor_daily_count     integer check (actor_daily_count >= 0),
  sponsor_daily_amount  sponsorship.wei,
  allowed_targets       sponsorship.address[] not null default '{}',
  allowed_selectors     text[] not null default '{}' check (array_to_string(allowed_selectors, ',') ~ '^(0x[0-9a-f]{8}(,0x[0-9a-f]{8})*)?$'),
  active_from           timestamptz,
  active_until          timestamptz,
  updated_at            timestamptz not null default now(),
  check (active_from is null or active_until is null or active_from < active_until),
  check (cardinality(allowed_targets) <= 100 and cardinality(allowed_selectors) <= 100)
);

create table sponsorship.deposits (
  id              bigint generated always as identity primary key,
  sponsor_id      bigint not null references sponsorship.sponsors (id),
  chain_id        sponsorship.chain_id not null,
  tx_hash         sponsorship.hash not null,
  amount          sponsorship.wei not null check (amount > 0),
  from_address    sponsorship.address not null,
  to_address      sponsorship.address not null,
  block_number    bigint not null,
  recorded_by     core.object_id not null,
  created_at      timestamptz not null default now(),
  constraint deposits_once unique (chain_id, tx_hash)
);
create index deposits_sponsor_idx on sponsorship.deposits (sponsor_id, id desc);

create table sponsorship.reservations (
  id                    core.object_id primary key default core.new_object_id(),
  sponsor_id            bigint not null references sponsorship.sponsors (id),
  requested_by          core.object_id not null,
  operation_type        sponsorship.operation_type not null,
  client_id             text not null check (char_length(client_id) between 1 and 200),
  target_address        sponsorship.address not null,
  call_data             sponsorship.call_data not null,
  native_value_wei      sponsorship.wei not null,
  actor_address         sponsorship.address not null,
  -- ERC-4337: the smart account that sends the user operation (the provider's userOp.sender).
  smart_account_address sponsorship.address,
  max_cost              sponsorship.wei not null check (max_cost > 0),
  status                text not null default 'active' check (status in ('active', 'completed', 'released')),
  release_reason        text check (release_reason in ('cancelled', 'expired')),
  expires_at            timestamptz not null,
  verified_at           timestamptz,
  verified_gas_cost     sponsorship.wei,
  created_at            timestamptz not null default now(),
  settled_at            timestamptz,
  check ((status = 'released') = (release_reason is not null)),
  check ((status = 'active') = (settled_at is null))
);
create index reservations_active_expiry_idx on sponsorship.reservations (sponsor_id, expires_at) where status = 'active';
create index reservations_active_actor_idx on sponsorship.reservations (sponsor_id, actor_address) where status = 'active';
-- The provider's verify finds a reservation by what it is about to sponsor.
create index reservations_active_match_idx on sponsorship.reservations (client_id, target_address) where status = 'active';
create index reservations_expiring_idx on sponsorship.reservations (expires_at) where status = 'active';

create table sponsorship.usage (
  id              bigint generated always as identity primary key,
  sponsor_id      bigint not null references sponsorship.sponsors (id),
  chain_id        sponsorship.chain_id not null,
  reservation_id  core.object_id unique references sponsorship.reservations (id),
  operation_type  sponsorship.operation_type not null,
  actor_address   sponsorship.address not null,
  -- relayed: sent by the service's own relayer (schema relays), charged like a completion.
  mode            text not null check (mode in ('eoa', 'eip7702', 'erc4337', 'recorded', 'relayed')),
  tx_hash         sponsorship.hash not null,
  user_op_hash    sponsorship.hash,
  amount          sponsorship.wei not null,
  recorded_by     core.object_id not null,
  created_at      timestamptz not null default now(),
  -- A user operation's hash for ERC-4337, and for EIP-7702 sent through an EntryPoint; none else.
  check (case mode when 'erc4337' then user_op_hash is not null when 'eip7702' then true else user_op_hash is null end)
);
-- Charged once: a transaction (one bundle may carry several user operations, each charged once).
create unique index usage_tx_once on sponsorship.usage (chain_id, tx_hash) where user_op_hash is null;
create unique index usage_user_op_once on sponsorship.usage (chain_id, user_op_hash) where user_op_hash is not null;
create index usage_sponsor_idx on sponsorship.usage (sponsor_id, id desc);
create index usage_actor_day_idx on sponsorship.usage (sponsor_id, actor_address, created_at);

-- Daily totals per sponsor (UTC days), kept with the usage so a daily cap costs one row read.
create table sponsorship.sponsor_days (
  sponsor_id bigint not null references sponsorship.sponsors (id),
  day        date not null,
  spent      sponsorship.wei not null default 0,
  primary key (sponsor_id, day)
);

create table sponsorship.verifications (
  id              bigint generated always as identity primary key,
  reservation_id  core.object_id references sponsorship.reservations (id),
  client_id       text not null,
  chain_id        bigint not null,
  sender          text not null,
  gas_cost        numeric not null,
  allowed         boolean not null,
  reason          text not null,
  created_at      timestamptz not null default now()
);
create index verifications_reservation_idx on sponsorship.verifications (reservation_id);

create table sponsorship.ledger_entries (
  id             bigint generated always as identity primary key,
  sponsor_id     bigint not null references sponsorship.sponsors (id),
  kind           text not null check (kind in ('deposit', 'hold', 'release', 'spend')),
  amount         sponsorship.wei not null,
  deposit_id     bigint references sponsorship.deposits (id),
  reservation_id core.object_id references sponsorship.reservations (id),
  usage_id       bigint references sponsorship.usage (id),
  created_at     timestamptz not null default now(),
  check (case kind
    when 'deposit' then deposit_id is not null
    when 'hold' then reservation_id is not null
    when 'release' then reservation_id is not null
    else usage_id is not null end)
);
create index ledger_entries_sponsor_idx on sponsorship.ledger_entries (sponsor_id, id);

-- Append-only, for everyone including the table owner.
create function sponsorship.refuse_ledger_change() returns trigger
  language plpgsql
  set search_path = ''
  as $$ begin raise exception 'the sponsorship ledger is append-only' using errcode = 'PT403', hint = 'ledger_append_only'; end $$;
create trigger ledger_entries_append_only before update or delete on sponsorship.ledger_entries
  for each row execute function sponsorship.refuse_ledger_change();
create trigger ledger_entries_no_truncate before truncate on sponsorship.ledger_entries
  for each statement execute function sponsorship.refuse_ledger_change();

-- ============================================================================================
-- Row level security: owners read their own sponsors' rows; nobody writes but the functions below
-- ============================================================================================
-- True when the calling user linked `p_wallet` on `p_chain_id` (crypto_addresses' own RLS shows a
-- user their links only, so this needs no definer rights).
create function sponsorship.owns_wallet(p_chain_id bigint, p_wallet text) returns boolean
  language sql stable security invoker
  set search_path = ''
  as $$
    select exists (
      select from core.crypto_addresses a
      where a.user_id = (select core.current_user_id())
        and a.chain_id = p_chain_id::text
        and lower(a.address) = lower(p_wallet))
  $$;

-- PT404 sponsor_not_found unless the calling user linked the wallet on the chain: the owner-only
-- operations' first check.
create function sponsorship.require_owned_wallet(p_chain_id bigint, p_wallet text) returns void
  language plpgsql stable
  set search_path = ''
  as $$
  begin
    if not sponsorship.owns_wallet(p_chain_id, p_wallet) then
      raise exception 'no sponsor wallet % on chain % for this user', p_wallet, p_chain_id
        using errcode = 'PT404', hint = 'sponsor_not_found';
    end if;
  end
  $$;

create function sponsorship.owns_sponsor(p_sponsor_id bigint) returns boolean
  language sql stable security definer
  set search_path = ''
  as $$
    select exists (
      select from sponsorship.sponsors s
      join core.crypto_addresses a on a.chain_id = s.chain_id::text and lower(a.address) = s.wallet_address
      where s.id = p_sponsor_id and a.user_id = (select core.current_user_id()))
  $$;

alter table sponsorship.sponsors enable row level security;
alter table sponsorship.settings enable row level security;
alter table sponsorship.deposits enable row level security;
alter table sponsorship.reservations enable row level security;
alter table sponsorship.usage enable row level security;
alter table sponsorship.sponsor_days enable row level security;
alter table sponsorship.verifications enable row level security;
alter table sponsorship.ledger_entries enable row level security;

create policy sponsors_select_owner on sponsorship.sponsors for select to authenticated
  using (sponsorship.owns_wallet(chain_id, wallet_address));
create policy settings_select_owner on sponsorship.settings for select to authenticated
  using (sponsorship.owns_sponsor(sponsor_id));
create policy deposits_select_owner on sponsorship.deposits for select to authenticated
  using (sponsorship.owns_sponsor(sponsor_id));
create policy usage_select_owner on sponsorship.usage for select to authenticated
  using (sponsorship.owns_sponsor(sponsor_id));
create policy ledger_select_owner on sponsorship.ledger_entries for select to authenticated
  using (sponsorship.owns_sponsor(sponsor_id));
-- A reservation is visible to whoever asked for it and to the sponsor's owner.
create policy reservations_select_requester on sponsorship.reservations for select to authenticated
  using (requested_by = (select core.current_user_id()) or sponsorship.owns_sponsor(sponsor_id));

grant select on sponsorship.sponsors, sponsorship.settings, sponsorship.deposits, sponsorship.usage,
  sponsorship.ledger_entries, sponsorship.reservations to authenticated;
grant select on all tables in schema sponsorship to service_role;

-- ============================================================================================
-- Internal helpers (definer callers only)
-- ============================================================================================
-- The sponsor's row, created when missing, locked for the rest of the transaction. Every change
-- to a sponsor's money goes through here first.
create function sponsorship.lock_sponsor(p_chain_id bigint, p_wallet text) returns sponsorship.sponsors
  language plpgsql volatile
  set search_path = ''
  as $$
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

-- Releases `p_sponsor_id`'s holds that expired (the caller holds the sponsor's lock).
create function sponsorship.release_expired_of(p_sponsor_id bigint) returns integer
  language plpgsql volatile
  set search_path = ''
  as $$
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

-- The caller's own reservation (PT404 reservation_not_found for anyone else's), read again after
-- its sponsor's row lock is taken: the lock comes first, as on every path that moves money.
create function sponsorship.lock_own_reservation(p_reservation_id text) returns sponsorship.reservations
  language plpgsql volatile
  set search_path = ''
  as $$
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

-- The first of the reserved call's fields that `complete` or `cancel` names differently (SPEC 4.5
-- rule 3), as the API spells it; null when all match. A missing value never matches.
create function sponsorship.mismatched_field(
  p_reservation sponsorship.reservations, p_client_id text, p_target text, p_call_data text, p_native_value numeric
) returns text
  language sql immutable
  set search_path = ''
  as $$
    select case
      when p_reservation.client_id is distinct from p_client_id then 'clientId'
      when p_reservation.target_address is distinct from p_target then 'targetAddress'
      when p_reservation.call_data is distinct from p_call_data then 'callData'
      when p_reservation.native_value_wei is distinct from p_native_value then 'nativeValueWei'
    end
  $$;

-- ============================================================================================
-- Reads
-- ============================================================================================
-- The sponsor's balance for its owner (404 sponsor_not_found for anyone else, and for a wallet
-- the caller owns but that has no row yet: zeros).
create function sponsorship.balance(p_chain_id bigint, p_wallet text)
  returns table (deposited numeric, spent numeric, held numeric, available numeric, active_reservations bigint)
  language plpgsql stable security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- Settings
-- ============================================================================================
create function sponsorship.save_settings(
  p_chain_id bigint, p_wallet text,
  p_enabled_operations sponsorship.operation_type[],
  p_max_cost_per_tx numeric, p_actor_daily_amount numeric, p_actor_daily_count integer,
  p_sponsor_daily_amount numeric, p_allowed_targets text[], p_allowed_selectors text[],
  p_active_from timestamptz, p_active_until timestamptz
) returns sponsorship.settings
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- check: eligibility, and a hold when eligible
-- ============================================================================================
-- Who may ask: the sponsor's owner for any actor, anyone else for an actor address they linked
-- on that chain (a user asks for their own check-in). Reasons (eligible = false):
--   sponsor_not_found, operation_not_enabled, outside_active_window, target_not_allowed,
--   selector_not_allowed, max_cost_exceeds_limit, actor_daily_amount_exceeded,
--   actor_daily_count_exceeded, sponsor_daily_amount_exceeded, insufficient_balance.
-- actor_not_linked is an error (PT403): the caller may not speak for that actor.
create function sponsorship.check(
  p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_client_id text,
  p_target text, p_call_data text, p_native_value numeric, p_actor text, p_smart_account text,
  p_max_cost numeric, p_rate_limit integer
) returns table (eligible boolean, reason text, reservation_id core.object_id, expires_at timestamptz, available numeric)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    c_hold_seconds constant integer := 120;
    v_user core.object_id := core.current_user_id();
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
    perform core.take_rate_limit('sponsorship.check', p_rate_limit, 60);
    if v_user is null then
      raise exception 'no user' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    if not sponsorship.owns_wallet(p_chain_id, p_wallet) and not sponsorship.owns_wallet(p_chain_id, p_actor) then
      raise exception 'the actor % is not one of your linked addresses on chain %', p_actor, p_chain_id
        using errcode = 'PT403', hint = 'actor_not_linked';
    end if;

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
      values (v_sponsor.id, v_user, p_operation, p_client_id, p_target, p_call_data, p_native_value, p_actor,
        p_smart_account, p_max_cost, v_expires)
      returning id into v_reservation;
    insert into sponsorship.ledger_entries (sponsor_id, kind, amount, reservation_id)
      values (v_sponsor.id, 'hold', p_max_cost, v_reservation);
    update sponsorship.sponsors set held = held + p_max_cost where id = v_sponsor.id;
    return query select true, 'eligible', v_reservation, v_expires, v_available - p_max_cost;
  end
  $$;

-- ============================================================================================
-- provider_verify: the sponsored-transaction provider asks before it sponsors
-- ============================================================================================
-- Approves only a transaction matching an active, unexpired reservation: same client id, chain,
-- target, call data and value, sent by the reservation's actor (or its smart account), and a gas
-- cost (gas limit x gas price) within the hold. The oldest such reservation not verified yet is
-- chosen and locked, so two verifies of one transaction approve it once per reservation. Every
-- answer is recorded. Reasons: approved, no_matching_reservation, gas_cost_exceeds_hold.
create function sponsorship.provider_verify(
  p_client_id text, p_chain_id bigint, p_sender text, p_target text, p_call_data text,
  p_native_value numeric, p_gas_cost numeric
) returns table (is_allowed boolean, reason text, reservation_id core.object_id)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- A verify request refused before any reservation could match it (no call data, or a batch of
-- calls: a reservation is one call), recorded like every other answer.
create function sponsorship.record_verification_refusal(
  p_client_id text, p_chain_id bigint, p_sender text, p_gas_cost numeric, p_reason text
) returns void
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into sponsorship.verifications (reservation_id, client_id, chain_id, sender, gas_cost, allowed, reason)
    values (null, p_client_id, p_chain_id, p_sender, p_gas_cost, false, p_reason)
  $$;

-- The chain of the caller's own reservation (null for anyone else's, or an unknown id): what
-- complete needs to know which chain to verify on before it calls the chain.
create function sponsorship.reservation_chain_id(p_reservation_id text) returns bigint
  language sql stable security definer
  set search_path = ''
  as $$
    select s.chain_id from sponsorship.reservations r
    join sponsorship.sponsors s on s.id = r.sponsor_id
    where r.id = p_reservation_id and r.requested_by = (select core.current_user_id())
  $$;

-- ============================================================================================
-- complete: the verified transaction happened; its cost becomes usage
-- ============================================================================================
-- The gateway has verified the transaction on-chain and passes its cost. Here: the reservation is
-- the caller's, active and verified, the fields match the verified ones (else PT409
-- reservation_mismatch naming the field), the cost is within the hold; then, under the sponsor's
-- lock, the hold is released, the cost spent and the usage recorded, in this one transaction.
-- Idempotent: the same reservation completed again with the same transaction returns the first
-- usage; a transaction (or user operation) already charged elsewhere is PT409.
create function sponsorship.complete(
  p_reservation_id text, p_client_id text, p_target text, p_call_data text, p_native_value numeric,
  p_mode text, p_tx_hash text, p_user_op_hash text, p_usage_actor text, p_cost numeric,
  p_smart_account text default null
) returns table (usage_id bigint, amount numeric, released numeric, replayed boolean)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- cancel: the provider denied before broadcast; release the matching hold
-- ============================================================================================
create function sponsorship.cancel(
  p_reservation_id text, p_client_id text, p_target text, p_call_data text, p_native_value numeric
) returns table (released numeric)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- Deposits and trusted usage
-- ============================================================================================
-- What the gateway asks before it spends RPC calls on a deposit: the caller's rate limit is taken
-- and the wallet must be theirs (PT404 sponsor_not_found). record_deposit then runs without a limit.
create function sponsorship.deposit_preflight(p_chain_id bigint, p_wallet text, p_rate_limit integer) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    perform core.take_rate_limit('sponsorship.deposits.record', p_rate_limit, 60);
    perform sponsorship.require_owned_wallet(p_chain_id, p_wallet);
  end
  $$;

-- The gateway verified the deposit on-chain (from the sponsor, to the chain's vault, confirmed).
-- Recorded once per (chain, hash): recording it again returns the first record.
create function sponsorship.record_deposit(
  p_chain_id bigint, p_wallet text, p_tx_hash text, p_amount numeric, p_to text, p_block_number bigint,
  p_rate_limit integer
) returns table (deposit_id bigint, amount numeric, replayed boolean)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- Usage a trusted integration spent outside the check/complete flow, for its own sponsor wallet.
-- Charged once per transaction; refused (insufficient_balance) rather than overdrawing.
create function sponsorship.record_usage(
  p_chain_id bigint, p_wallet text, p_operation sponsorship.operation_type, p_actor text,
  p_tx_hash text, p_amount numeric, p_rate_limit integer
) returns table (usage_id bigint, amount numeric, replayed boolean)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- The job: release expired holds (every minute)
-- ============================================================================================
-- Security definer like the functions that take holds: it changes any sponsor's money, taking each
-- sponsor's lock in id order (the order every other path takes one lock in), skipping sponsors busy
-- right now (their next check releases their holds anyway).
create function sponsorship.release_expired_holds() returns integer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- Grants: deny by default, then exactly these
-- ============================================================================================
revoke execute on all functions in schema sponsorship from public;
grant execute on function
  sponsorship.owns_wallet(bigint, text), sponsorship.owns_sponsor(bigint),
  sponsorship.balance(bigint, text),
  sponsorship.save_settings(bigint, text, sponsorship.operation_type[], numeric, numeric, integer, numeric, text[], text[], timestamptz, timestamptz),
  sponsorship.check(bigint, text, sponsorship.operation_type, text, text, text, numeric, text, text, numeric, integer),
  sponsorship.complete(text, text, text, text, numeric, text, text, text, text, numeric, text),
  sponsorship.cancel(text, text, text, text, numeric),
  sponsorship.record_deposit(bigint, text, text, numeric, text, bigint, integer),
  sponsorship.deposit_preflight(bigint, text, integer), sponsorship.reservation_chain_id(text),
  sponsorship.record_usage(bigint, text, sponsorship.operation_type, text, text, numeric, integer)
  to authenticated;
grant execute on function sponsorship.provider_verify(text, bigint, text, text, text, numeric, numeric),
  sponsorship.record_verification_refusal(text, bigint, text, numeric, text),
  sponsorship.release_expired_holds() to service_jobs;

select core.schedule_job('release_expired_sponsorship_holds', '* * * * *', 'sponsorship.release_expired_holds');
