-- Sponsorship's writes are rate limited per user in fixed windows counted in Postgres
-- (core.rate_limit_windows), so the limit holds across gateway replicas. Over the limit the call is
-- PT429 rate_limited, its detail saying when to retry (retryAfterSeconds, within the window).
begin;
select plan(11);

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set actor '0x00000000000000000000000000000000000000b1'
\set carols_actor '0x00000000000000000000000000000000000000b2'
\set vault '0x00000000000000000000000000000000000000f1'
\set target '0x00000000000000000000000000000000000000c1'

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.link_address(:'bob', :'actor', :'chain');
select tests.link_address(:'carol', :'carols_actor', :'chain');
select tests.create_sponsor(:'alice', :'wallet', 100000);

select tests.authenticate_as(:'bob');
select is((select reason from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x01', 0, :'actor', null, 10, 2)),
  'eligible', 'the first check in the window');
select is((select reason from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x02', 0, :'actor', null, 10, 2)),
  'eligible', 'the second');
select coalesce(tests.error_of(format($$select sponsorship.check(%s, %L, 'check_in', 'client-1', %L, '0x03', 0, %L, null, 10, 2)$$,
  :chain, :'wallet', :'target', :'actor')), '{}') as refused \gset
select is(:'refused'::jsonb - 'detail', '{"code": "PT429", "hint": "rate_limited"}', 'the third with p_rate_limit = 2 is PT429 rate_limited');
select is((:'refused'::jsonb -> 'detail') - 'retryAfterSeconds', '{"limit": 2, "windowSeconds": 60}', 'its detail names the limit and the window');
select ok((:'refused'::jsonb #>> '{detail,retryAfterSeconds}')::int between 1 and 60,
  'and retryAfterSeconds: until the 60 s window ends (' || (:'refused'::jsonb #>> '{detail,retryAfterSeconds}') || ')');
select tests.clear_authentication();
select is((select count(*)::int from sponsorship.reservations), 2, 'the refused check took no hold');

select tests.authenticate_as(:'carol');
select is((select reason from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x04', 0, :'carols_actor', null, 10, 2)),
  'eligible', 'another user has a window of their own');

select tests.authenticate_as(:'alice');
select sponsorship.record_usage(:chain, :'wallet', 'nft_mint', :'actor', tests.tx_hash(10), 1, 1);
select is(
  tests.error_of(format($$select sponsorship.record_usage(%s, %L, 'nft_mint', %L, %L, 1, 1)$$, :chain, :'wallet', :'actor', tests.tx_hash(11))) - 'detail',
  '{"code": "PT429", "hint": "rate_limited"}', 'record_usage is limited too');
select is(
  tests.error_of(format($$select sponsorship.record_deposit(%s, %L, %L, 1, %L, 1, 0)$$, :chain, :'wallet', tests.tx_hash(12), :'vault')) - 'detail',
  '{"code": "PT429", "hint": "rate_limited"}', 'and record_deposit');

-- The gateway takes the deposits limit in deposit_preflight, before it reads the chain (and calls
-- record_deposit with a null limit): the preflight counts in the same window.
select tests.authenticate_as(:'carol');
select lives_ok(format($$select sponsorship.deposit_preflight(%s, %L, 1)$$, :chain, :'carols_actor'),
  'deposit_preflight: the first in the window');
select is(
  tests.error_of(format($$select sponsorship.deposit_preflight(%s, %L, 1)$$, :chain, :'carols_actor')) - 'detail',
  '{"code": "PT429", "hint": "rate_limited"}', 'deposit_preflight is limited: the gateway''s deposits/record');

select * from finish();
rollback;
