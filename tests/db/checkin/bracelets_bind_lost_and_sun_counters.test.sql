-- Bracelets (20261125000200_checkin.sql): staff bind a UID to an approved reservation, one bound
-- bracelet per UID and per reservation; a bracelet scans like a ticket; a lost one scans `revoked`;
-- an NTAG 424 (sun) bracelet's read counter must rise: a replayed counter is refused.
begin;
select plan(12);

select tests.create_user('host@example.com') as host \gset
select tests.create_user('a@example.com') as a \gset
select tests.create_user('b@example.com') as b \gset
select tests.create_event(:'host') as ev \gset
select tests.authenticate_as(:'a');
select reservation->>'id' as res_a from checkin.reserve(:'ev') \gset
select tests.authenticate_as(:'b');
select reservation->>'id' as res_b from checkin.reserve(:'ev') \gset

create function pg_temp.bracelet_scan(p_uid text, p_counter integer, p_nonce text) returns text language sql as $$
  select scan->>'result' from checkin.scan(current_setting('t.ev')::text, 'bracelet', null, null, p_uid, p_counter, 'entry',
    'door-1', p_nonce, now(), null, false, '0123456789abcdef')
$$;
select set_config('t.ev', :'ev', false);

select is(tests.error_of(format('select checkin.bind_bracelet(%L, %L, %L, %L)', :'ev', :'res_b', '04A23B4C5D6E7F', 'plain'))->>'hint',
  'not_event_staff', 'an attendee does not bind bracelets');
select tests.authenticate_as(:'host');
select is((select created from checkin.bind_bracelet(:'ev', :'res_a', '04A23B4C5D6E7F', 'plain')), true, 'the host binds a plain bracelet');
select is((select created from checkin.bind_bracelet(:'ev', :'res_a', '04A23B4C5D6E7F', 'plain')), false, 'binding it again changes nothing');
select is(tests.error_of(format('select checkin.bind_bracelet(%L, %L, %L, %L)', :'ev', :'res_b', '04A23B4C5D6E7F', 'plain'))->>'hint',
  'bracelet_in_use', 'the same UID cannot go to another reservation');
select is(tests.error_of(format('select checkin.bind_bracelet(%L, %L, %L, %L)', :'ev', :'res_a', '04000000000001', 'plain'))->>'hint',
  'reservation_has_bracelet', 'nor a second bracelet to the same reservation');
select is(pg_temp.bracelet_scan('04A23B4C5D6E7F', null, 'nonce-0001'), 'admitted', 'a bracelet scans like a ticket');
select is(pg_temp.bracelet_scan('04FFFFFFFFFFFF', null, 'nonce-0002'), 'unknown', 'an unbound UID is unknown');

select (select b.id from checkin.bracelets b where b.uid = '04A23B4C5D6E7F') as bracelet_a \gset
select is((checkin.release_bracelet(:'ev', :'bracelet_a', 'lost'))->>'status', 'lost', 'the host marks it lost');
select is(pg_temp.bracelet_scan('04A23B4C5D6E7F', null, 'nonce-0003'), 'revoked', 'a lost bracelet is revoked');

select checkin.bind_bracelet(:'ev', :'res_b', '04112233445566', 'sun');
select is(pg_temp.bracelet_scan('04112233445566', 61, 'nonce-0004'), 'admitted', 'a SUN bracelet with a fresh counter');
select is(pg_temp.bracelet_scan('04112233445566', 61, 'nonce-0005'), 'replayed_counter', 'the same counter again (a copied URL) is refused');
select is((select last_counter from checkin.bracelets where uid = '04112233445566' and status = 'bound'), 61, 'the last counter is kept');

select * from finish();
rollback;
