-- An INCOMPLETE (draft) hub, even one that is not private, is visible to its owner and its members
-- only; another user and anon cannot find it.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_hub(:'alice', 'INCOMPLETE', false) as draft \gset
select tests.create_hub(:'alice', 'INCOMPLETE', true) as private_draft \gset
select tests.add_member(:'draft', :'carol');
select tests.add_member(:'private_draft', :'carol');

select tests.authenticate_as(:'alice');
select set_eq(
  'select id::text from community.hubs',
  array[:'draft', :'private_draft'],
  'its owner sees both drafts'
);

select tests.authenticate_as(:'carol');
select set_eq(
  'select id::text from community.hubs',
  array[:'draft', :'private_draft'],
  'a member sees both drafts'
);

select tests.authenticate_as(:'bob');
select is_empty('select * from community.hubs', 'another user sees no draft');
select is_empty(
  format('select * from community.hubs where id = %L', :'draft'),
  'another user cannot read a draft that is not private by id'
);

select tests.authenticate_as_anon();
select is_empty('select * from community.hubs', 'anon sees no draft');

select tests.clear_authentication();
select * from finish();
rollback;
