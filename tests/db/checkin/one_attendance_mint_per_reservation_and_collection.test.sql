-- One attendance mint per reservation and collection (20261125000300_sponsored_check_in.sql): once
-- recorded, the plan names its relay for anyone at the door, whichever admission of the reservation
-- they ask with; a new hold is refused, and a second relay's record too (its transaction rolls back);
-- a mint whose relay failed may be asked for again. Only an admission that stands earns one: a
-- refused scan or an undone admission does not, nor an attendee without a wallet on the chain. The
-- relay reads for the event's door (the owner, every checker), not for others. service_jobs gets
-- exactly the record function in the checkin schema.
begin;
select plan(16);

grant usage on schema extensions to service_jobs;
grant usage on schema tests to service_jobs;
grant execute on function tests.error_of(text) to service_jobs;

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set attendee_address '0x00000000000000000000000000000000000000b1'
\set relayer '0x00000000000000000000000000000000000000e1'

select tests.tx_hash(301) as h301, tests.tx_hash(302) as h302, tests.tx_hash(303) as h303 \gset
select tests.create_user('host@example.com') as host \gset
select tests.create_user('checker@example.com') as checker \gset
select tests.create_user('second-checker@example.com') as checker2 \gset
select tests.create_user('attendee@example.com') as attendee \gset
select tests.create_user('walletless@example.com') as walletless \gset
select tests.create_user('stranger@example.com') as stranger \gset
select tests.link_address(:'attendee', :'attendee_address', :'chain');
select tests.create_sponsor(:'host', :'wallet', 100000, '{check_in}');
select tests.create_event(:'host') as ev \gset
select tests.create_collection(:'host', 'static', 0) as collection \gset
select lower(address) as collection_address from checkout.collections where id = :'collection' \gset

select tests.authenticate_as(:'attendee');
select reservation->>'id' as res from checkin.reserve(:'ev') \gset
select tests.authenticate_as(:'walletless');
select reservation->>'id' as res_walletless from checkin.reserve(:'ev') \gset
select tests.authenticate_as(:'host');
select checkin.add_staff(:'ev', :'checker', null);
select checkin.add_staff(:'ev', :'checker2', null);

create function pg_temp.scan(p_reservation text, p_direction text, p_nonce text) returns text language sql as $$
  select scan->>'id' from checkin.scan(current_setting('t.ev')::text, 'manual', p_reservation, null, null, null, p_direction,
    'door-1', p_nonce, now(), null, false)
$$;
create function pg_temp.hold(p_scan text) returns text language sql as $$
  select reservation_id from checkin.hold_attendance_mint(current_setting('t.ev')::text, p_scan, current_setting('t.collection')::text,
    current_setting('t.wallet')::text, '0x01', 1000, 100)
$$;
create function pg_temp.plan_relay(p_scan text) returns text language sql as $$
  select relay_id from checkin.attendance_mint_plan(current_setting('t.ev')::text, p_scan, current_setting('t.collection')::text)
$$;
select set_config('t.ev', :'ev', false), set_config('t.collection', :'collection', false), set_config('t.wallet', :'wallet', false);

select tests.authenticate_as(:'checker');
select pg_temp.scan(:'res', 'entry', 'nonce-0001') as entry1 \gset
select pg_temp.scan(:'res', 'entry', 'nonce-0002') as refused \gset
select pg_temp.scan(:'res_walletless', 'entry', 'nonce-0003') as walletless_entry \gset

-- Only an admission that stands, to an attendee with a wallet
select is(tests.error_of(format('select pg_temp.plan_relay(%L)', :'refused'))->>'hint', 'scan_not_admitted',
  'a refused scan (already inside) earns no mint');
select is(tests.error_of(format('select pg_temp.plan_relay(%L)', :'walletless_entry'))->>'hint', 'attendee_has_no_wallet',
  'an attendee with no wallet on the collection''s chain gets none');
select is(tests.error_of('select pg_temp.plan_relay(''0123456789abcdef01234567'')')->>'hint', 'scan_not_found', 'an unknown scan');

