-- A nonce names one scan (20261128000100_checkin_door_hardening.sql): a (device, nonce) remembers
-- the credential and direction it was used for. The same again is the first outcome replayed;
-- another credential or direction online is 409 nonce_reused (never another person's admission);
-- inside an offline batch it is recorded as a `nonce_reused` refusal, not answered as the first.
begin;
select plan(9);

select tests.create_user('host@example.com') as host \gset
select tests.create_user('a@example.com') as a \gset
select tests.create_user('b@example.com') as b \gset
select tests.create_event(:'host') as ev \gset
select tests.authenticate_as(:'a');
select reservation->>'id' as res_a from checkin.reserve(:'ev') \gset
select tests.authenticate_as(:'b');
select reservation->>'id' as res_b from checkin.reserve(:'ev') \gset
select checkin.cancel_reservation(:'ev', :'res_b');

create function pg_temp.scan(p_reservation text, p_direction text, p_nonce text) returns jsonb language sql as $$
  select scan from checkin.scan(current_setting('t.ev')::text, 'qr', p_reservation, 1, null, null, p_direction,
    'door-1', p_nonce, now(), null, false)
$$;
select set_config('t.ev', :'ev', false);

select tests.authenticate_as(:'host');
select is(pg_temp.scan(:'res_a', 'entry', 'nonce-0001')->>'result', 'admitted', 'a is admitted with nonce-0001');
select is(pg_temp.scan(:'res_a', 'entry', 'nonce-0001')->>'replayed', 'true', 'the same scan again is the replay');
select is(tests.error_of(format('select pg_temp.scan(%L, %L, %L)', :'res_b', 'entry', 'nonce-0001')),
  jsonb_build_object('code', 'PT409', 'hint', 'nonce_reused',
    'detail', jsonb_build_object('scanId', (select id from checkin.scans where nonce = 'nonce-0001'))),
  'the nonce with b''s cancelled ticket is 409 nonce_reused, not a''s admission');
select is(tests.error_of(format('select pg_temp.scan(%L, %L, %L)', :'res_a', 'exit', 'nonce-0001'))->>'hint', 'nonce_reused',
  'nor does it name an exit of the same ticket');

select jsonb_agg(s order by n) as batch from checkin.record_offline_scans(:'ev', 'door-2', jsonb_build_array(
  jsonb_build_object('method', 'qr', 'reservationId', :'res_a', 'ticketVersion', 1, 'direction', 'exit', 'nonce', 'offline-1', 'scannedAt', now() - interval '2 seconds'),
  jsonb_build_object('method', 'qr', 'reservationId', :'res_b', 'ticketVersion', 1, 'direction', 'entry', 'nonce', 'offline-1', 'scannedAt', now() - interval '1 second'),
  jsonb_build_object('method', 'qr', 'reservationId', :'res_a', 'ticketVersion', 1, 'direction', 'exit', 'nonce', 'offline-1', 'scannedAt', now() - interval '2 seconds')
)) with ordinality as b(s, n) \gset
select is((select jsonb_agg(jsonb_build_array(i->>'result', i->>'replayed', i->>'admitted')) from jsonb_array_elements(:'batch'::jsonb) i),
  '[["exited", "false", "true"], ["exited", "true", "true"], ["nonce_reused", "false", "false"]]'::jsonb,
  'offline: the nonce''s first scan, its replay, and the other credential recorded as refused nonce_reused');
select is((select count(*) from checkin.scans where device_id = 'door-2' and nonce = 'offline-1'), 2::bigint,
  'the refusal is recorded beside the scan the nonce names');
select is((select reservation_id from checkin.scans where device_id = 'door-2' and result = 'nonce_reused'), null,
  'and names nobody');
select is((select inside from checkin.reservations where id = :'res_a'), false, 'a exited once');
select is(pg_temp.scan(:'res_a', 'exit', 'nonce-0002')->>'result', 'not_inside', 'nonces are still one per scan after all that');

select * from finish();
rollback;
