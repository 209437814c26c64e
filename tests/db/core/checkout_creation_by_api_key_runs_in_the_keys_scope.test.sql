-- core.create_checkout_session_by_api_key answers POST /checkout/sessions in one statement: it
-- enters the key's scope, then creates the session and ensures the webhook secret as
-- `authenticated`, so RLS and the policies decide as in a transaction of their own. The key is
-- checked as by core.enter_api_key_scope (unknown: PT401; a missing permission: PT403), and a
-- replay of the order answers the first session.
begin;
select plan(9);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_api_key(:'alice', 'sk_alice001_aliceSecretAliceSecretAliceSecret', 'alice', '{"checkout": ["create"]}') as alice_key \gset
select tests.create_api_key(:'bob', 'sk_bob00001_bobSecretBobSecretBobSecretBobSecret', 'bob', '{"checkout": ["create"]}') as bob_key \gset
select tests.create_api_key(:'bob', 'sk_bobread1_bobReadSecretBobReadSecretBobRead', 'bob read', '{"checkout": ["read"]}') as bob_read_key \gset
select tests.create_collection(:'alice') as collection \gset
select tests.clear_authentication();

-- The statement the gateway sends: alice's key, her collection, a new order.
create temporary table created on commit drop as
  select * from core.create_checkout_session_by_api_key(
    tests.api_key_hash('sk_alice001_aliceSecretAliceSecretAliceSecret'), '{checkout:create}', :'collection', 'order-1',
    tests.checkout_fingerprint(tests.checkout_request()), tests.checkout_request(), tests.client_secret_hash('secret-1'),
    '\x01'::bytea, 3600, 'https://store.example/webhooks', '\x02'::bytea);
select is(current_user::text, 'authenticated', 'the creation ran as authenticated');
select is(core.current_user_id()::text, :'alice', 'in alice''s scope');
select tests.clear_authentication();

select results_eq(
  $$select owner_id::text, status, created, webhook_secret_ciphertext from created$$,
  format($$values (%L, 'PENDING', true, '\x02'::bytea)$$, :'alice'),
  'a new order: alice''s PENDING session, and the webhook secret stored now'
);

-- The same order again: the first session, and the stored webhook secret (the new one is unused).
select results_eq(
  format($$select id::text, created, webhook_secret_ciphertext from core.create_checkout_session_by_api_key(
    tests.api_key_hash('sk_alice001_aliceSecretAliceSecretAliceSecret'), '{checkout:create}', %L, 'order-1',
    tests.checkout_fingerprint(tests.checkout_request()), tests.checkout_request(), tests.client_secret_hash('secret-2'),
    '\x03'::bytea, 3600, 'https://store.example/webhooks', '\x04'::bytea)$$, :'collection'),
  $$select id::text, false, '\x02'::bytea from created$$,
  'the same order again answers the first session and the stored webhook secret'
);
select tests.clear_authentication();

select is((select count(*)::integer from checkout.sessions where owner_id = :'alice'), 1, 'one session for the order');

-- Bob's key does not see alice's collection: RLS decides as for a session of his own.
select throws_ok(
  format($$select * from core.create_checkout_session_by_api_key(
    tests.api_key_hash('sk_bob00001_bobSecretBobSecretBobSecretBobSecret'), '{checkout:create}', %L, 'order-b',
    '\x00'::bytea, tests.checkout_request(), '\x00'::bytea, '\x00'::bytea, 3600, 'https://store.example/webhooks', '\x00'::bytea)$$, :'collection'),
  'PT404', null, 'another owner''s collection: PT404, as if unknown'
);
select tests.clear_authentication();

select throws_ok(
  format($$select * from core.create_checkout_session_by_api_key(
    tests.api_key_hash('sk_bobread1_bobReadSecretBobReadSecretBobRead'), '{checkout:create}', %L, 'order-r',
    '\x00'::bytea, tests.checkout_request(), '\x00'::bytea, '\x00'::bytea, 3600, 'https://store.example/webhooks', '\x00'::bytea)$$, :'collection'),
  'PT403', 'This API key lacks the permission checkout:create.', 'a key without checkout:create creates nothing: PT403'
);
select tests.clear_authentication();

select throws_ok(
  format($$select * from core.create_checkout_session_by_api_key(
    tests.api_key_hash('sk_unknown1_unknownSecretUnknownSecretUnknownSecret'), '{checkout:create}', %L, 'order-u',
    '\x00'::bytea, tests.checkout_request(), '\x00'::bytea, '\x00'::bytea, 3600, 'https://store.example/webhooks', '\x00'::bytea)$$, :'collection'),
  'PT401', 'The API key is unknown or has been revoked.', 'an unknown key creates nothing: PT401'
);
select tests.clear_authentication();

select is((select count(*)::integer from checkout.sessions), 1, 'the refused calls stored nothing');

select * from finish();
rollback;
