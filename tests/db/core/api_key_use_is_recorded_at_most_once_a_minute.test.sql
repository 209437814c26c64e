-- Last use of an API key is written at most once a minute, so a busy key costs one row update a
-- minute rather than one per request. core.enter_api_key_scope records the use when the key's
-- last_used_at is missing or stale; core.record_api_key_use itself writes nothing within the minute.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_api_key(:'alice', 'sk_active01_activeSecretActiveSecretActiveSecret') as active_key \gset

-- ------------------------------------------------------------------------------------------
-- Through core.enter_api_key_scope, as the gateway does (its role switch is undone after each)
-- ------------------------------------------------------------------------------------------
select tests.clear_authentication();

select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  null,
  'a key never used has no last use'
);

select core.enter_api_key_scope(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'), '{}');
select tests.clear_authentication();
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now(),
  'entering the scope with a key never used records the use'
);

update core.api_keys set last_used_at = now() - interval '30 seconds' where id = :'active_key';
select core.enter_api_key_scope(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'), '{}');
select tests.clear_authentication();
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now() - interval '30 seconds',
  'entering the scope within a minute of the last use writes nothing'
);

update core.api_keys set last_used_at = now() - interval '5 minutes' where id = :'active_key';
select core.enter_api_key_scope(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'), '{}');
select tests.clear_authentication();
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now(),
  'entering the scope more than a minute after the last use records the use'
);

-- ------------------------------------------------------------------------------------------
-- core.record_api_key_use on its own (service_role may call it): the rule does not depend on the
-- caller having checked last_used_at first
-- ------------------------------------------------------------------------------------------
update core.api_keys set last_used_at = null where id = :'active_key';
select tests.authenticate_as_service_role();
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
select core.record_api_key_use(:'active_key');
select is(
  (select last_used_at from core.api_keys where id = :'active_key'),
  now(),
  'a use after more than a minute is written'
);

select tests.clear_authentication();
select * from finish();
rollback;
