-- A user joins (adds their own membership to) a published public hub only; the owner may add
-- anyone to their own hub, private or draft; nobody else adds other people; anon joins nothing.
begin;
select plan(9);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_hub(:'alice', 'PUBLISHED', false) as public_hub \gset
select tests.create_hub(:'alice', 'PUBLISHED', true) as private_hub \gset
select tests.create_hub(:'alice', 'INCOMPLETE', false) as draft_hub \gset
select tests.create_hub(:'bob', 'PUBLISHED', false) as bobs_hub \gset

-- ------------------------------------------------------------------------------------------
-- Joining oneself
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'bob');

select lives_ok(
  format('insert into community.hub_members (hub_id, user_id) values (%L, %L)', :'public_hub', :'bob'),
  'bob joins a published public hub'
);

select throws_ok(
  format('insert into community.hub_members (hub_id, user_id) values (%L, %L)', :'private_hub', :'bob'),
  '42501', 'new row violates row-level security policy for table "hub_members"',
  'bob cannot join a private hub'
);

select throws_ok(
  format('insert into community.hub_members (hub_id, user_id) values (%L, %L)', :'draft_hub', :'bob'),
  '42501', 'new row violates row-level security policy for table "hub_members"',
  'bob cannot join a draft hub'
);

-- ------------------------------------------------------------------------------------------
-- Adding someone else
-- ------------------------------------------------------------------------------------------
select throws_ok(
  format('insert into community.hub_members (hub_id, user_id) values (%L, %L)', :'public_hub', :'carol'),
  '42501', 'new row violates row-level security policy for table "hub_members"',
  'bob cannot sign carol up to alice''s public hub'
);

select tests.authenticate_as(:'alice');

select lives_ok(
  format('insert into community.hub_members (hub_id, user_id) values (%L, %L)', :'private_hub', :'carol'),
  'the owner adds carol to her private hub'
);

select lives_ok(
  format('insert into community.hub_members (hub_id, user_id) values (%L, %L)', :'draft_hub', :'carol'),
  'the owner adds carol to her draft hub'
);

select throws_ok(
  format('insert into community.hub_members (hub_id, user_id) values (%L, %L)', :'bobs_hub', :'carol'),
  '42501', 'new row violates row-level security policy for table "hub_members"',
  'alice cannot add carol to bob''s hub'
);

-- ------------------------------------------------------------------------------------------
-- anon
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();

select throws_ok(
  format('insert into community.hub_members (hub_id, user_id) values (%L, %L)', :'public_hub', :'carol'),
  '42501', 'permission denied for table hub_members',
  'anon cannot join a hub, not even in someone''s name'
);

select tests.clear_authentication();

select set_eq(
  'select hub_id::text, user_id::text from community.hub_members',
  format(
    'values (%L, %L), (%L, %L), (%L, %L)',
    :'public_hub', :'bob', :'private_hub', :'carol', :'draft_hub', :'carol'
  ),
  'exactly the allowed memberships were stored'
);

select * from finish();
rollback;
