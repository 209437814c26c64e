-- Deny by default: no checkout function is executable by PUBLIC; anon (the hosted page) may run
-- only the three client-secret functions; authenticated (the store) exactly its own.
begin;
select plan(8);

select is_empty(
  $$select * from tests.functions_executable_by_public('checkout')$$,
  'no function in checkout is executable by PUBLIC'
);

select set_eq(
  $$select * from tests.functions_executable_by('anon', 'checkout')$$,
  array[
    'checkout.session_by_client_secret(core.object_id,bytea)',
    'checkout.record_payment_attempt(core.object_id,bytea,text)',
    'checkout.complete_session(core.object_id,bytea,text,text,numeric[],numeric,text,bigint)',
    'checkout.record_payment_transaction(core.object_id,bytea,core.object_id,text)',
    'checkout.payer_of_transaction(core.object_id,bytea,text)',
    -- The hosted page's CSP: only the allowed origin of a session, no secret needed.
    'checkout.allowed_origin_of(core.object_id)'
  ],
  'anon may execute only the client-secret functions and the page''s allowed origin'
);

select set_eq(
  $$select * from tests.functions_executable_by('authenticated', 'checkout')$$,
  array[
    'checkout.is_evm_address(text)',
    'checkout.status_as_read(text,timestamp with time zone)',
    'checkout.session_status(checkout.sessions)',
    'checkout.create_session(core.object_id,text,bytea,jsonb,bytea,bytea,timestamp with time zone)',
    'checkout.ensure_webhook_secret(text,bytea)',
    'checkout.rotate_webhook_secret(text,bytea,interval)',
    'checkout.requeue_webhook(core.object_id)'
  ],
  'authenticated may execute exactly the store''s functions'
);

select is_empty(
  $$
    select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'checkout' and p.prosecdef
      and not coalesce(p.proconfig @> array['search_path=""'], false)
  $$,
  'every security definer function pins an empty search_path'
);

select is_empty(
  $$
    -- By regproc, so a renamed or missing internal fails here instead of leaving nothing to check.
    select f::regprocedure::text
    from unnest(array['checkout.complete_locked_session'::regproc, 'checkout.session_for_client_secret'::regproc]) f
    where has_function_privilege('anon', f, 'execute') or has_function_privilege('authenticated', f, 'execute')
      or has_function_privilege('service_jobs', f, 'execute') or has_function_privilege('service_role', f, 'execute')
  $$,
  'the internals behind the doors (complete_locked_session, session_for_client_secret) are nobody''s'
);

select is_empty(
  $$select * from tests.functions_executable_by('api_gateway', 'checkout')$$,
  'the login role executes none of them itself'
);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as session \gset

select tests.authenticate_as_anon();
select throws_ok(
  format($$select checkout.create_session(%L, 'o', '\x00', '{}', '\x00', '\x00', now())$$, :'collection'),
  '42501', null, 'anon cannot create sessions'
);
select tests.authenticate_as(:'alice');
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-1'), %L, '0x00000000000000000000000000000000000000b1', '{1}', 1000, null, 1)$$,
         :'session', tests.tx_hash(1)),
  '42501', null, 'the store cannot complete its own sessions: only the verified payment path can'
);

select tests.clear_authentication();
select * from finish();
rollback;
