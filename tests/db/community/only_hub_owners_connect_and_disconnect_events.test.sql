-- Writing hub_events directly: only the hub's owner connects or disconnects events, and only
-- events the owner can see; anon writes nothing; a connection is never edited in place.
begin;
select plan(12);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_hub(:'alice') as hub \gset
select tests.add_member(:'hub', :'carol');
select tests.create_event(:'alice') as alices_event \gset
select tests.create_event(:'bob') as bobs_public_event \gset
select tests.create_event(:'bob', 'PUBLISHED', 'private') as bobs_private_event \gset
select tests.create_event(:'bob', 'INCOMPLETE', 'public') as bobs_draft \gset
select tests.create_event(:'alice') as already_connected \gset
select tests.create_event(:'alice') as spare_event \gset
select tests.create_event(:'carol') as carols_event \gset
select tests.connect_event(:'hub', :'already_connected');

-- ------------------------------------------------------------------------------------------
-- The owner
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'alice');

select lives_ok(
  format('insert into community.hub_events (hub_id, event_id) values (%L, %L)', :'hub', :'alices_event'),
  'the owner connects her own event'
);

select lives_ok(
  format('insert into community.hub_events (hub_id, event_id) values (%L, %L)', :'hub', :'bobs_public_event'),
  'the owner connects someone else''s public event'
);

select throws_ok(
  format('insert into community.hub_events (hub_id, event_id) values (%L, %L)', :'hub', :'bobs_private_event'),
  '42501', 'new row violates row-level security policy for table "hub_events"',
  'the owner cannot connect an event she cannot see (private)'
);

select throws_ok(
  format('insert into community.hub_events (hub_id, event_id) values (%L, %L)', :'hub', :'bobs_draft'),
  '42501', 'new row violates row-level security policy for table "hub_events"',
  'the owner cannot connect an event she cannot see (draft)'
);

-- ------------------------------------------------------------------------------------------
-- A member, another user, anon
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'carol');
select throws_ok(
  format('insert into community.hub_events (hub_id, event_id) values (%L, %L)', :'hub', :'spare_event'),
  '42501', 'new row violates row-level security policy for table "hub_events"',
  'a member cannot connect a public event to the hub'
);
select throws_ok(
  format('insert into community.hub_events (hub_id, event_id) values (%L, %L)', :'hub', :'carols_event'),
  '42501', 'new row violates row-level security policy for table "hub_events"',
  'a member cannot connect even her own event to the hub'
);

with deleted as (delete from community.hub_events where hub_id = :'hub' returning 1)
select is(count(*)::int, 0, 'a member cannot disconnect events') from deleted;

select tests.authenticate_as(:'bob');
with deleted as (
  delete from community.hub_events where hub_id = :'hub' and event_id = :'bobs_public_event' returning 1
)
select is(count(*)::int, 0, 'even the event''s owner cannot disconnect it from someone else''s hub') from deleted;

select tests.authenticate_as_anon();
select throws_ok(
  format('insert into community.hub_events (hub_id, event_id) values (%L, %L)', :'hub', :'alices_event'),
  '42501', 'permission denied for table hub_events',
  'anon cannot connect events'
);

select tests.authenticate_as(:'alice');
with deleted as (
  delete from community.hub_events where hub_id = :'hub' and event_id = :'already_connected' returning 1
)
select is(count(*)::int, 1, 'the owner disconnects an event') from deleted;

select throws_ok(
  format('update community.hub_events set event_id = %L where hub_id = %L', :'spare_event', :'hub'),
  '42501', 'permission denied for table hub_events',
  'a connection cannot be edited in place, not even by the owner'
);

select tests.clear_authentication();

select is(
  tests.connected_event_ids(:'hub'),
  (select array_agg(x order by x) from unnest(array[:'alices_event', :'bobs_public_event']) as x),
  'exactly the owner''s two allowed connections remain'
);
select * from finish();
rollback;
