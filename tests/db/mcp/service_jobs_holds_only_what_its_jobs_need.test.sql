-- service_jobs in the three MCP schemas (mcp, mcp_oauth, mcp_confirmations): usage on each and
-- execute on exactly the three purge jobs of 20261123001300_mcp_purge_jobs.sql, all security
-- definer; no table, column or sequence grant and no RLS policy for it, so its own statements read
-- and delete nothing there. (tests/db/core/ lists its grants in core.)
begin;
select plan(6);

select results_eq(
  $$
    select n.nspname::text collate "default", a.privilege_type
    from pg_namespace n, aclexplode(n.nspacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname in ('mcp', 'mcp_oauth', 'mcp_confirmations')
    order by 1, 2
  $$,
  $$values ('mcp', 'USAGE'), ('mcp_confirmations', 'USAGE'), ('mcp_oauth', 'USAGE')$$,
  'schemas: usage on mcp, mcp_confirmations and mcp_oauth'
);

select is_empty(
  $$
    select format('%I.%I', n.nspname, c.relname), a.privilege_type
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    cross join aclexplode(c.relacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname in ('mcp', 'mcp_oauth', 'mcp_confirmations')
  $$,
  'tables, views and sequences: nothing'
);

select is_empty(
  $$
    select format('%I.%I.%I', n.nspname, c.relname, t.attname)
    from pg_attribute t
    join pg_class c on c.oid = t.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    cross join aclexplode(t.attacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname in ('mcp', 'mcp_oauth', 'mcp_confirmations')
  $$,
  'columns: nothing'
);

select is_empty(
  $$
    select schemaname, tablename, policyname from pg_policies
    where schemaname in ('mcp', 'mcp_oauth', 'mcp_confirmations') and 'service_jobs' = any (roles)
  $$,
  'policies: none for service_jobs'
);

select results_eq(
  $$
    select f from (
      select * from tests.functions_executable_by('service_jobs', 'mcp')
      union all select * from tests.functions_executable_by('service_jobs', 'mcp_confirmations')
      union all select * from tests.functions_executable_by('service_jobs', 'mcp_oauth')
    ) t(f) order by f collate "C"
  $$,
  $$values ('mcp.purge_tool_calls()'), ('mcp_confirmations.purge_finished()'), ('mcp_oauth.purge_expired_rows()')$$,
  'functions: the three purge jobs, nothing else'
);

select ok(
  (select bool_and(p.prosecdef and p.proconfig @> array['search_path=""']) from pg_proc p
   where p.oid in ('mcp.purge_tool_calls()'::regprocedure, 'mcp_confirmations.purge_finished()'::regprocedure,
                   'mcp_oauth.purge_expired_rows()'::regprocedure)),
  'all are security definer with an empty search_path: they need no grant on the tables'
);

select * from finish();
rollback;
