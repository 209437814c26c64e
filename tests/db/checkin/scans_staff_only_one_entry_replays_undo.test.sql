-- Door scans (20261125000200_checkin.sql): only the owner and the staff the owner adds scan; an
-- approved reservation's current ticket admits once (`already_inside` until an exit); a re-issued
-- ticket's old version, a cancelled or pending reservation, another event's ticket and an unknown
-- id are refused with their reason; a (device, nonce) is recorded once; an offline batch is decided
-- in the order it was scanned; undo restores presence; counts and the manifest follow.
begin;
select plan(27);

select tests.create_user('host@example.com') as host \gset
select tests.create_user('staff@example.com') as staff \gset
select tests.create_user('a@example.com') as a \gset
select tests.create_user('b@example.com') as b \gset
select tests.create_event(:'host') as ev \gset
select tests.create_event(:'host') as other \gset

select tests.authenticate_as(:'a');
select reservation->>'id' as res_a from checkin.reserve(:'ev') \gset
select reservation->>'id' as res_other from checkin.reserve(:'other') \gset
select tests.authenticate_as(:'b');
select reservation->>'id' as res_b from checkin.reserve(:'ev') \gset

create function pg_temp.scan(p_reservation text, p_version integer, p_direction text, p_nonce text, p_method text default 'qr')
  returns jsonb language sql as $$
    select scan from checkin.scan(current_setting('t.ev')::text, p_method, p_reservation, p_version, null, null, p_direction,
      'door-1', p_nonce, now(), null, false)
  $$;
select set_config('t.ev', :'ev', false);

select tests.authenticate_as(:'a');
select is(tests.error_of(format('select pg_temp.scan(%L, 1, %L, %L)', :'res_b', 'entry', 'nonce-0001'))->>'hint', 'not_event_staff',
  'an attendee does not scan');
select tests.authenticate_as(:'staff');
select is(tests.error_of(format('select pg_temp.scan(%L, 1, %L, %L)', :'res_b', 'entry', 'nonce-0001'))->>'hint', 'not_event_staff',
  'nor does anyone the owner has not added');
select tests.authenticate_as(:'host');
select is((select created from checkin.add_staff(:'ev', null, 'STAFF@example.com')), true, 'the owner adds a checker by e-mail');
select is((select created from checkin.add_staff(:'ev', :'staff', null)), false, 'adding again changes nothing');

select tests.authenticate_as(:'staff');
select is(pg_temp.scan(:'res_a', 1, 'entry', 'nonce-0001')->>'result', 'admitted', 'the checker admits a current ticket');
select is(pg_temp.scan(:'res_a', 1, 'entry', 'nonce-0001')->>'replayed', 'true', 'the same nonce again is a replay');
select is(pg_temp.scan(:'res_a', 1, 'entry', 'nonce-0001')->>'result', 'admitted', 'answering the first outcome');
select is(pg_temp.scan(:'res_a', 1, 'entry', 'nonce-0002')->>'result', 'already_inside', 'a second entry is refused: already inside');
select is(pg_temp.scan(:'res_a', 1, 'exit', 'nonce-0003')->>'result', 'exited', 'an exit');
select is(pg_temp.scan(:'res_a', 1, 'exit', 'nonce-0004')->>'result', 'not_inside', 'a second exit is refused');
select is(pg_temp.scan(:'res_a', 1, 'entry', 'nonce-0005')->>'result', 'admitted', 're-entry after an exit');
select is(pg_temp.scan(:'res_other', 1, 'entry', 'nonce-0006')->>'result', 'wrong_event', 'a ticket of another event');
select is(pg_temp.scan('0123456789abcdef01234567', 1, 'entry', 'nonce-0007')->>'result', 'unknown', 'an unknown reservation');
select is(pg_temp.scan(:'res_b', 1, 'entry', 'nonce-0008', 'manual')->>'attendeeName', 'b@example.com', 'a manual check-in names the attendee');

select tests.authenticate_as(:'b');
select is((checkin.reissue_ticket(:'ev', :'res_b'))->>'ticketVersion', '2', 'the person re-issues their ticket');
select tests.authenticate_as(:'staff');
select is(pg_temp.scan(:'res_b', 1, 'exit', 'nonce-0009')->>'result', 'revoked', 'the old QR code is revoked');
select is(pg_temp.scan(:'res_b', 2, 'exit', 'nonce-0010')->>'result', 'exited', 'the new one works');

select tests.authenticate_as(:'a');
select checkin.cancel_reservation(:'ev', :'res_a');
select tests.authenticate_as(:'staff');
select is(pg_temp.scan(:'res_a', 1, 'entry', 'nonce-0011')->>'result', 'revoked', 'a cancelled reservation is revoked');

select tests.authenticate_as(:'staff');
select pg_temp.scan(:'res_b', 2, 'entry', 'nonce-0012')->>'id' as entry_b \gset
select is((checkin.counts(:'ev'))->>'insideNow', '1', 'one person inside');
select is((checkin.undo_scan(:'ev', :'entry_b'))->>'undoneAt' is not null, true, 'the checker undoes an admission');
select is((checkin.counts(:'ev'))->>'insideNow', '0', 'nobody inside any more');
select is((checkin.counts(:'ev'))->>'checkedIn', '1', 'b still checked in once (the earlier entry stands)');

-- Offline: scanned 1 s apart in the other order; the earlier scan wins, the later is already inside.
select jsonb_agg(s->>'result' order by s->>'nonce') as results from checkin.record_offline_scans(:'ev', 'door-2', jsonb_build_array(
  jsonb_build_object('method', 'qr', 'reservationId', :'res_b', 'ticketVersion', 2, 'direction', 'entry', 'nonce', 'offline-b', 'scannedAt', now() + interval '2 seconds'),
  jsonb_build_object('method', 'qr', 'reservationId', :'res_b', 'ticketVersion', 2, 'direction', 'entry', 'nonce', 'offline-a', 'scannedAt', now() + interval '1 second'),
  jsonb_build_object('method', 'qr', 'reservationId', :'res_b', 'ticketVersion', 2, 'direction', 'entry', 'nonce', 'offline-a', 'scannedAt', now() + interval '1 second')
)) s \gset
select is(:'results'::jsonb, '["admitted", "admitted", "already_inside"]'::jsonb, 'offline: first scan wins, a duplicate nonce is recorded once');
select is((select count(*) from checkin.scans where device_id = 'door-2'), 2::bigint, 'two rows for three uploads');
select is(json_array_length((checkin.manifest(:'ev', '{"keys": []}'))->'tickets'), 1, 'the manifest lists the approved reservation');

select tests.authenticate_as(:'host');
select checkin.remove_staff(:'ev', :'staff');
select tests.authenticate_as(:'staff');
select is(tests.error_of(format('select checkin.counts(%L)', :'ev'))->>'hint', 'not_event_staff', 'removed staff no longer reads counts');
select is((select count(*) from checkin.scans), 0::bigint, 'nor scans');

select * from finish();
rollback;
