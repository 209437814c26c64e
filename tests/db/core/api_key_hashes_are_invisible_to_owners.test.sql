-- Owners list their keys' metadata; the stored hash is readable by no session, not even through
-- a WHERE clause, and other users' keys do not exist for them.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_api_key(:'alice', 'sk_alice001_aliceSecretAliceSecretAliceSecret', 'ci', '{"checkout": ["create"]}') as alice_key \gset
select tests.create_api_key(:'bob', 'sk_bobbb001_bobSecretBobSecretBobSecretBobSecret') as bob_key \gset

select tests.authenticate_as(:'alice');

select results_eq(
  $$select id::text, owner_id::text, name, prefix, permissions, created_at is not null,
           last_used_at, revoked_at
    from core.api_keys$$,
  format(
    $$values (%L, %L, 'ci', 'sk_alice001', '{"checkout": ["create"]}'::jsonb, true,
              null::timestamptz, null::timestamptz)$$,
    :'alice_key', :'alice'
  ),
  'alice sees the metadata of her own key'
);

select throws_ok(
  'select key_hash from core.api_keys',
  '42501',
  'permission denied for table api_keys',
  'selecting key_hash is denied'
);

select throws_ok(
  'select * from core.api_keys',
  '42501',
  'permission denied for table api_keys',
  'select * is denied, since it includes key_hash'
);

select throws_ok(
  format(
    'select id from core.api_keys where key_hash = %L::bytea',
    tests.api_key_hash('sk_alice001_aliceSecretAliceSecretAliceSecret')
  ),
  '42501',
  'permission denied for table api_keys',
  'a key cannot be probed by its hash in a WHERE clause'
);

select is_empty(
  format('select id from core.api_keys where owner_id = %L or id = %L', :'bob', :'bob_key'),
  'alice cannot see bob''s key'
);

select tests.authenticate_as(:'bob');

select results_eq(
  'select id::text from core.api_keys',
  array[:'bob_key'],
  'bob sees only his own key'
);

select tests.clear_authentication();

select column_privs_are(
  'core', 'api_keys', 'key_hash', 'authenticated', array[]::text[],
  'authenticated holds no privilege on api_keys.key_hash'
);

select * from finish();
rollback;
