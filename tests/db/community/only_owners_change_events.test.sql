-- Only an event's owner updates or deletes it. Another user who can read the event changes no
-- row; nobody can hand an event to someone else; anon may not write at all.
begin;
select plan(11);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_event(:'alice', 'PUBLISHED', 'public', 'Alice''s meetup') as meetup \gset
select tests.create_event(:'alice', 'PUBLISHED', 'public', 'Alice''s talk') as talk \gset
select tests.create_event(:'alice', 'PUBLISHED', 'public', 'Alice''s workshop') as workshop \gset

-- ------------------------------------------------------------------------------------------
-- Another user: reads it, changes nothing
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'bob');

select isnt_empty(
  format('select from community.events where id = %L', :'meetup'),
  'bob can read alice''s public event (so what follows is not just invisibility)'
);

with changed as (
  update community.events set name = 'Hijacked', visibility = 'private' where id = :'meetup' returning 1
)
select is(count(*)::int, 0, 'bob''s update of alice''s event affects no row') from changed;

with deleted as (
  delete from community.events where id = :'meetup' returning 1
)
select is(count(*)::int, 0, 'bob''s delete of alice''s event affects no row') from deleted;

-- ------------------------------------------------------------------------------------------
-- anon: no write privilege at all
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();

select throws_ok(
  format($$update community.events set name = 'Defaced' where id = %L$$, :'meetup'),
  '42501', 'permission denied for table events',
  'anon cannot update an event'
);

select throws_ok(
  format('delete from community.events where id = %L', :'meetup'),
  '42501', 'permission denied for table events',
  'anon cannot delete an event'
);

-- ------------------------------------------------------------------------------------------
-- The owner
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'alice');

with changed as (
  update community.events set name = 'Alice''s renamed talk', status = 'INCOMPLETE' where id = :'talk' returning 1
)
select is(count(*)::int, 1, 'alice updates her own event') from changed;

with deleted as (
  delete from community.events where id = :'workshop' returning 1
)
select is(count(*)::int, 1, 'alice deletes her own event') from deleted;

select throws_ok(
  format($$update community.events set owner_id = %L where id = %L$$, :'bob', :'meetup'),
  '42501', 'permission denied for table events',
  'even alice cannot hand her event to bob'
);

-- ------------------------------------------------------------------------------------------
-- What is stored
-- ------------------------------------------------------------------------------------------
select tests.clear_authentication();

select results_eq(
  format('select name, visibility::text, owner_id::text from community.events where id = %L', :'meetup'),
  format($$values ('Alice''s meetup', 'public', %L)$$, :'alice'),
  'alice''s event is as it was after bob and anon tried to change it'
);

select results_eq(
  format('select name, status::text from community.events where id = %L', :'talk'),
  $$values ('Alice''s renamed talk', 'INCOMPLETE')$$,
  'alice''s own update is saved'
);

select set_eq(
  'select id::text from community.events',
  array[:'meetup', :'talk'],
  'only alice''s own delete removed an event'
);

select * from finish();
rollback;
