-- The service logs in as api_gateway. On its own it must read and write nothing: no table
-- privilege anywhere, no BYPASSRLS, no superuser, and no way to become a role that bypasses RLS.
-- Everything it does goes through a request role (authenticated, anon) or the job role.
begin;
select plan(9);

select is(
  (select rolbypassrls or rolsuper or rolcreaterole or rolcreatedb from pg_roles where rolname = 'api_gateway'),
  false,
  'api_gateway has no BYPASSRLS, SUPERUSER, CREATEROLE or CREATEDB'
);
select is(
  (select rolinherit from pg_roles where rolname = 'api_gateway'),
  false,
  'api_gateway does not inherit the request roles'' privileges: it must switch to use them'
);

select is_empty(
  $$
    select format('%I.%I', n.nspname, c.relname)
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm')
      and n.nspname not in ('information_schema', 'pg_catalog', 'pg_toast', 'supabase_migrations', 'extensions')
      and n.nspname !~ '^pg_temp'
      and (has_table_privilege('api_gateway', c.oid, 'select') or has_table_privilege('api_gateway', c.oid, 'insert')
        or has_table_privilege('api_gateway', c.oid, 'update') or has_table_privilege('api_gateway', c.oid, 'delete'))
    order by 1
  $$,
  'api_gateway holds no privilege on any table (the migration log aside, read by /ready; pgTAP''s own views aside)'
);

select is_empty(
  $$
    select r.rolname from pg_auth_members m
    join pg_roles r on r.oid = m.roleid
    join pg_roles g on g.oid = m.member
    where g.rolname = 'api_gateway' and (r.rolbypassrls or r.rolsuper)
  $$,
  'api_gateway cannot switch to a role that bypasses RLS (service_role is not among its roles)'
);

-- As api_gateway itself. pgTAP lives in `extensions`, which the login role has no use for; the
-- grant is rolled back with the test.
grant usage on schema extensions to api_gateway;
set local role api_gateway;

select throws_ok($$select count(*) from core.api_keys$$, '42501', null, 'api_gateway cannot read API keys');
select throws_ok($$select count(*) from community.events$$, '42501', null, 'api_gateway cannot read events');
select throws_ok($$select count(*) from core.users$$, '42501', null, 'api_gateway cannot read users');
-- (SET ROLE checks the session user, which is the superuser here: tests/roles logs in as api_gateway
-- to prove the switch is refused.)
select ok(not pg_has_role('api_gateway', 'service_role', 'member'), 'api_gateway is no member of service_role');
select throws_ok(
  $$select core.enter_api_key_scope(pg_catalog.sha256('sk_nothing0_unknownUnknownUnknownUnknown'::bytea), '{}')$$,
  'PT401', null,
  'an unknown key enters no scope'
);

select * from finish();
rollback;
