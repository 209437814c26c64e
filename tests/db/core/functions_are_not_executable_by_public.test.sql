-- Deny by default: no function in core is executable by PUBLIC; each role gets exactly the
-- functions granted to it. Entering an API key's scope (core.enter_api_key_scope, and
-- core.me_by_api_key and core.create_checkout_session_by_api_key, which enter it themselves) is the
-- gateway's own role's alone: the functions run with invoker rights, look keys up across owners and
-- switch the role, so no other role is granted them, not even service_role. Recording a key's use
-- and provisioning users are service_role's: they are security definer and see across owners.
begin;
select plan(20);

select tests.create_user('alice@example.com') as alice \gset

-- ------------------------------------------------------------------------------------------
-- The rule itself
-- ------------------------------------------------------------------------------------------

select is_empty(
  $$select * from tests.functions_executable_by_public('core')$$,
  'no function in core is executable by PUBLIC'
);

-- ------------------------------------------------------------------------------------------
-- authenticated: may not resolve keys, record their use nor provision users
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as(:'alice');

select throws_ok(
  $$select core.enter_api_key_scope('\x00'::bytea, '{}')$$,
  '42501',
  'permission denied for function enter_api_key_scope',
  'authenticated cannot execute core.enter_api_key_scope'
);

select throws_ok(
  $$select * from core.me_by_api_key('\x00'::bytea, '{}')$$,
  '42501',
  'permission denied for function me_by_api_key',
  'authenticated cannot execute core.me_by_api_key'
);

select throws_ok(
  $$select * from core.create_checkout_session_by_api_key('\x00'::bytea, '{}', '000000000000000000000000', 'o', '\x00'::bytea, '{}'::jsonb, '\x00'::bytea, '\x00'::bytea, 300, 'https://store.example/hooks', '\x00'::bytea)$$,
  '42501',
  'permission denied for function create_checkout_session_by_api_key',
  'authenticated cannot execute core.create_checkout_session_by_api_key'
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
  $$select core.enter_api_key_scope('\x00'::bytea, '{}')$$,
  '42501',
  null,
  'anon cannot execute core.enter_api_key_scope'
);

select throws_ok(
  $$select * from core.me_by_api_key('\x00'::bytea, '{}')$$,
  '42501',
  null,
  'anon cannot execute core.me_by_api_key'
);

select throws_ok(
  $$select * from core.create_checkout_session_by_api_key('\x00'::bytea, '{}', '000000000000000000000000', 'o', '\x00'::bytea, '{}'::jsonb, '\x00'::bytea, '\x00'::bytea, 300, 'https://store.example/hooks', '\x00'::bytea)$$,
  '42501',
  null,
  'anon cannot execute core.create_checkout_session_by_api_key'
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
-- service_role: the security definer functions are its own; entering a key's scope is not
-- ------------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();

select throws_ok(
  $$select core.enter_api_key_scope('\x00'::bytea, '{}')$$,
  '42501',
  'permission denied for function enter_api_key_scope',
  'service_role cannot execute core.enter_api_key_scope'
);

select throws_ok(
  $$select * from core.me_by_api_key('\x00'::bytea, '{}')$$,
  '42501',
  'permission denied for function me_by_api_key',
  'service_role cannot execute core.me_by_api_key'
);

select throws_ok(
  $$select * from core.create_checkout_session_by_api_key('\x00'::bytea, '{}', '000000000000000000000000', 'o', '\x00'::bytea, '{}'::jsonb, '\x00'::bytea, '\x00'::bytea, 300, 'https://store.example/hooks', '\x00'::bytea)$$,
  '42501',
  'permission denied for function create_checkout_session_by_api_key',
  'service_role cannot execute core.create_checkout_session_by_api_key'
);

select lives_ok(
  $$select core.record_api_key_use('000000000000000000000000')$$,
  'service_role can execute core.record_api_key_use'
);

select lives_ok(
  $$select core.user_for_auth_user(gen_random_uuid(), 'provisioned@example.com')$$,
  'service_role can execute core.user_for_auth_user'
);

-- ------------------------------------------------------------------------------------------
-- The gateway's own role (the owner, here the test runner) gets past the privilege check: an
-- unknown key is refused by the function itself, so the denials above are not an accident
-- ------------------------------------------------------------------------------------------
select tests.clear_authentication();

select throws_ok(
  $$select core.enter_api_key_scope('\x00'::bytea, '{}')$$,
  'PT401',
  null,
  'the owner can execute core.enter_api_key_scope'
);

select throws_ok(
  $$select * from core.me_by_api_key('\x00'::bytea, '{}')$$,
  'PT401',
  null,
  'the owner can execute core.me_by_api_key'
);

select throws_ok(
  $$select * from core.create_checkout_session_by_api_key('\x00'::bytea, '{}', '000000000000000000000000', 'o', '\x00'::bytea, '{}'::jsonb, '\x00'::bytea, '\x00'::bytea, 300, 'https://store.example/hooks', '\x00'::bytea)$$,
  'PT401',
  null,
  'the owner can execute core.create_checkout_session_by_api_key'
);

select * from finish();
rollback;
