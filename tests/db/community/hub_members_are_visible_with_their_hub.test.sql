-- Who belongs to a hub is visible to whoever can see the hub: everyone for a published public hub,
-- the owner and the members for a private or draft one.
begin;
select plan(6);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_user('dave@example.com') as dave \gset
select tests.create_hub(:'alice', 'PUBLISHED', false) as public_hub \gset
select tests.create_hub(:'alice', 'PUBLISHED', true) as private_hub \gset
select tests.create_hub(:'alice', 'INCOMPLETE', false) as draft_hub \gset
select tests.add_member(:'public_hub', :'carol');
select tests.add_member(:'public_hub', :'dave');
select tests.add_member(:'private_hub', :'carol');
select tests.add_member(:'private_hub', :'dave');
select tests.add_member(:'draft_hub', :'carol');

select tests.authenticate_as(:'alice');
select set_eq(
  'select hub_id::text, user_id::text from community.hub_members',
  format(
    'values (%L, %L), (%L, %L), (%L, %L), (%L, %L), (%L, %L)',
    :'public_hub', :'carol', :'public_hub', :'dave', :'private_hub', :'carol', :'private_hub', :'dave',
    :'draft_hub', :'carol'
  ),
  'the owner sees the members of all her hubs'
);

select tests.authenticate_as(:'dave');
select set_eq(
  'select hub_id::text, user_id::text from community.hub_members',
  format(
    'values (%L, %L), (%L, %L), (%L, %L), (%L, %L)',
    :'public_hub', :'carol', :'public_hub', :'dave', :'private_hub', :'carol', :'private_hub', :'dave'
  ),
  'a member of the private hub sees its members, but not those of a draft he is not in'
);

select tests.authenticate_as(:'bob');
select set_eq(
  'select hub_id::text, user_id::text from community.hub_members',
  format('values (%L, %L), (%L, %L)', :'public_hub', :'carol', :'public_hub', :'dave'),
  'another user sees only the members of the public hub'
);
select is_empty(
  format('select * from community.hub_members where user_id = %L and hub_id <> %L', :'carol', :'public_hub'),
  'another user cannot find out which hidden hubs carol belongs to'
);

select tests.authenticate_as_anon();
select set_eq(
  'select hub_id::text, user_id::text from community.hub_members',
  format('values (%L, %L), (%L, %L)', :'public_hub', :'carol', :'public_hub', :'dave'),
  'anon sees only the members of the public hub'
);
select is_empty(
  format('select * from community.hub_members where hub_id in (%L, %L)', :'private_hub', :'draft_hub'),
  'anon cannot list the members of a private or draft hub by its id'
);

select tests.clear_authentication();
select * from finish();
rollback;
