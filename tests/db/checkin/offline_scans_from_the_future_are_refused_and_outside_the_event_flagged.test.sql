-- An offline scan's own clock (20261128000100_checkin_door_hardening.sql): a scan dated more than
-- 5 minutes after the upload is refused as `clock_skew` (recorded, nothing changes); one made more
-- than 6 hours before the event starts or after it ends is decided as usual and flagged
-- `outsideEventWindow` for the host to look at.
begin;
select plan(6);

select tests.create_user('host@example.com') as host \gset
select tests.create_user('a@example.com') as a \gset
select tests.create_event(:'host') as ev \gset
-- The event runs from an hour ago to an hour from now.
update community.events set starts_at = now() - interval '1 hour', ends_at = now() + interval '1 hour' where id = :'ev';
select tests.authenticate_as(:'a');
select reservation->>'id' as res_a from checkin.reserve(:'ev') \gset

create function pg_temp.offline(p_direction text, p_nonce text, p_at timestamptz) returns jsonb language sql as $$
  select s::jsonb from checkin.record_offline_scans(current_setting('t.ev')::text, 'door-2', jsonb_build_array(jsonb_build_object(
    'method', 'manual', 'reservationId', current_setting('t.res')::text, 'direction', p_direction, 'nonce', p_nonce, 'scannedAt', p_at))) s
$$;
select set_config('t.ev', :'ev', false), set_config('t.res', :'res_a', false);

select tests.authenticate_as(:'host');
select is(pg_temp.offline('entry', 'offline-1', now() + interval '10 minutes')->>'result', 'clock_skew',
  'a scan dated 10 minutes ahead is refused');
select is((select inside from checkin.reservations where id = :'res_a'), false, 'and lets nobody in');
select is(pg_temp.offline('entry', 'offline-2', now() + interval '4 minutes') - array['id', 'scannedAt', 'recordedAt', 'evidence', 'undoneAt', 'reservationId', 'eventId', 'braceletId', 'attendeeName'],
  '{"method": "manual", "direction": "entry", "result": "admitted", "admitted": true, "deviceId": "door-2", "nonce": "offline-2", "offline": true, "outsideEventWindow": false, "replayed": false}'::jsonb,
  'within the 5-minute skew and the event''s hours: admitted, not flagged');
select is(pg_temp.offline('exit', 'offline-3', now() - interval '8 hours')->>'outsideEventWindow', 'true',
  'a scan made 7 hours before the event started is flagged');
select is((select result from checkin.scans where nonce = 'offline-3'), 'exited', 'and decided as usual');
select is((select count(*) from checkin.scans where device_id = 'door-2'), 3::bigint, 'every one recorded');

select * from finish();
rollback;
