-- A user creates events as their own owner only; anon creates none.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');

select lives_ok(
  format(
    $$insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone)
      values (%L, 'Mine', 'mine', now(), now() + interval '1 hour', 'Europe/Berlin')$$,
    :'alice'
  ),
  'alice creates an event she owns'
);

select throws_ok(
  format(
    $$insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone)
      values (%L, 'Framed', 'framed', now(), now() + interval '1 hour', 'UTC')$$,
    :'bob'
  ),
  '42501',
  'new row violates row-level security policy for table "events"',
  'alice cannot create an event in bob''s name'
);

select throws_ok(
  $$insert into community.events (id, owner_id, name, slug, starts_at, ends_at, time_zone)
    values ('000000000000000000000001', core.current_user_id(), 'Chosen id', 'chosen-id', now(), now(), 'UTC')$$,
  '42501',
  'permission denied for table events',
  'alice cannot choose the event''s id'
);

select tests.authenticate_as_anon();

select throws_ok(
  format(
    $$insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone)
      values (%L, 'Anonymous', 'anonymous', now(), now() + interval '1 hour', 'UTC')$$,
    :'alice'
  ),
  '42501',
  'permission denied for table events',
  'anon cannot create an event, not even in someone''s name'
);

select tests.clear_authentication();

select set_eq(
  'select owner_id::text, slug from community.events',
  format($$values (%L, 'mine')$$, :'alice'),
  'only alice''s own event was stored'
);

select * from finish();
rollback;
