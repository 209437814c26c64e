-- Deny by default: no role holds a privilege on app_auth's tables (RLS is on, no policy exists), so
-- a request as anon or as the signed-in person reads no session or token, not even its own. The
-- login role calls exactly the five functions of the auth routes, the admin CLI (service_role) only
-- start_session, and each function is security definer with an empty search_path.
begin;
select plan(10);

select tests.create_user('ana@example.com') as ana \gset
select app_auth.start_session(:'ana', 'admin', sha256('a1'), 3600);

select bag_eq(
  $$select * from tests.privileges_of('api_gateway', '{app_auth}')$$,
  array[
    'schema app_auth: USAGE',
    'function app_auth.address_has_user(text): EXECUTE',
    'function app_auth.end_sessions(uuid,text): EXECUTE',
    'function app_auth.live_session(uuid): EXECUTE',
    'function app_auth.refresh_session(bytea,bytea,integer): EXECUTE',
    'function app_auth.verify_otp(text,bytea,text,integer,integer,integer,integer,bytea,integer): EXECUTE'
  ],
  'api_gateway: usage and the five functions of the auth routes, no table'
);
select bag_eq(
  $$select * from tests.privileges_of('service_role', '{app_auth}')$$,
  array['schema app_auth: USAGE', 'function app_auth.start_session(core.object_id,text,bytea,integer): EXECUTE'],
  'service_role: usage and start_session, no table'
);
select is_empty(
  $$select * from tests.privileges_of('authenticated', '{app_auth}') union all select * from tests.privileges_of('anon', '{app_auth}')$$,
  'authenticated and anon: nothing at all in app_auth'
);
select ok(not has_function_privilege('api_gateway', 'mcp_oauth.spend_sign_in_code(text,text,bytea,text,integer,integer,integer,integer)', 'execute'),
  'the shared code check is called only through the verify functions');
select is_empty(
  $$select r from unnest(array['public', 'anon', 'authenticated', 'service_role', 'api_gateway', 'service_jobs']) r
    where has_function_privilege(r, 'mcp_oauth.lock_sign_in_address(text,integer)', 'execute')$$,
  'nor the address''s lock and wrong-guess cap, which only the code functions take');
select ok(
  (select bool_and(p.prosecdef and p.proconfig @> array['search_path=""']) from pg_proc p
   where p.pronamespace = 'app_auth'::regnamespace or p.oid = 'mcp_oauth.spend_sign_in_code(text,text,bytea,text,integer,integer,integer,integer)'::regprocedure),
  'every function is security definer with an empty search_path'
);
select ok((select bool_and(relrowsecurity) from pg_class where relnamespace = 'app_auth'::regnamespace and relkind = 'r'),
  'RLS is on for every app_auth table');

select tests.authenticate_as(:'ana');
select throws_ok($$select * from app_auth.sessions$$, '42501', null, 'the person cannot read sessions, even their own');
select throws_ok($$select * from app_auth.refresh_tokens$$, '42501', null, 'nor refresh tokens');
select throws_ok($$select app_auth.live_session(gen_random_uuid())$$, '42501', null, 'nor call the gateway''s functions');

select * from finish();
rollback;
