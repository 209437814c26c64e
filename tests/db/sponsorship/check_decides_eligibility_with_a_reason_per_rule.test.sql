-- Check decides eligibility rule by rule and names the first rule that refuses (eligible
-- = false with a reason, no hold taken): sponsor_not_found, operation_not_enabled,
-- outside_active_window, target_not_allowed, selector_not_allowed, max_cost_exceeds_limit,
-- actor_daily_count_exceeded, actor_daily_amount_exceeded, sponsor_daily_amount_exceeded,
-- insufficient_balance. The sponsor's owner may ask for any actor, anyone else only for an address
-- they linked on that chain: otherwise PT403 actor_not_linked.
begin;
select plan(27);

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set unfunded '0x00000000000000000000000000000000000000a2'
\set actor '0x00000000000000000000000000000000000000b1'
\set vault '0x00000000000000000000000000000000000000f1'
\set target '0x00000000000000000000000000000000000000c1'
\set other_target '0x00000000000000000000000000000000000000c2'

-- The reason of one check on the wallet (as whoever is authenticated), target, call data
-- 0x12345678 unless told otherwise.
create function pg_temp.reason(p_operation text, p_actor text, p_cost numeric,
    p_wallet text default '0x00000000000000000000000000000000000000a1',
    p_target text default '0x00000000000000000000000000000000000000c1',
    p_call_data text default '0x12345678') returns text
  language sql as $f$
    select c.reason || case when c.eligible = (c.reason = 'eligible') then '' else ' (eligible disagrees)' end
    from sponsorship.check(31337, p_wallet, p_operation::sponsorship.operation_type, 'client-1', p_target,
                           p_call_data, 0, p_actor, null, p_cost, 1000) c
  $f$;
-- Saves the wallet's settings as its owner would; unspecified limits are off, check_in enabled.
create function pg_temp.settings(p_operations text[] default '{check_in}', p_max_cost numeric default null,
    p_actor_amount numeric default null, p_actor_count integer default null, p_sponsor_amount numeric default null,
    p_targets text[] default '{}', p_selectors text[] default '{}',
    p_from timestamptz default null, p_until timestamptz default null) returns void
  language sql as $f$
    select sponsorship.save_settings(31337, '0x00000000000000000000000000000000000000a1',
      p_operations::sponsorship.operation_type[], p_max_cost, p_actor_amount, p_actor_count, p_sponsor_amount,
      p_targets, p_selectors, p_from, p_until)
  $f$;
-- Releases every live hold (cancel as its requester would), so the next rule starts from zero.
create function pg_temp.cancel_all() returns void
  language plpgsql as $f$
    declare r record;
    begin
      for r in select * from sponsorship.reservations where status = 'active' loop
        perform sponsorship.cancel(r.id, r.client_id, r.target_address, r.call_data, r.native_value_wei);
      end loop;
    end $f$;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.link_address(:'alice', :'wallet', :'chain');
select tests.link_address(:'alice', :'unfunded', :'chain');
select tests.link_address(:'bob', :'actor', :'chain');

select tests.authenticate_as(:'alice');
select is(pg_temp.reason('check_in', :'actor', 1000), 'sponsor_not_found', 'sponsor_not_found: the wallet was never funded nor set up');
select tests.authenticate_as(:'bob');
select is(pg_temp.reason('check_in', :'actor', 1000, :'unfunded'), 'sponsor_not_found', 'also when an actor asks');

select tests.authenticate_as(:'alice');
select sponsorship.record_deposit(:chain, :'wallet', tests.tx_hash(1), 10000, :'vault', 1, 100);
select is(pg_temp.reason('check_in', :'actor', 1000), 'operation_not_enabled', 'operation_not_enabled: a funded sponsor without settings sponsors nothing');
select pg_temp.settings('{}');
select is(pg_temp.reason('check_in', :'actor', 1000), 'operation_not_enabled', 'nor with no operation enabled');
select pg_temp.settings('{nft_mint}');
select is(pg_temp.reason('check_in', :'actor', 1000), 'operation_not_enabled', 'nor for another operation than the enabled one');

select pg_temp.settings(p_from => now() + interval '1 hour');
select is(pg_temp.reason('check_in', :'actor', 1000), 'outside_active_window', 'outside_active_window: before active_from');
select pg_temp.settings(p_from => now() - interval '2 hours', p_until => now() - interval '1 hour');
select is(pg_temp.reason('check_in', :'actor', 1000), 'outside_active_window', 'outside_active_window: after active_until');

