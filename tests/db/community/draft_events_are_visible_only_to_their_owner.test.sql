-- An INCOMPLETE (draft) event is visible to its owner only, whatever its visibility says: not to
-- other users, not to members of a hub it is connected to, not to anon.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_event(:'alice', 'INCOMPLETE', 'public') as draft_public \gset
select tests.create_event(:'alice', 'INCOMPLETE', 'unlisted') as draft_unlisted \gset
select tests.create_event(:'alice', 'INCOMPLETE', 'private') as draft_private \gset
select tests.create_hub(:'alice') as hub \gset
select tests.add_member(:'hub', :'carol');
select tests.connect_event(:'hub', :'draft_public');

select tests.authenticate_as(:'alice');
select set_eq(
  'select id::text from community.events',
  array[:'draft_public', :'draft_unlisted', :'draft_private'],
  'their owner sees all three drafts'
);

select tests.authenticate_as(:'bob');
select is_empty('select * from community.events', 'another user sees no draft');
select is_empty(
  format('select * from community.events where id in (%L, %L)', :'draft_public', :'draft_unlisted'),
  'another user cannot read a public or unlisted draft by id'
);

select tests.authenticate_as(:'carol');
select is_empty('select * from community.events', 'a member of a hub a draft is connected to sees no draft');

select tests.authenticate_as_anon();
select is_empty('select * from community.events', 'anon sees no draft');

select tests.clear_authentication();
select * from finish();
rollback;
