-- MCP (20261123001300_mcp.sql): deny by default. No mcp function is executable by PUBLIC or anon;
-- authenticated executes exactly the audit writer and the rate limit; both are security definer with
-- an empty search_path; RLS is on for every mcp table.
begin;
select plan(5);

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'mcp' and exists (select from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                                      where a.grantee = 0 and a.privilege_type = 'EXECUTE')
$$, 'no mcp function is executable by PUBLIC');

select set_eq($$
  select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'mcp' and has_function_privilege('authenticated', p.oid, 'execute')
$$, array[
  'mcp.record_tool_call(text,text,jsonb,text,text,integer,integer,text,text,text,text[])',
  'mcp.take_rate_limit(text,text,integer)'
], 'authenticated: the audit writer and the rate limit');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'mcp' and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('api_gateway', p.oid, 'execute'))
$$, 'anon and the login role execute none');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'mcp' and (not p.prosecdef or not coalesce(p.proconfig @> array['search_path=""'], false))
$$, 'every mcp function is security definer with an empty search_path');

select is_empty($$
  select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'mcp' and c.relkind = 'r' and not c.relrowsecurity
$$, 'RLS is on for every mcp table');

select * from finish();
rollback;
