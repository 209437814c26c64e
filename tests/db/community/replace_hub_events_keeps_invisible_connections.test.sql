-- community.replace_hub_events (categorySubEventIDs) makes the hub's events the given set, except
-- that connections to events the caller cannot see are kept: the owner cannot name them, so a
-- replacement must not silently drop them. A batch naming an invisible event changes nothing.
begin;
select plan(8);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('dave@example.com') as dave \gset
select tests.create_hub(:'alice') as hub \gset
select tests.create_event(:'alice') as a \gset
select tests.create_event(:'alice', 'PUBLISHED', 'private') as b \gset
select tests.create_event(:'bob') as c \gset
-- dave's events became private / draft after they were connected: alice cannot see them.
select tests.create_event(:'dave', 'PUBLISHED', 'private') as hidden \gset
select tests.create_event(:'dave', 'INCOMPLETE', 'public') as hidden_draft \gset
select tests.connect_event(:'hub', :'a');
select tests.connect_event(:'hub', :'b');
select tests.connect_event(:'hub', :'hidden');
select tests.connect_event(:'hub', :'hidden_draft');

-- The expected sets, sorted as tests.connected_event_ids sorts them.
select array(select unnest(array[:'b', :'c', :'hidden', :'hidden_draft']) order by 1) as bc_hidden \gset
select array(select unnest(array[:'a', :'hidden', :'hidden_draft']) order by 1) as a_hidden \gset
select array(select unnest(array[:'hidden', :'hidden_draft']) order by 1) as only_hidden \gset

select tests.authenticate_as(:'alice');

select lives_ok(
  format('select community.replace_hub_events(%L, array[%L, %L, %L]::core.object_id[])', :'hub', :'b', :'c', :'c'),
  'alice replaces the hub''s events with [b, c, c]'
);
select is(
  tests.connected_event_ids(:'hub'), :'bc_hidden'::text[],
  'a is gone, c is added once, b stays, and dave''s hidden events are kept'
);
select set_eq(
  format('select event_id::text from community.hub_events where hub_id = %L', :'hub'),
  array[:'b', :'c'],
  'alice herself sees exactly the set she gave'
);

select lives_ok(
  format('select community.replace_hub_events(%L, array[%L, %L]::core.object_id[])', :'hub', :'a', :'a'),
  'alice replaces the hub''s events with [a, a]'
);
select is(tests.connected_event_ids(:'hub'), :'a_hidden'::text[], 'the hub has a once, and the hidden events');

select throws_ok(
  format('select community.replace_hub_events(%L, array[%L, %L]::core.object_id[])', :'hub', :'c', :'hidden'),
  'PT400',
  format('unknown or inaccessible event ids: %s; nothing was changed', :'hidden'),
  'naming an event alice cannot see is refused with PT400'
);

select lives_ok(
  format('select community.replace_hub_events(%L, %L::core.object_id[])', :'hub', '{}'),
  'alice replaces the hub''s events with none'
);
select is(
  tests.connected_event_ids(:'hub'), :'only_hidden'::text[],
  'every event alice can see is disconnected; the hidden ones are kept'
);

select tests.clear_authentication();
select * from finish();
rollback;
