-- community.connect_hub_events (connectEventIds) adds to what a hub already has: repeated ids and
-- ids already connected are connected once; an empty list changes nothing.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_hub(:'alice') as hub \gset
select tests.create_event(:'alice') as a \gset
select tests.create_event(:'alice', 'PUBLISHED', 'private') as b \gset
-- Someone else's event, connectable because alice can see it.
select tests.create_event(:'bob', 'PUBLISHED', 'unlisted') as c \gset

-- The expected sets, sorted as tests.connected_event_ids sorts them.
select array(select unnest(array[:'a', :'b']) order by 1) as ab \gset
select array(select unnest(array[:'a', :'b', :'c']) order by 1) as abc \gset

select tests.authenticate_as(:'alice');

select lives_ok(
  format('select community.connect_hub_events(%L, array[%L, %L, %L]::core.object_id[])', :'hub', :'a', :'a', :'b'),
  'alice connects [a, a, b]'
);
select is(tests.connected_event_ids(:'hub'), :'ab'::text[], 'the hub has a and b, each once');

select lives_ok(
  format('select community.connect_hub_events(%L, array[%L, %L]::core.object_id[])', :'hub', :'b', :'c'),
  'alice connects [b, c]'
);
select is(tests.connected_event_ids(:'hub'), :'abc'::text[], 'the hub has a, b and c: b was kept once, a was not dropped');

select community.connect_hub_events(:'hub', '{}');
select is(tests.connected_event_ids(:'hub'), :'abc'::text[], 'connecting no event changes nothing');

select tests.clear_authentication();
select * from finish();
rollback;
