-- core.authenticate_api_key resolves an active key to its owner and permissions; a revoked or
-- unknown key resolves to nothing.
begin;
select plan(3);

select tests.create_user('alice@example.com') as alice \gset
select tests.auth_user_id_of(:'alice') as alice_sub \gset
select tests.create_api_key(:'alice', 'sk_active01_activeSecretActiveSecretActiveSecret', 'active', '{"checkout": ["create"]}') as active_key \gset
select tests.create_api_key(:'alice', 'sk_revoked1_revokedSecretRevokedSecretRevokedSecret', 'revoked') as revoked_key \gset
update core.api_keys set revoked_at = now() - interval '1 hour' where id = :'revoked_key';

-- The gateway authenticates keys as service_role.
select tests.authenticate_as_service_role();

select is_empty(
  $$select * from core.authenticate_api_key(tests.api_key_hash('sk_revoked1_revokedSecretRevokedSecretRevokedSecret'))$$,
  'a revoked key authenticates nobody'
);

select is_empty(
  $$select * from core.authenticate_api_key(tests.api_key_hash('sk_unknown1_unknownSecretUnknownSecretUnknownSecret'))$$,
  'an unknown key authenticates nobody'
);

select results_eq(
  $$select api_key_id::text, user_id::text, auth_user_id, permissions, prefix
    from core.authenticate_api_key(tests.api_key_hash('sk_active01_activeSecretActiveSecretActiveSecret'))$$,
  format(
    $$values (%L, %L, %L::uuid, '{"checkout": ["create"]}'::jsonb, 'sk_active01')$$,
    :'active_key', :'alice', :'alice_sub'
  ),
  'an active key authenticates its owner with its permissions'
);

select tests.clear_authentication();
select * from finish();
rollback;
