-- Sponsored check-in (20261125000300_sponsored_check_in.sql): the door (the event's owner and its
-- checkers) asks for an admitted attendee's mint; the hold is sponsorship's, as operation check_in,
-- against the attendee's first linked address, requested by the caller; the sponsor wallet must be
-- the caller's or the event owner's, never a third party's; the sponsor's own rules still refuse
-- (check_in not enabled, a collection not in a non-empty allowedTargets); relays.reserve, the
-- actor rule's relay, holds no check_in. Recorded and mined, the relay is charged once to the
-- ledger as check_in usage against the attendee.
begin;
select plan(18);

grant usage on schema extensions to service_jobs;
grant usage on schema tests to service_jobs;
grant execute on function tests.error_of(text) to service_jobs;

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set third_wallet '0x00000000000000000000000000000000000000a2'
\set attendee_address '0x00000000000000000000000000000000000000b1'
\set later_address '0x00000000000000000000000000000000000000b2'
\set relayer '0x00000000000000000000000000000000000000e1'

select tests.tx_hash(201) as h201 \gset
select tests.create_user('host@example.com') as host \gset
select tests.create_user('checker@example.com') as checker \gset
select tests.create_user('attendee@example.com') as attendee \gset
select tests.create_user('third@example.com') as third \gset
select tests.link_address(:'attendee', :'attendee_address', :'chain');
select tests.link_address(:'attendee', :'later_address', :'chain');
update core.crypto_addresses set created_at = now() + interval '1 minute' where address = :'later_address'; -- linked later
select tests.link_address(:'third', :'third_wallet', :'chain');
select tests.create_sponsor(:'host', :'wallet', 100000, '{check_in}');
select tests.create_event(:'host') as ev \gset
select tests.create_collection(:'host', 'static', 0) as collection \gset
select tests.create_collection(:'third', 'static', 0) as foreign_collection \gset
select lower(address) as collection_address from checkout.collections where id = :'collection' \gset

select tests.authenticate_as(:'attendee');
select reservation->>'id' as res from checkin.reserve(:'ev') \gset
select tests.authenticate_as(:'host');
select checkin.add_staff(:'ev', :'checker', null);
select tests.authenticate_as(:'checker');
select scan->>'id' as scan from checkin.scan(:'ev', 'manual', :'res', null, null, null, 'entry', 'door-1', 'nonce-0001', now(), null, false) \gset

-- Who asks
select tests.authenticate_as(:'third');
select is(tests.error_of(format('select * from checkin.attendance_mint_plan(%L, %L, %L)', :'ev', :'scan', :'collection'))->>'hint',
  'not_event_staff', 'someone outside the door asks for no mint');
select is(tests.error_of(format('select * from checkin.hold_attendance_mint(%L, %L, %L, %L, ''0x01'', 1000, 100)',
  :'ev', :'scan', :'collection', :'third_wallet'))->>'hint', 'not_event_staff', 'not even paying with their own sponsor wallet');
select tests.authenticate_as(:'checker');
select results_eq(
  format('select recipient, relay_id::text from checkin.attendance_mint_plan(%L, %L, %L)', :'ev', :'scan', :'collection'),
  format('values (%L::text, null::text)', :'attendee_address'),
  'a checker''s plan: the attendee''s first linked address on the collection''s chain, nothing asked for yet'
);
select is(tests.error_of(format('select * from checkin.attendance_mint_plan(%L, %L, %L)', :'ev', :'scan', :'foreign_collection'))->>'hint',
  'collection_not_event_owners', 'a collection the event''s owner did not register is refused');

-- Who pays
select is(tests.error_of(format('select * from checkin.hold_attendance_mint(%L, %L, %L, %L, ''0x01'', 1000, 100)',
  :'ev', :'scan', :'collection', :'third_wallet'))->>'hint', 'sponsor_not_event_owners',
  'a checker cannot spend a third party''s sponsor wallet');
select tests.authenticate_as(:'third');
select is(tests.error_of(format('select * from relays.reserve(%s, %L, ''check_in'', %L, ''0x01'', %L, 1000, 100)',
  :chain, :'third_wallet', :'collection_address', :'third_wallet'))->>'hint', 'validation_failed',
  'relays.reserve (the actor rule''s relays) holds no check_in relay');

