-- Places (the open data set venue autocomplete searches) are readable by everyone, anon included,
-- and written by the loader (service_role) only: no session can add, change or remove one.
begin;
select plan(10);

insert into community.places (name, region, country_code, country, lat, lng)
values ('Berlin', 'Land Berlin', 'DE', 'Germany', 52.52, 13.405);

select tests.create_user('alice@example.com') as alice \gset

select tests.authenticate_as_anon();
select results_eq(
  'select label from community.places',
  $$values ('Berlin, Land Berlin, Germany')$$,
  'anon reads places'
);
select throws_ok(
  $$insert into community.places (name, country_code, lat, lng) values ('Nowhere', 'XX', 0, 0)$$,
  '42501', 'permission denied for table places',
  'anon cannot add a place'
);

select tests.authenticate_as(:'alice');
select results_eq(
  'select label from community.places',
  $$values ('Berlin, Land Berlin, Germany')$$,
  'a user reads places'
);
select throws_ok(
  $$insert into community.places (name, country_code, lat, lng) values ('Nowhere', 'XX', 0, 0)$$,
  '42501', 'permission denied for table places',
  'a user cannot add a place'
);
select throws_ok(
  $$update community.places set name = 'Renamed'$$,
  '42501', 'permission denied for table places',
  'a user cannot change a place'
);
select throws_ok(
  'delete from community.places',
  '42501', 'permission denied for table places',
  'a user cannot remove a place'
);

select tests.authenticate_as_service_role();
select lives_ok(
  $$insert into community.places (name, country_code, lat, lng) values ('Potsdam', 'DE', 52.39, 13.06)$$,
  'service_role (the loader) adds a place'
);

select tests.clear_authentication();

select table_privs_are(
  'community', 'places', 'authenticated', array['SELECT'],
  'authenticated may only select places'
);
select table_privs_are(
  'community', 'places', 'anon', array['SELECT'],
  'anon may only select places'
);
select set_eq(
  'select name from community.places',
  array['Berlin', 'Potsdam'],
  'only the loader''s writes are stored'
);

select * from finish();
rollback;
