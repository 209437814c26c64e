-- A published public event is readable by everyone: its owner, any other user and a request
-- without credentials.
begin;
select plan(4);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_event(:'alice', 'PUBLISHED', 'public', 'Launch party') as launch \gset

select tests.authenticate_as(:'alice');
select set_eq('select id::text from community.events', array[:'launch'], 'its owner sees it');

select tests.authenticate_as(:'bob');
select set_eq('select id::text from community.events', array[:'launch'], 'another user sees it');

select tests.authenticate_as_anon();
select set_eq('select id::text from community.events', array[:'launch'], 'anon sees it');
select results_eq(
  format('select name, owner_id::text from community.events where id = %L', :'launch'),
  format($$values ('Launch party', %L)$$, :'alice'),
  'anon reads its fields'
);

select tests.clear_authentication();
select * from finish();
rollback;
