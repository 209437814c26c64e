-- Deny by default: no function in core is executable by PUBLIC; each role gets exactly the
-- functions granted to it. The privileged ones (API-key lookup, user provisioning) are
-- service_role's alone: they are security definer and see across owners.
begin;
select plan(10);

select tests.create_user('alice@example.com') as alice \gset

-- ------------------------------------------------------------------------------------------
-- The rule itself
-- ------------------------------------------------------------------------------------------

select is_empty(
  $$
    select p.oid::regprocedure::text as executable_by_public
    from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'core'
      and exists (
        select from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
        where a.grantee = 0 and a.privilege_type = 'EXECUTE'
      )
    order by 1
  $$,
  'no function in core is executable by PUBLIC'
);

-- ------------------------------------------------------------------------------------------
-- authenticated: may not resolve other people's keys nor provision users
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'alice');

select throws_ok(
  $$select * from core.authenticate_api_key('\x00'::bytea)$$,
  '42501',
  'permission denied for function authenticate_api_key',
  'authenticated cannot execute core.authenticate_api_key'
);

select throws_ok(
  $$select core.record_api_key_use('000000000000000000000000')$$,
  '42501',
  'permission denied for function record_api_key_use',
  'authenticated cannot execute core.record_api_key_use'
);

select throws_ok(
  $$select core.user_for_auth_user(gen_random_uuid(), 'mallory@example.com')$$,
  '42501',
  'permission denied for function user_for_auth_user',
  'authenticated cannot execute core.user_for_auth_user'
);

-- What authenticated is granted still works (so the denials above are not an accident).
select lives_ok(
  $$select core.current_user_id()$$,
  'authenticated can execute core.current_user_id'
);

-- ------------------------------------------------------------------------------------------
-- anon: nothing
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as_anon();

select throws_ok(
  $$select * from core.authenticate_api_key('\x00'::bytea)$$,
  '42501',
  null,
  'anon cannot execute core.authenticate_api_key'
);

select throws_ok(
  $$select core.user_for_auth_user(gen_random_uuid(), 'mallory@example.com')$$,
  '42501',
  null,
  'anon cannot execute core.user_for_auth_user'
);

-- Policies of other schemas call core.current_user_id() for anon too; for anon it names nobody.
select is(core.current_user_id(), null, 'anon may call core.current_user_id(), which names nobody');

-- ------------------------------------------------------------------------------------------
-- service_role: the privileged functions are its own
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();

select lives_ok(
  $$select * from core.authenticate_api_key('\x00'::bytea)$$,
  'service_role can execute core.authenticate_api_key'
);

select lives_ok(
  $$select core.user_for_auth_user(gen_random_uuid(), 'provisioned@example.com')$$,
  'service_role can execute core.user_for_auth_user'
);

select tests.clear_authentication();
select * from finish();
rollback;
