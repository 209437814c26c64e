-- A session edits the public fields of its own profile; other profiles and ownership stay put.
begin;
select plan(3);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');
update core.profiles set display_name = 'Alice' where user_id = :'alice';
update core.profiles set display_name = 'hijacked' where user_id = :'bob';

select throws_ok(
  format('update core.profiles set user_id = %L where user_id = %L', :'bob', :'alice'),
  '42501',
  'permission denied for table profiles',
  'a profile cannot be moved to another user'
);

select tests.clear_authentication();

select is(
  (select display_name from core.profiles where user_id = :'alice'),
  'Alice',
  'alice''s edit of her own profile is saved'
);

select is(
  (select display_name from core.profiles where user_id = :'bob'),
  null,
  'alice''s edit of bob''s profile changes nothing'
);

select * from finish();
rollback;
