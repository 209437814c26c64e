-- A private hub, even published, is visible to its owner and its members only; another user and
-- anon cannot find it, not even by id.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_hub(:'alice', 'PUBLISHED', true) as private_hub \gset
select tests.add_member(:'private_hub', :'carol');

select tests.authenticate_as(:'alice');
select set_eq('select id::text from community.hubs', array[:'private_hub'], 'its owner sees it');

select tests.authenticate_as(:'carol');
select set_eq('select id::text from community.hubs', array[:'private_hub'], 'a member sees it');

select tests.authenticate_as(:'bob');
select is_empty(
  format('select * from community.hubs where id = %L', :'private_hub'),
  'another user cannot see it, even by id'
);
select is(
  community.member_hub_ids(),
  '{}'::core.object_id[],
  'another user is a member of no hub'
);

select tests.authenticate_as_anon();
select is_empty(
  format('select * from community.hubs where id = %L', :'private_hub'),
  'anon cannot see it, even by id'
);

select tests.clear_authentication();
select * from finish();
rollback;
