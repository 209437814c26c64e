-- Deny by default: no function in community is executable by PUBLIC; anon may call only the ones
-- that policies, CHECK constraints and search need; authenticated exactly the ones granted to it.
begin;
select plan(10);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_hub(:'alice') as hub \gset

select is_empty(
  $$select * from tests.functions_executable_by_public('community')$$,
  'no function in community is executable by PUBLIC'
);

select set_eq(
  $$select * from tests.functions_executable_by('anon', 'community')$$,
  array[
    'community.is_time_zone(text)',
    'community.event_is_visible(community.publication_status,community.event_visibility,core.object_id,core.object_id)',
    'community.hub_is_visible(community.publication_status,boolean,core.object_id,core.object_id,core.object_id,core.object_id[])',
    'community.member_hub_ids()',
    'community.search_event_ids(text)',
    'community.search_hub_ids(text)'
  ],
  'anon may execute only the visibility, search and time zone functions'
);

select set_eq(
  $$select * from tests.functions_executable_by('authenticated', 'community')$$,
  array[
    'community.is_time_zone(text)',
    'community.event_is_visible(community.publication_status,community.event_visibility,core.object_id,core.object_id)',
    'community.hub_is_visible(community.publication_status,boolean,core.object_id,core.object_id,core.object_id,core.object_id[])',
    'community.member_hub_ids()',
    'community.search_event_ids(text)',
    'community.search_hub_ids(text)',
    'community.lock_hub_for_owner(core.object_id)',
    'community.assert_visible_events(core.object_id[])',
    'community.connect_hub_events(core.object_id,core.object_id[])',
    'community.replace_hub_events(core.object_id,core.object_id[])',
    'community.suggest_venues(text,integer,text,text)',
    'community.iso_time(timestamp with time zone)',
    'community.event_json(community.events)',
    'community.slugify(text,text)'
  ],
  'authenticated may execute exactly the functions granted to it'
);

-- ------------------------------------------------------------------------------------------
-- anon, in practice
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();

select throws_ok(
  format('select community.connect_hub_events(%L, %L)', :'hub', '{}'),
  '42501', 'permission denied for function connect_hub_events',
  'anon cannot execute community.connect_hub_events'
);
select throws_ok(
  format('select community.replace_hub_events(%L, %L)', :'hub', '{}'),
  '42501', 'permission denied for function replace_hub_events',
  'anon cannot execute community.replace_hub_events'
);
select throws_ok(
  format('select community.lock_hub_for_owner(%L)', :'hub'),
  '42501', 'permission denied for function lock_hub_for_owner',
  'anon cannot execute community.lock_hub_for_owner'
);
select throws_ok(
  $$select community.assert_visible_events('{}')$$,
  '42501', 'permission denied for function assert_visible_events',
  'anon cannot execute community.assert_visible_events'
);
select is(community.member_hub_ids(), '{}'::core.object_id[], 'anon may ask member_hub_ids, which names none');
select is(community.is_time_zone('UTC'), true, 'anon may execute is_time_zone');

-- ------------------------------------------------------------------------------------------
-- authenticated, in practice (so the denials above are about the role, not the call)
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'alice');
select lives_ok(
  format('select community.connect_hub_events(%L, %L)', :'hub', '{}'),
  'authenticated executes community.connect_hub_events'
);

select tests.clear_authentication();
select * from finish();
rollback;
