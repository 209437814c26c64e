-- A published unlisted event is readable by anyone who has its id: the API leaves it out of
-- listings, RLS does not hide it.
begin;
select plan(4);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_event(:'alice', 'PUBLISHED', 'unlisted') as unlisted \gset

select tests.authenticate_as(:'alice');
select set_eq('select id::text from community.events', array[:'unlisted'], 'its owner sees it');

select tests.authenticate_as(:'bob');
select set_eq(
  format('select id::text from community.events where id = %L', :'unlisted'),
  array[:'unlisted'],
  'another user reads it by id'
);

select tests.authenticate_as_anon();
select set_eq(
  format('select id::text from community.events where id = %L', :'unlisted'),
  array[:'unlisted'],
  'anon reads it by id'
);
select is(
  (select visibility::text from community.events where id = :'unlisted'),
  'unlisted',
  'anon can tell it is unlisted (so the API can leave it out of listings)'
);

select tests.clear_authentication();
select * from finish();
rollback;
