-- Gasless relays: a nonce is used once per relayer and chain (take_nonce + record_signed move
-- next_nonce by one; a second relay with a used nonce is refused; sync_nonce never lowers it); a
-- relay is charged once, in mode 'relayed', against the actor; failing a relay releases its hold.
begin;
select plan(17);

grant usage on schema extensions to service_jobs;

-- tests.error_of (what a statement raises), for the refusals asserted as service_jobs too.
grant usage on schema tests to service_jobs;
grant execute on function tests.error_of(text) to service_jobs;

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set actor '0x00000000000000000000000000000000000000b1'
\set target '0x00000000000000000000000000000000000000c1'
\set relayer '0x00000000000000000000000000000000000000e1'

select tests.tx_hash(101) as h101, tests.tx_hash(102) as h102, tests.tx_hash(111) as h111 \gset
select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'bob', :'actor', :'chain');
select tests.create_sponsor(:'alice', :'wallet', 100000, '{venue_gasless}');

-- An empty allowlist lets sponsorship.check pass any target, never a relay.
select tests.authenticate_as(:'bob');
select is(tests.error_of(format('select * from relays.reserve(%s, %L, ''venue_gasless'', %L, ''0x01'', %L, 1000, 100)',
  :chain, :'wallet', :'target', :'actor'))->>'hint', 'target_not_allowed', 'a venue relay needs an explicit allowlist');
select tests.authenticate_as(:'alice');
select sponsorship.save_settings(:chain, :'wallet', '{venue_gasless}', null, null, null, null, array[:'target'], '{}', null, null);
select tests.authenticate_as(:'bob');
select is(tests.error_of(format('select * from relays.reserve(%s, %L, ''venue_gasless'', %L, ''0x01'', %L, 200000, 100)',
  :chain, :'wallet', :'target', :'actor'))->>'hint', 'insufficient_balance', 'a hold beyond the balance is refused');
select reservation_id as r1 from relays.reserve(:chain, :'wallet', 'venue_gasless', :'target', '0x01', :'actor', 1000, 100) \gset
select reservation_id as r2 from relays.reserve(:chain, :'wallet', 'venue_gasless', :'target', '0x02', :'actor', 1000, 100) \gset
select reservation_id as r3 from relays.reserve(:chain, :'wallet', 'venue_gasless', :'target', '0x03', :'actor', 1000, 100) \gset

select tests.authenticate_as(:'alice');
select is((select held from sponsorship.balance(:chain, :'wallet')), 3000::numeric, 'three holds');

reset role;
select set_config('request.jwt.claims', '', true);
set local role service_jobs;
select is(relays.sync_nonce(:chain, :'relayer', 7), 7::bigint, 'a fresh account starts at the chain''s pending nonce');
select is(relays.take_nonce(:chain, :'relayer'), 7::bigint, 'take_nonce: the next nonce');
select lives_ok(format($$select relays.record_signed(%L, %s, %L, 7, 'venue_gasless', null, %L, '0x01', 50, %L, '0x01', 10, 1)$$,
  :'r1', :chain, :'relayer', :'target', :'h101'), 'the first relay takes nonce 7');
select is(relays.take_nonce(:chain, :'relayer'), 8::bigint, 'next_nonce moved by one');
select is(tests.error_of(format($$select relays.record_signed(%L, %s, %L, 7, 'venue_gasless', null, %L, '0x02', 50, %L, '0x02', 10, 1)$$,
  :'r2', :chain, :'relayer', :'target', :'h102'))->>'hint', 'nonce_not_next', 'a used nonce is refused');
select lives_ok(format($$select relays.record_signed(%L, %s, %L, 8, 'venue_gasless', null, %L, '0x02', 50, %L, '0x02', 10, 1)$$,
  :'r2', :chain, :'relayer', :'target', :'h102'), 'the second relay takes nonce 8');
select is(relays.sync_nonce(:chain, :'relayer', 3), 9::bigint, 'sync_nonce never lowers next_nonce');
reset role;
select throws_ok(format($$insert into relays.relays (reservation_id, kind, chain_id, relayer, nonce, to_address, call_data, gas_limit)
  values (%L, 'venue_gasless', %s, %L, 8, %L, '0x03', 1)$$, :'r3', :chain, :'relayer', :'target'),
  '23505', null, 'even the owner cannot store two relays with one nonce');
select id as relay1 from relays.relays where reservation_id = :'r1' \gset
select id as relay2 from relays.relays where reservation_id = :'r2' \gset
set local role service_jobs;
select is(tests.error_of(format($$select relays.add_attempt(%L, %L, '0x01', 11, 1)$$, :'relay1', :'h111'))->>'hint',
  'replacement_underpriced', 'a replacement below +12.5 %% is refused');
select is(relays.add_attempt(:'relay1', :'h111', '0x01', 12, 2), 2, 'a replacement at +20 %% is attempt 2');
select is((select amount from relays.complete(:'relay1', :'h111', 700, false)), 700::numeric, 'completed with its cost');
select is((select replayed from relays.complete(:'relay1', :'h111', 700, false)), true, 'completing again replays');
select relays.fail(:'relay2', 'nonce_consumed');
reset role;
select results_eq(
  format($$select mode, actor_address::text, amount::numeric from sponsorship.usage where reservation_id in (%L, %L)$$, :'r1', :'r2'),
  format($$values ('relayed'::text, %L::text, 700::numeric)$$, :'actor'),
  'one usage, relayed, against the actor'
);
select tests.authenticate_as(:'alice');
select results_eq(format($$select spent, held from sponsorship.balance(%s, %L)$$, :chain, :'wallet'),
  $$values (700::numeric, 1000::numeric)$$, 'spent 700; the failed relay''s hold released; r3 still held');

select * from finish();
rollback;
