-- A published hub that is not private is visible to everyone: its owner, its members, any other
-- user and a request without credentials.
begin;
select plan(4);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_hub(:'alice', 'PUBLISHED', false) as hub \gset
select tests.add_member(:'hub', :'carol');

select tests.authenticate_as(:'alice');
select set_eq('select id::text from community.hubs', array[:'hub'], 'its owner sees it');

select tests.authenticate_as(:'carol');
select set_eq('select id::text from community.hubs', array[:'hub'], 'a member sees it');

select tests.authenticate_as(:'bob');
select set_eq('select id::text from community.hubs', array[:'hub'], 'another user sees it');

select tests.authenticate_as_anon();
select set_eq('select id::text from community.hubs', array[:'hub'], 'anon sees it');

select tests.clear_authentication();
select * from finish();
rollback;
