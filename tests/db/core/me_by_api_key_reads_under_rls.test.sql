-- core.me_by_api_key answers GET /me in one statement: it enters the key's scope, then reads the
-- owner's user and profile as `authenticated`, so RLS decides what comes back: the key owner's own
-- row, never anyone else's. The key is checked as by core.enter_api_key_scope (unknown or revoked:
-- PT401; a missing permission: PT403).
begin;
select plan(9);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
update core.profiles set username = 'alice_a', display_name = 'Alice' where user_id = :'alice';
update core.profiles set username = 'bob_b', display_name = 'Bob' where user_id = :'bob';
select tests.create_api_key(:'alice', 'sk_alice001_aliceSecretAliceSecretAliceSecret', 'alice', '{"checkout": ["create"]}') as alice_key \gset
select tests.create_api_key(:'bob', 'sk_bob00001_bobSecretBobSecretBobSecretBobSecret', 'bob') as bob_key \gset
select tests.create_api_key(:'bob', 'sk_bobrevok_bobRevokedSecretBobRevokedSecret', 'bob revoked') as bob_revoked_key \gset
update core.api_keys set revoked_at = now() - interval '1 hour' where id = :'bob_revoked_key';

-- The gateway's own role calls it; each call's role switch is undone before the next.
select tests.clear_authentication();

select results_eq(
  $$select id::text, email, username, display_name
    from core.me_by_api_key(tests.api_key_hash('sk_alice001_aliceSecretAliceSecretAliceSecret'), '{}')$$,
  format($$values (%L, 'alice@example.com', 'alice_a', 'Alice')$$, :'alice'),
  'alice''s key reads exactly alice''s user and profile'
);
-- The read ran in the key's scope: the statement left the transaction as `authenticated`, with
-- claims naming alice, which is what the policies on core.users and core.profiles read.
select is(current_user::text, 'authenticated', 'the read ran as authenticated');
select is(core.current_user_id()::text, :'alice', 'in alice''s scope');
-- In that scope RLS shows alice nobody else, whatever is asked for.
select is_empty(
  format('select id from core.users where id = %L union all select user_id from core.profiles where user_id = %L', :'bob', :'bob'),
  'alice''s scope sees neither bob''s user nor his profile'
);
select tests.clear_authentication();

-- The same connection then serves bob: his key reads his row, not a cached one of alice.
select results_eq(
  $$select id::text, email, username, display_name
    from core.me_by_api_key(tests.api_key_hash('sk_bob00001_bobSecretBobSecretBobSecretBobSecret'), '{}')$$,
  format($$values (%L, 'bob@example.com', 'bob_b', 'Bob')$$, :'bob'),
  'bob''s key reads exactly bob''s user and profile'
);
select tests.clear_authentication();

select throws_ok(
  $$select * from core.me_by_api_key(tests.api_key_hash('sk_unknown1_unknownSecretUnknownSecretUnknownSecret'), '{}')$$,
  'PT401',
  'The API key is unknown or has been revoked.',
  'an unknown key reads nothing: PT401'
);

select throws_ok(
  $$select * from core.me_by_api_key(tests.api_key_hash('sk_bobrevok_bobRevokedSecretBobRevokedSecret'), '{}')$$,
  'PT401',
  'The API key is unknown or has been revoked.',
  'a revoked key reads nothing: PT401'
);

-- The route's required permissions are checked too.
select throws_ok(
  $$select * from core.me_by_api_key(tests.api_key_hash('sk_alice001_aliceSecretAliceSecretAliceSecret'), '{checkout:retry}')$$,
  'PT403',
  'This API key lacks the permission checkout:retry.',
  'a key lacking a required permission reads nothing: PT403'
);

select results_eq(
  $$select id::text from core.me_by_api_key(tests.api_key_hash('sk_alice001_aliceSecretAliceSecretAliceSecret'), '{checkout:create}')$$,
  array[:'alice'],
  'a key holding the required permission reads its owner''s row'
);
select tests.clear_authentication();

select * from finish();
rollback;
