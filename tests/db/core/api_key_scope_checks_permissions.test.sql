-- core.enter_api_key_scope checks the permissions a route requires ("resource:action") against the
-- key's permissions ({"resource": ["action", ...]}) before it enters anything: a missing one raises
-- PT403 with the hint missing_permission and the JSON detail {"required": "resource:action"}.
-- A route that requires nothing accepts any active key.
begin;
select plan(12);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_api_key(:'alice', 'sk_checkout_checkoutSecretCheckoutSecretCheckout', 'checkout', '{"checkout": ["create"]}') as checkout_key \gset
select tests.create_api_key(:'alice', 'sk_nothing1_nothingSecretNothingSecretNothingSecret', 'nothing') as nothing_key \gset

-- The SQLSTATE, MESSAGE, HINT and DETAIL a statement fails with (throws_ok sees only the first
-- two), or null when it succeeds.
create function pg_temp.failure_of(p_statement text) returns jsonb
  language plpgsql volatile
  as $$
  declare
    v_state text;
    v_message text;
    v_hint text;
    v_detail text;
  begin
    execute p_statement;
    return null;
  exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_message = message_text,
      v_hint = pg_exception_hint, v_detail = pg_exception_detail;
    return jsonb_build_object('sqlstate', v_state, 'message', v_message, 'hint', v_hint, 'detail', v_detail);
  end
  $$;

-- The gateway's own role runs the function; each successful entry is undone before the next.
select tests.clear_authentication();

-- ------------------------------------------------------------------------------------------
-- A permission the key has
-- ------------------------------------------------------------------------------------------
select is(
  core.enter_api_key_scope(tests.api_key_hash('sk_checkout_checkoutSecretCheckoutSecretCheckout'), '{checkout:create}')::text,
  :'alice',
  'a key with checkout:create enters the scope of a route that requires checkout:create'
);
select is(current_user::text, 'authenticated', 'and the rest of the transaction runs as authenticated');
select tests.clear_authentication();

-- ------------------------------------------------------------------------------------------
-- A permission the key lacks
-- ------------------------------------------------------------------------------------------
select throws_ok(
  $$select core.enter_api_key_scope(tests.api_key_hash('sk_checkout_checkoutSecretCheckoutSecretCheckout'), '{checkout:retry}')$$,
  'PT403',
  'This API key lacks the permission checkout:retry.',
  'a key without checkout:retry is refused with PT403'
);

select failure_of as retry_failure
from pg_temp.failure_of(
  $$select core.enter_api_key_scope(tests.api_key_hash('sk_checkout_checkoutSecretCheckoutSecretCheckout'), '{checkout:retry}')$$
) \gset
select is(:'retry_failure'::jsonb ->> 'hint', 'missing_permission', 'the refusal carries the hint missing_permission');
select is(
  (:'retry_failure'::jsonb ->> 'detail')::jsonb,
  '{"required": "checkout:retry"}'::jsonb,
  'the refusal''s JSON detail names the missing permission'
);

-- The action is checked within its resource: the same action of another resource is not granted.
select is(
  (select f ->> 'sqlstate' || ' ' || (f ->> 'detail')::jsonb::text
   from pg_temp.failure_of(
     $$select core.enter_api_key_scope(tests.api_key_hash('sk_checkout_checkoutSecretCheckoutSecretCheckout'), '{sponsorship:create}')$$
   ) f),
  'PT403 {"required": "sponsorship:create"}',
  'checkout:create does not grant sponsorship:create'
);

-- Every required permission must be held: one held and one missing is refused, naming the missing one.
select is(
  (select f ->> 'sqlstate' || ' ' || (f ->> 'detail')::jsonb::text
   from pg_temp.failure_of(
     $$select core.enter_api_key_scope(tests.api_key_hash('sk_checkout_checkoutSecretCheckoutSecretCheckout'), '{checkout:create,checkout:retry}')$$
   ) f),
  'PT403 {"required": "checkout:retry"}',
  'a route requiring checkout:create and checkout:retry refuses a key with only checkout:create'
);

-- A key without permissions is refused any required permission.
select throws_ok(
  $$select core.enter_api_key_scope(tests.api_key_hash('sk_nothing1_nothingSecretNothingSecretNothingSecret'), '{checkout:create}')$$,
  'PT403',
  'This API key lacks the permission checkout:create.',
  'a key without permissions is refused checkout:create'
);

-- The permission check comes after the key check: a revoked key is PT401, whatever it lacks.
update core.api_keys set revoked_at = now() where id = :'nothing_key';
select throws_ok(
  $$select core.enter_api_key_scope(tests.api_key_hash('sk_nothing1_nothingSecretNothingSecretNothingSecret'), '{checkout:create}')$$,
  'PT401',
  null,
  'a revoked key is refused as unknown, not for a missing permission'
);

-- ------------------------------------------------------------------------------------------
-- A route that requires nothing
-- ------------------------------------------------------------------------------------------
select is(
  core.enter_api_key_scope(tests.api_key_hash('sk_checkout_checkoutSecretCheckoutSecretCheckout'), '{}')::text,
  :'alice',
  'a route that requires nothing accepts the key'
);
select is(current_user::text, 'authenticated', 'and the rest of the transaction runs as authenticated');
-- A null list is refused outright: read as "nothing required", it would skip the check.
select tests.clear_authentication();
select throws_ok(
  $$select core.enter_api_key_scope(tests.api_key_hash('sk_checkout_checkoutSecretCheckoutSecretCheckout'), null)$$,
  'P0001',
  'core.api_key_claims: p_required_permissions must be an array, not null',
  'a null permission list is an error, not an empty one'
);

select tests.clear_authentication();

select * from finish();
rollback;
