-- core.enter_api_key_scope lets an active key's request run as its owner: it returns the owner's id
-- and, for the rest of the transaction, runs as `authenticated` with claims naming the owner, the
-- key and its permissions. A revoked or unknown key raises PT401 (invalid_api_key) and enters
-- nothing. Only the gateway's own role runs it, so the calls below are the test runner's.
begin;
select plan(8);

select tests.create_user('alice@example.com') as alice \gset
select tests.auth_user_id_of(:'alice') as alice_sub \gset
select tests.create_api_key(:'alice', 'sk_active01_activeSecretActiveSecretActiveSecret', 'active', '{"checkout": ["create"]}') as active_key \gset
select tests.create_api_key(:'alice', 'sk_revoked1_revokedSecretRevokedSecretRevokedSecret', 'revoked') as revoked_key \gset
update core.api_keys set revoked_at = now() - interval '1 hour' where id = :'revoked_key';

-- The SQLSTATE and HINT a statement fails with (throws_ok sees no hint), or null when it succeeds.
create function pg_temp.failure_of(p_statement text) returns text
  language plpgsql volatile
  as $$
  declare
    v_state text;
    v_hint text;
  begin
    execute p_statement;
    return null;
  exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_hint = pg_exception_hint;
    return v_state || ' ' || coalesce(v_hint, '(no hint)');
  end
  $$;

select tests.clear_authentication();

select throws_ok(
  $$select core.enter_api_key_scope(tests.api_key_hash('sk_revoked1_revokedSecretRevokedSecretRevokedSecret'), '{}')$$,
  'PT401',
  'The API key is unknown or has been revoked.',
  'a revoked key is refused with PT401'
);

select throws_ok(
  $$select core.enter_api_key_scope(tests.api_key_hash('sk_unknown1_unknownSecretUnknownSecretUnknownSecret'), '{}')$$,
  'PT401',
  'The API key is unknown or has been revoked.',
  'an unknown key is refused with PT401'
);

select is(
  pg_temp.failure_of($$select core.enter_api_key_scope(tests.api_key_hash('sk_revoked1_revokedSecretRevokedSecretRevokedSecret'), '{}')$$),
  'PT401 invalid_api_key',
  'the refusal carries the hint invalid_api_key'
);

-- The active key. The role it switches to lasts until the end of the transaction (or until
-- tests.clear_authentication()), so the assertions about its scope come right after it.
select is(
  core.enter_api_key_scope(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'), '{}')::text,
  :'alice',
  'an active key enters its owner''s scope and returns the owner''s id'
);

select is(current_user::text, 'authenticated', 'the rest of the transaction runs as authenticated');
select is(core.current_user_id()::text, :'alice', 'core.current_user_id() names the key''s owner');
select is(auth.uid(), :'alice_sub'::uuid, 'the claims'' sub is the owner''s auth user, so auth.uid() names them');
select is(
  current_setting('request.jwt.claims')::jsonb,
  jsonb_build_object(
    'sub', :'alice_sub', 'role', 'authenticated', 'app_user_id', :'alice',
    'api_key_id', :'active_key', 'permissions', '{"checkout": ["create"]}'::jsonb
  ),
  'the claims carry the owner, the key''s id and its permissions'
);

select tests.clear_authentication();

select * from finish();
rollback;
