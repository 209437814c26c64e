-- community.connect_hub_events and community.replace_hub_events change a hub's events for its
-- owner only: a member or another user who can see the hub gets PT403; a hub the caller cannot
-- see (private, draft, unknown) gets PT404, as if it did not exist; anon may not call them.
begin;
select plan(12);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_hub(:'alice', 'PUBLISHED', false) as public_hub \gset
select tests.create_hub(:'alice', 'PUBLISHED', true) as private_hub \gset
select tests.create_hub(:'alice', 'INCOMPLETE', false) as draft_hub \gset
select tests.add_member(:'private_hub', :'carol');
select tests.create_event(:'bob') as bobs_event \gset
select tests.create_event(:'carol') as carols_event \gset
select core.new_object_id() as unknown_hub \gset

-- ------------------------------------------------------------------------------------------
-- Visible but not theirs: 403
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'bob');
select isnt_empty(
  format('select from community.hubs where id = %L', :'public_hub'),
  'bob can see alice''s public hub'
);

select tests.authenticate_as(:'carol');
select isnt_empty(
  format('select from community.hubs where id = %L', :'private_hub'),
  'carol, a member, can see alice''s private hub'
);

select tests.authenticate_as(:'bob');
select throws_ok(
  format('select community.connect_hub_events(%L, array[%L]::core.object_id[])', :'public_hub', :'bobs_event'),
  'PT403', 'only the hub owner may change it',
  'another user connecting to a public hub he can see gets PT403'
);
select throws_ok(
  format('select community.replace_hub_events(%L, array[%L]::core.object_id[])', :'public_hub', :'bobs_event'),
  'PT403', 'only the hub owner may change it',
  'another user replacing a public hub''s events gets PT403'
);

select tests.authenticate_as(:'carol');
select throws_ok(
  format('select community.connect_hub_events(%L, array[%L]::core.object_id[])', :'private_hub', :'carols_event'),
  'PT403', 'only the hub owner may change it',
  'a member connecting to the private hub gets PT403'
);
select throws_ok(
  format('select community.replace_hub_events(%L, array[%L]::core.object_id[])', :'private_hub', :'carols_event'),
  'PT403', 'only the hub owner may change it',
  'a member replacing the private hub''s events gets PT403'
);

-- ------------------------------------------------------------------------------------------
-- Not visible: 404
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'bob');
select throws_ok(
  format('select community.connect_hub_events(%L, array[%L]::core.object_id[])', :'private_hub', :'bobs_event'),
  'PT404', format('hub %s not found', :'private_hub'),
  'another user connecting to a private hub he cannot see gets PT404'
);
select throws_ok(
  format('select community.replace_hub_events(%L, array[%L]::core.object_id[])', :'draft_hub', :'bobs_event'),
  'PT404', format('hub %s not found', :'draft_hub'),
  'another user replacing the events of a draft hub he cannot see gets PT404'
);
select throws_ok(
  format('select community.connect_hub_events(%L, array[%L]::core.object_id[])', :'unknown_hub', :'bobs_event'),
  'PT404', format('hub %s not found', :'unknown_hub'),
  'an unknown hub gets PT404'
);

-- ------------------------------------------------------------------------------------------
-- anon
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();
select throws_ok(
  format('select community.connect_hub_events(%L, array[%L]::core.object_id[])', :'public_hub', :'bobs_event'),
  '42501', 'permission denied for function connect_hub_events',
  'anon cannot call connect_hub_events'
);
select throws_ok(
  format('select community.replace_hub_events(%L, array[%L]::core.object_id[])', :'public_hub', :'bobs_event'),
  '42501', 'permission denied for function replace_hub_events',
  'anon cannot call replace_hub_events'
);

-- ------------------------------------------------------------------------------------------
-- The owner can (so the refusals above are about the caller)
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'alice');
select lives_ok(
  format('select community.connect_hub_events(%L, array[%L]::core.object_id[])', :'private_hub', :'bobs_event'),
  'the owner connects an event to her private hub'
);

select tests.clear_authentication();
select * from finish();
rollback;
