-- A member leaves a hub (deletes their own membership) and the owner removes members; another
-- member or user cannot remove someone else; anon removes nothing.
begin;
select plan(8);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_user('dave@example.com') as dave \gset
select tests.create_user('erin@example.com') as erin \gset
select tests.create_hub(:'alice', 'PUBLISHED', false) as hub \gset
select tests.create_hub(:'alice', 'PUBLISHED', true) as private_hub \gset
select tests.add_member(:'hub', :'bob');
select tests.add_member(:'hub', :'carol');
select tests.add_member(:'hub', :'dave');
select tests.add_member(:'private_hub', :'erin');

-- ------------------------------------------------------------------------------------------
-- Someone else's membership: untouchable
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'carol');
with deleted as (
  delete from community.hub_members where hub_id = :'hub' and user_id = :'bob' returning 1
)
select is(count(*)::int, 0, 'a fellow member cannot remove bob (though she can see his membership)') from deleted;

select tests.authenticate_as(:'erin');
with deleted as (delete from community.hub_members where hub_id = :'hub' returning 1)
select is(count(*)::int, 0, 'a user who is not a member cannot remove anyone') from deleted;

select tests.authenticate_as_anon();
select throws_ok(
  format('delete from community.hub_members where hub_id = %L', :'hub'),
  '42501', 'permission denied for table hub_members',
  'anon cannot remove anyone'
);

-- ------------------------------------------------------------------------------------------
-- Leaving and removing
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'bob');
with deleted as (
  delete from community.hub_members where hub_id = :'hub' and user_id = :'bob' returning 1
)
select is(count(*)::int, 1, 'bob leaves the hub') from deleted;

select tests.authenticate_as(:'erin');
with deleted as (
  delete from community.hub_members where hub_id = :'private_hub' and user_id = :'erin' returning 1
)
select is(count(*)::int, 1, 'erin leaves a private hub') from deleted;

select tests.authenticate_as(:'alice');
with deleted as (
  delete from community.hub_members where hub_id = :'hub' and user_id = :'carol' returning 1
)
select is(count(*)::int, 1, 'the owner removes carol') from deleted;

select throws_ok(
  format('update community.hub_members set user_id = %L where hub_id = %L', :'alice', :'hub'),
  '42501', 'permission denied for table hub_members',
  'a membership cannot be moved to another user, not even by the owner'
);

select tests.clear_authentication();

select set_eq(
  'select hub_id::text, user_id::text from community.hub_members',
  format('values (%L, %L)', :'hub', :'dave'),
  'only dave, whom nobody entitled removed, is still a member'
);

select * from finish();
rollback;