select pg_temp.settings(p_targets => array[:'other_target']);
select is(pg_temp.reason('check_in', :'actor', 1000), 'target_not_allowed', 'target_not_allowed: a target outside the allowlist');
select is(pg_temp.reason('check_in', :'actor', 1000, p_target => :'other_target'), 'eligible', 'the allowed target is eligible');

select pg_temp.settings(p_selectors => '{0xabcdef01}');
select is(pg_temp.reason('check_in', :'actor', 1000, p_call_data => '0x12345678'), 'selector_not_allowed', 'selector_not_allowed: a function outside the allowlist');
select is(pg_temp.reason('check_in', :'actor', 1000, p_call_data => '0x'), 'selector_not_allowed', 'and a call without a selector');
select is(pg_temp.reason('check_in', :'actor', 1000, p_call_data => '0xabcdef010000000000000000000000000000000000000000000000000000000000000001'),
  'eligible', 'the allowed selector with arguments is eligible');

select pg_temp.settings(p_max_cost => 999);
select is(pg_temp.reason('check_in', :'actor', 1000), 'max_cost_exceeds_limit', 'max_cost_exceeds_limit: a hold over max_cost_per_tx');
select is(pg_temp.reason('check_in', :'actor', 999), 'eligible', 'one at the limit is eligible');
select pg_temp.cancel_all();

-- Actor caps: today's usage and the actor's live holds both count.
select sponsorship.record_usage(:chain, :'wallet', 'check_in', :'actor', tests.tx_hash(2), 500, 100);
select pg_temp.settings(p_actor_count => 2);
select is(pg_temp.reason('check_in', :'actor', 100), 'eligible', 'the actor''s second operation today is eligible');
select is(pg_temp.reason('check_in', :'actor', 100), 'actor_daily_count_exceeded', 'actor_daily_count_exceeded: a used one and a held one make two');
select is(pg_temp.reason('check_in', '0x00000000000000000000000000000000000000b2', 100), 'eligible', 'another actor is counted apart');
select pg_temp.cancel_all();

select pg_temp.settings(p_actor_amount => 2000);
select is(pg_temp.reason('check_in', :'actor', 1000), 'eligible', 'within the actor''s daily amount (500 used + 1000)');
select is(pg_temp.reason('check_in', :'actor', 501), 'actor_daily_amount_exceeded', 'actor_daily_amount_exceeded: 500 used + 1000 held + 501');
select is(pg_temp.reason('check_in', :'actor', 500), 'eligible', 'exactly the daily amount is eligible');
select pg_temp.cancel_all();

select pg_temp.settings(p_sponsor_amount => 3000);
select is(pg_temp.reason('check_in', '0x00000000000000000000000000000000000000b3', 2000), 'eligible', 'within the sponsor''s daily amount (500 spent today + 2000)');
select is(pg_temp.reason('check_in', '0x00000000000000000000000000000000000000b4', 501), 'sponsor_daily_amount_exceeded', 'sponsor_daily_amount_exceeded: whoever the actor');
select pg_temp.cancel_all();

select pg_temp.settings();
select is(pg_temp.reason('check_in', :'actor', 9501), 'insufficient_balance', 'insufficient_balance: 9500 left');
select is(pg_temp.reason('check_in', :'actor', 9500), 'eligible', 'all of it is eligible');
select pg_temp.cancel_all();

-- Who may ask.
select tests.authenticate_as(:'carol');
select is(
  tests.error_of(format($$select sponsorship.check(%s, %L, 'check_in', 'client-1', %L, '0x', 0, %L, null, 1, 1000)$$,
                          :chain, :'wallet', :'target', :'actor')),
  '{"code": "PT403", "hint": "actor_not_linked"}'::jsonb,
  'PT403 actor_not_linked: someone who neither owns the sponsor nor linked the actor'
);
select tests.authenticate_as(:'bob');
select is(
  tests.error_of(format($$select sponsorship.check(%s, %L, 'check_in', 'client-1', %L, '0x', 0, %L, null, 1, 1000)$$,
                          :chain, :'wallet', :'target', '0x00000000000000000000000000000000000000b2')),
  '{"code": "PT403", "hint": "actor_not_linked"}'::jsonb,
  'nor may an actor ask for another actor'
);

-- Every denial left nothing: the only holds ever taken are the eligible answers'.
select tests.clear_authentication();
select results_eq(
  $$select count(*)::int from sponsorship.ledger_entries where kind = 'hold'$$,
  $$values (9)$$,
  'nine holds for the nine eligible answers, none for a denial'
);

select * from finish();
rollback;
