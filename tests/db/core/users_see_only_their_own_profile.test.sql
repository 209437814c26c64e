-- A session sees its own user row and profile, and nobody else's.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
update core.profiles set username = 'bob_b', display_name = 'Bob' where user_id = :'bob';

select tests.authenticate_as(:'alice');

select results_eq(
  'select id::text from core.users',
  array[:'alice'],
  'alice sees exactly her own user row'
);

select results_eq(
  'select user_id::text from core.profiles',
  array[:'alice'],
  'alice sees exactly her own profile'
);

select is_empty(
  format('select * from core.profiles where user_id = %L or username = %L', :'bob', 'bob_b'),
  'alice cannot find bob''s profile by id or by username'
);

select tests.authenticate_as(:'bob');

select results_eq(
  'select user_id::text, username from core.profiles',
  format('values (%L, %L)', :'bob', 'bob_b'),
  'bob sees exactly his own profile'
);

-- The rule keys on the session's `sub`: without claims nothing is visible.
select tests.authenticate_as(:'alice');
select set_config('request.jwt.claims', '', true);
select is_empty('select * from core.profiles', 'a session without claims sees no profile');

select tests.clear_authentication();
select * from finish();
rollback;
