-- A private event, even published, is visible to its owner only: not to other users, not to the
-- members of a hub it is connected to, not to anon.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_event(:'alice', 'PUBLISHED', 'private') as secret \gset
-- carol is a member of alice's hub, which the private event is connected to.
select tests.create_hub(:'alice') as hub \gset
select tests.add_member(:'hub', :'carol');
select tests.connect_event(:'hub', :'secret');

select tests.authenticate_as(:'alice');
select set_eq('select id::text from community.events', array[:'secret'], 'its owner sees it');

select tests.authenticate_as(:'bob');
select is_empty(
  format('select * from community.events where id = %L', :'secret'),
  'another user cannot see it, even by id'
);

select tests.authenticate_as(:'carol');
select is_empty(
  format('select * from community.events where id = %L', :'secret'),
  'a member of a hub it is connected to cannot see it'
);

select tests.authenticate_as_anon();
select is_empty('select * from community.events', 'anon cannot see it');

-- The owner is recognised by the session's claims: the same role without them sees nothing.
select tests.authenticate_as(:'alice');
select set_config('request.jwt.claims', '', true);
select is_empty('select * from community.events', 'a session without claims cannot see it');

-- The gateway names the user in `app_user_id` (API keys and sessions alike); that is the owner too.
select set_config('request.jwt.claims', json_build_object('role', 'authenticated', 'app_user_id', :'alice')::text, true);
select set_eq('select id::text from community.events', array[:'secret'], 'its owner named by app_user_id sees it');
select set_config('request.jwt.claims', json_build_object('role', 'authenticated', 'app_user_id', :'bob')::text, true);
select is_empty('select * from community.events', 'another user named by app_user_id cannot see it');

select tests.clear_authentication();
select * from finish();
rollback;
