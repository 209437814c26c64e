-- A copied NTAG 424 SUN message admits at most once for the life of the tag
-- (20261128000100_checkin_door_hardening.sql): the read counter's high-water mark belongs to the
-- physical tag (its UID and key set), kept across unbinding, rebinding to another reservation and
-- binding at another event; a tag programmed with other keys is another tag. A `sun` bracelet's UID
-- is 7 bytes, or it is not bound.
begin;
select plan(9);

select tests.create_user('host@example.com') as host \gset
select tests.create_user('a@example.com') as a \gset
select tests.create_user('b@example.com') as b \gset
select tests.create_event(:'host') as ev \gset
select tests.create_event(:'host') as other \gset
select tests.authenticate_as(:'a');
select reservation->>'id' as res_a from checkin.reserve(:'ev') \gset
select tests.authenticate_as(:'b');
select reservation->>'id' as res_b from checkin.reserve(:'ev') \gset
select reservation->>'id' as res_other from checkin.reserve(:'other') \gset

create function pg_temp.sun_scan(p_event text, p_counter integer, p_nonce text, p_key_set text default '0123456789abcdef',
  p_direction text default 'entry') returns text language sql as $$
    select scan->>'result' from checkin.scan(p_event, 'bracelet', null, null, '04112233445566', p_counter, p_direction,
      'door-1', p_nonce, now(), null, false, p_key_set)
  $$;

select tests.authenticate_as(:'host');
select (bracelet->>'id') as first_binding from checkin.bind_bracelet(:'ev', :'res_a', '04112233445566', 'sun') \gset
select is(pg_temp.sun_scan(:'ev', 5, 'nonce-0001'), 'admitted', 'the real tap at counter 5 admits');
select checkin.release_bracelet(:'ev', :'first_binding', 'unbound');
select checkin.bind_bracelet(:'ev', :'res_b', '04112233445566', 'sun');
select is(pg_temp.sun_scan(:'ev', 5, 'nonce-0002'), 'replayed_counter',
  'bound again to another reservation, the copied message at counter 5 is refused');
select is(pg_temp.sun_scan(:'ev', 4, 'nonce-0003'), 'replayed_counter', 'and so is an older one');
select is(pg_temp.sun_scan(:'ev', 6, 'nonce-0004'), 'admitted', 'the next real tap admits');

select (bracelet->>'id') as other_binding from checkin.bind_bracelet(:'other', :'res_other', '04112233445566', 'sun') \gset
select is(pg_temp.sun_scan(:'other', 6, 'nonce-0005'), 'replayed_counter', 'at another event the tag''s mark still holds');
select is(pg_temp.sun_scan(:'other', 7, 'nonce-0006'), 'admitted', 'and its next tap admits there');
select checkin.release_bracelet(:'other', :'other_binding', 'unbound');
select checkin.bind_bracelet(:'other', :'res_other', '04112233445566', 'sun');
select is(pg_temp.sun_scan(:'other', 1, 'nonce-0007', 'fedcba9876543210', 'exit'), 'exited',
  'programmed with other keys (and bound again) it is another tag, whose counter starts again');
select tests.clear_authentication();
select is((select last_counter from checkin.sun_tags where uid = '04112233445566' and key_set = '0123456789abcdef'), 7,
  'one mark per tag and key set');

select tests.authenticate_as(:'host');
select is(tests.error_of(format('select checkin.bind_bracelet(%L, %L, %L, %L)', :'ev', :'res_a', '04A23B4C', 'sun'))->>'hint',
  'sun_uid_not_7_bytes', 'a sun bracelet with a 4-byte UID is not bound (it could never scan)');

select * from finish();
rollback;
