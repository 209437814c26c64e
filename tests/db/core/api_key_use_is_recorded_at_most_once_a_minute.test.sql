-- core.record_api_key_use writes last_used_at at most once a minute, so a busy key costs one row
-- update a minute rather than one per request; authentication reports last_used_at so the gateway
-- knows when a write is due.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_api_key(:'alice', 'sk_active01_activeSecretActiveSecretActiveSecret') as active_key \gset
select tests.authenticate_as_service_role();

select is(
  (select last_used_at from core.authenticate_api_key(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'))),
  null,
  'a key never used reports no last use'
);

select core.record_api_key_use(:'active_key');
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now(),
  'the first use is written'
);

select tests.clear_authentication();
update core.api_keys set last_used_at = now() - interval '30 seconds' where id = :'active_key';
select tests.authenticate_as_service_role();
select core.record_api_key_use(:'active_key');
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now() - interval '30 seconds',
  'a use within the minute is not written again'
);

select tests.clear_authentication();
update core.api_keys set last_used_at = now() - interval '5 minutes' where id = :'active_key';
select tests.authenticate_as_service_role();
select is(
  (select last_used_at from core.authenticate_api_key(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'))),
  now() - interval '5 minutes',
  'authentication reports the stale last use without writing'
);
select core.record_api_key_use(:'active_key');
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now(),
  'a use after more than a minute is written'
);

select tests.clear_authentication();
select * from finish();
rollback;
