-- core.authenticate_api_key writes last_used_at at most once a minute, so a busy key costs one
-- row update a minute rather than one per request.
begin;
select plan(4);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_api_key(:'alice', 'sk_active01_activeSecretActiveSecretActiveSecret') as active_key \gset
update core.api_keys set last_used_at = now() - interval '30 seconds' where id = :'active_key';
select tests.authenticate_as_service_role();
select is(
  (select count(*)::int from core.authenticate_api_key(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'))),
  1,
  'a key used 30 seconds ago still authenticates'
);
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now() - interval '30 seconds',
  'a use within the minute is not written again'
);

select tests.clear_authentication();
update core.api_keys set last_used_at = now() - interval '5 minutes' where id = :'active_key';
select tests.authenticate_as_service_role();
select is(
  (select count(*)::int from core.authenticate_api_key(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'))),
  1,
  'a key last used 5 minutes ago authenticates'
);
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now(),
  'a use after more than a minute is written'
);

select tests.clear_authentication();
select * from finish();
rollback;