select tests.authenticate_as(:'host');
select sponsorship.save_settings(:chain, :'wallet', '{nft_mint}', null, null, null, null, '{}', '{}', null, null);
select tests.authenticate_as(:'checker');
select is(tests.error_of(format('select * from checkin.hold_attendance_mint(%L, %L, %L, %L, ''0x01'', 1000, 100)',
  :'ev', :'scan', :'collection', :'wallet'))->>'hint', 'operation_not_enabled', 'the sponsor must enable check_in');
select tests.authenticate_as(:'host');
select sponsorship.save_settings(:chain, :'wallet', '{check_in}', null, null, null, null,
  array['0x00000000000000000000000000000000000000c9'], '{}', null, null);
select tests.authenticate_as(:'checker');
select is(tests.error_of(format('select * from checkin.hold_attendance_mint(%L, %L, %L, %L, ''0x01'', 1000, 100)',
  :'ev', :'scan', :'collection', :'wallet'))->>'hint', 'target_not_allowed', 'a non-empty allowedTargets must list the collection');
select tests.authenticate_as(:'host');
select sponsorship.save_settings(:chain, :'wallet', '{check_in}', null, null, null, null, array[:'collection_address'], '{}', null, null);

select tests.authenticate_as(:'checker');
select reservation_id as hold from checkin.hold_attendance_mint(:'ev', :'scan', :'collection', :'wallet', '0x01', 1000, 100) \gset
select tests.clear_authentication();
select results_eq(
  format('select operation_type::text, actor_address::text, target_address::text, requested_by::text, client_id from sponsorship.reservations where id = %L', :'hold'),
  format('values (''check_in''::text, %L::text, %L::text, %L::text, ''relayer''::text)', :'attendee_address', :'collection_address', :'checker'),
  'the checker holds the host''s sponsor as check_in, for the collection, against the attendee'
);
select tests.authenticate_as(:'host');
select is((select held from sponsorship.balance(:chain, :'wallet')), 1000::numeric, 'the host''s balance shows the hold');

-- The relayer records the signed mint with its attendance, then the receipt is charged.
select tests.clear_authentication();
set local role service_jobs;
select relays.sync_nonce(:chain, :'relayer', 0);
select is(tests.error_of(format($$select relays.record_signed(%L, %s, %L, 0, 'nft_mint', %L, %L, '0x01', 50, %L, '0x01', 10, 1)$$,
  :'hold', :chain, :'relayer', :'collection', :'collection_address', :'h201'))->>'hint', 'reservation_mismatch',
  'a check_in hold is relayed as kind check_in only');
select lives_ok(format($$select relays.record_signed(%L, %s, %L, 0, 'check_in', %L, %L, '0x01', 50, %L, '0x01', 10, 1)$$,
  :'hold', :chain, :'relayer', :'collection', :'collection_address', :'h201'), 'the relayer records a check_in relay of the collection');
reset role;
select id as relay from relays.relays where reservation_id = :'hold' \gset
set local role service_jobs;
select lives_ok(format('select checkin.record_attendance_mint(%L, %L, %L, %L)', :'relay', :'res', :'collection', :'scan'),
  'and the attendance mint with it');
select is((select amount from relays.complete(:'relay', :'h201', 400, false)), 400::numeric, 'mined: charged its cost');
reset role;
select results_eq(
  format($$select operation_type::text, mode, actor_address::text, amount::numeric from sponsorship.usage where reservation_id = %L$$, :'hold'),
  format($$values ('check_in'::text, 'relayed'::text, %L::text, 400::numeric)$$, :'attendee_address'),
  'one usage: operation check_in, relayed, against the attendee'
);
select results_eq(
  format($$select kind, amount::numeric from sponsorship.ledger_entries where sponsor_id = (select id from sponsorship.sponsors where wallet_address = %L) and kind <> 'deposit' order by id$$, :'wallet'),
  $$values ('hold'::text, 1000::numeric), ('release'::text, 1000::numeric), ('spend'::text, 400::numeric)$$,
  'the ledger: the hold, its release, the spend'
);
select tests.authenticate_as(:'host');
select results_eq(format('select spent, held from sponsorship.balance(%s, %L)', :chain, :'wallet'),
  $$values (400::numeric, 0::numeric)$$, 'the host''s balance: spent 400, nothing held');

-- The checker who asked reads the relay, of kind check_in.
select tests.authenticate_as(:'checker');
select is((select kind from relays.status(:'relay')), 'check_in', 'the relay reads as kind check_in');

select * from finish();
rollback;