-- The first mint: held, signed and recorded by the relayer with its attendance.
select pg_temp.hold(:'entry1') as hold1 \gset
select pg_temp.hold(:'entry1') as hold2 \gset
select tests.clear_authentication();
set local role service_jobs;
select relays.sync_nonce(:chain, :'relayer', 0);
select relays.record_signed(:'hold1', :chain, :'relayer', 0, 'check_in', :'collection', :'collection_address', '0x01', 50, :'h301', '0x01', 10, 1) as relay1 \gset
select lives_ok(format('select checkin.record_attendance_mint(%L, %L, %L, %L)', :'relay1', :'res', :'collection', :'entry1'),
  'the first attendance mint is recorded with its relay');
-- A racing request held too before the first was recorded: its relay's record is refused with it.
select relays.record_signed(:'hold2', :chain, :'relayer', 1, 'check_in', :'collection', :'collection_address', '0x01', 50, :'h302', '0x01', 10, 1) as relay2 \gset
select is(tests.error_of(format('select checkin.record_attendance_mint(%L, %L, %L, %L)', :'relay2', :'res', :'collection', :'entry1'))->>'hint',
  'attendance_mint_exists', 'a second relay of the same reservation and collection is refused (its transaction rolls back)');
reset role;
select is((select count(*)::integer from checkin.attendance_mints where reservation_id = :'res'), 1, 'one attendance mint');
select throws_ok(format($$insert into checkin.attendance_mints (reservation_id, collection_id, scan_id, relay_id) values (%L, %L, %L, %L)$$,
  :'res', :'collection', :'entry1', :'relay2'), '23505', null, 'even the owner cannot store a second one');

-- Asked again, by anyone at the door, with any admission of the reservation: that relay.
select tests.authenticate_as(:'checker2');
select pg_temp.scan(:'res', 'exit', 'nonce-0004') as exit1 \gset
select pg_temp.scan(:'res', 'entry', 'nonce-0005') as entry2 \gset
select is(pg_temp.plan_relay(:'entry2'), :'relay1', 'another checker, another admission of the same reservation: the first mint''s relay');
select is(tests.error_of(format('select pg_temp.hold(%L)', :'entry2'))->>'hint', 'attendance_mint_exists', 'and no new hold');
select is((select kind from relays.status(:'relay1')), 'check_in', 'another checker reads the relay');
select tests.authenticate_as(:'host');
select is((select kind from relays.status(:'relay1')), 'check_in', 'so does the event''s owner');
select tests.authenticate_as(:'stranger');
select is((select count(*)::integer from relays.status(:'relay1')), 0, 'nobody outside the door does');

-- An undone admission earns nothing.
select tests.authenticate_as(:'checker');
select checkin.undo_scan(:'ev', :'entry2');
select is(tests.error_of(format('select pg_temp.plan_relay(%L)', :'entry2'))->'detail',
  '{"result": "admitted", "undone": true, "reservationStatus": "approved"}'::jsonb, 'an undone admission earns no mint');

-- A mint whose relay failed (its nonce went to another transaction) may be asked for again.
select tests.clear_authentication();
set local role service_jobs;
select relays.fail(:'relay1', 'nonce_consumed_elsewhere');
reset role;
select tests.authenticate_as(:'checker');
select is(pg_temp.plan_relay(:'entry1'), null, 'the failed relay is not the answer');
select pg_temp.hold(:'entry1') as hold3 \gset
select tests.clear_authentication();
set local role service_jobs;
select relays.record_signed(:'hold3', :chain, :'relayer', 2, 'check_in', :'collection', :'collection_address', '0x01', 50, :'h303', '0x01', 10, 1) as relay3 \gset
select checkin.record_attendance_mint(:'relay3', :'res', :'collection', :'entry1');
reset role;
select is((select relay_id::text from checkin.attendance_mints where reservation_id = :'res'), :'relay3', 'the new relay replaces it');

select bag_eq(
  $$select * from tests.privileges_of('service_jobs', '{checkin}')$$,
  array[
    'schema checkin: USAGE',
    'function checkin.record_attendance_mint(core.object_id,core.object_id,core.object_id,core.object_id): EXECUTE'
  ],
  'service_jobs in checkin: usage and the record function, nothing else'
);

select * from finish();
rollback;
