-- Only a hub's owner updates or deletes it; a member or another user who can see the hub changes
-- no row; a hub is created in one's own name only; anon may not write at all.
begin;
select plan(12);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_hub(:'alice') as hub \gset
select tests.create_hub(:'alice') as doomed \gset
select tests.add_member(:'hub', :'carol');

-- ------------------------------------------------------------------------------------------
-- A member and another user: they see the hub, they change nothing
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'carol');

with changed as (
  update community.hubs set name = 'Carol''s now', is_private = true where id = :'hub' returning 1
)
select is(count(*)::int, 0, 'a member''s update of the hub affects no row') from changed;

with deleted as (delete from community.hubs where id = :'hub' returning 1)
select is(count(*)::int, 0, 'a member''s delete of the hub affects no row') from deleted;

select tests.authenticate_as(:'bob');

with changed as (update community.hubs set name = 'Hijacked' where id = :'hub' returning 1)
select is(count(*)::int, 0, 'another user''s update of the hub affects no row') from changed;

with deleted as (delete from community.hubs where id = :'hub' returning 1)
select is(count(*)::int, 0, 'another user''s delete of the hub affects no row') from deleted;

select throws_ok(
  format(
    $$insert into community.hubs (owner_id, hub_type, name, slug) values (%L, 'group', 'Framed', 'framed')$$,
    :'alice'
  ),
  '42501', 'new row violates row-level security policy for table "hubs"',
  'bob cannot create a hub in alice''s name'
);

select lives_ok(
  format(
    $$insert into community.hubs (owner_id, hub_type, name, slug) values (%L, 'group', 'Bob''s', 'bobs')$$,
    :'bob'
  ),
  'bob creates a hub in his own name'
);

-- ------------------------------------------------------------------------------------------
-- anon
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();

select throws_ok(
  format($$update community.hubs set name = 'Defaced' where id = %L$$, :'hub'),
  '42501', 'permission denied for table hubs',
  'anon cannot update a hub'
);

select throws_ok(
  format('delete from community.hubs where id = %L', :'hub'),
  '42501', 'permission denied for table hubs',
  'anon cannot delete a hub'
);

-- ------------------------------------------------------------------------------------------
-- The owner
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'alice');

with changed as (update community.hubs set name = 'Renamed' where id = :'hub' returning 1)
select is(count(*)::int, 1, 'the owner updates her hub') from changed;

with deleted as (delete from community.hubs where id = :'doomed' returning 1)
select is(count(*)::int, 1, 'the owner deletes her hub') from deleted;

select throws_ok(
  format($$update community.hubs set owner_id = %L where id = %L$$, :'carol', :'hub'),
  '42501', 'permission denied for table hubs',
  'even the owner cannot hand her hub to someone else'
);

select tests.clear_authentication();

select results_eq(
  $$select h.owner_id::text, h.name, h.is_private from community.hubs h join core.users u on u.id = h.owner_id
    where u.email = 'alice@example.com'$$,
  format($$values (%L, 'Renamed', false)$$, :'alice'),
  'alice''s hubs are exactly the one she renamed: no one else changed or deleted it'
);

select * from finish();
rollback;
