-- A person reads their own grants under RLS and revokes only their own (revoke_my_grant);
-- tokens, codes, clients and sessions are readable by nobody but the owner role; the
-- authorization-server functions are the gateway's alone.
begin;
select plan(10);

select tests.create_user('owner@example.com') as owner_id \gset
select tests.create_user('other@example.com') as other_id \gset
insert into mcp_oauth.grants (id, user_id, client_id, client_name, redirect_uri, scopes, resource)
  values ('aaaaaaaaaaaaaaaaaaaaaaaa', :'owner_id', 'c', 'Client', 'http://127.0.0.1/cb', '{events:read}', 'http://api.test/mcp'),
         ('bbbbbbbbbbbbbbbbbbbbbbbb', :'other_id', 'c', 'Client', 'http://127.0.0.1/cb', '{events:read}', 'http://api.test/mcp');

select tests.authenticate_as(:'owner_id');
select results_eq($$select id::text from mcp_oauth.grants$$, $$values ('aaaaaaaaaaaaaaaaaaaaaaaa')$$, 'a person sees only their own grants');
select is(mcp_oauth.revoke_my_grant('bbbbbbbbbbbbbbbbbbbbbbbb'), false, 'another person''s grant cannot be revoked');
select is(mcp_oauth.revoke_my_grant('aaaaaaaaaaaaaaaaaaaaaaaa'), true, 'their own can');
select throws_ok($$update mcp_oauth.grants set revoked_at = null$$, '42501', null, 'grants cannot be changed directly');
select throws_ok($$select * from mcp_oauth.refresh_tokens$$, '42501', null, 'refresh tokens are unreadable');
select throws_ok($$select * from mcp_oauth.sign_in_codes$$, '42501', null, 'sign-in codes are unreadable');
select throws_ok($$select * from mcp_oauth.browser_session_user('\x00')$$, '42501', null, 'authenticated cannot resolve browser sessions');
select tests.clear_authentication();

select is((select revoked_reason from mcp_oauth.grants where id = 'bbbbbbbbbbbbbbbbbbbbbbbb'), null, 'the other grant is untouched');
select is_empty($$
  select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'mcp_oauth'
    and exists (select from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a where a.grantee = 0 and a.privilege_type = 'EXECUTE')
$$, 'no mcp_oauth function is executable by PUBLIC');
select is_empty($$
  select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'mcp_oauth' and p.proname <> 'revoke_my_grant' and has_function_privilege('authenticated', p.oid, 'execute')
$$, 'authenticated may call revoke_my_grant and nothing else of the schema');

select * from finish();
rollback;
