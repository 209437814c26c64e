-- service_jobs in the three MCP schemas (mcp, mcp_oauth, mcp_confirmations): usage on each and
-- execute on exactly the three purge jobs, one per schema (20261123001300_mcp.sql,
-- 20261123001400_mcp_oauth.sql, 20261123001500_mcp_confirmations.sql), all security definer; no
-- table, column or sequence grant and no RLS policy for it, so its own statements read and delete
-- nothing there. (tests/db/core/ lists its grants in core.)
begin;
select plan(2);

select bag_eq(
  $$select * from tests.privileges_of('service_jobs', '{mcp,mcp_oauth,mcp_confirmations}')$$,
  array[
    'schema mcp: USAGE',
    'schema mcp_confirmations: USAGE',
    'schema mcp_oauth: USAGE',
    'function mcp.purge_tool_calls(): EXECUTE',
    'function mcp_confirmations.purge_finished(): EXECUTE',
    'function mcp_oauth.purge_expired_rows(): EXECUTE'
  ],
  'usage on mcp, mcp_confirmations and mcp_oauth; the three purge jobs, nothing else: '
    || 'no table, view, sequence, column or policy'
);

select ok(
  (select bool_and(p.prosecdef and p.proconfig @> array['search_path=""']) from pg_proc p
   where p.oid in ('mcp.purge_tool_calls()'::regprocedure, 'mcp_confirmations.purge_finished()'::regprocedure,
                   'mcp_oauth.purge_expired_rows()'::regprocedure)),
  'all are security definer with an empty search_path: they need no grant on the tables'
);

select * from finish();
rollback;
