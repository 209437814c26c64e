-- service_jobs, the role pg_cron jobs switch to, holds exactly the privileges its jobs' functions
-- need and cannot bypass RLS. A new job adds its grants to the list below; the grants of another
-- schema's jobs are listed by that schema's own test (tests/db/checkout/, tests/db/sponsorship/, tests/db/relays/,
-- tests/db/checkin/, tests/db/app_auth/, tests/db/chat/, and tests/db/mcp/ for mcp, mcp_oauth and mcp_confirmations).
begin;
select plan(2);

select ok(
  (select not rolbypassrls and not rolcanlogin and not rolsuper from pg_roles where rolname = 'service_jobs'),
  'service_jobs cannot log in, is no superuser and does not bypass RLS'
);

-- Every schema but those whose own tests list service_jobs' grants there. The functions everyone
-- may run (PUBLIC: pg_catalog's, pgTAP's, auth.uid() ...) are not service_jobs' own.
select bag_eq(
  $$
    select * from tests.privileges_of('service_jobs', array(
      select nspname::text from pg_namespace
      where nspname not in ('checkout', 'sponsorship', 'relays', 'checkin', 'app_auth', 'mcp', 'mcp_oauth', 'mcp_confirmations', 'chat')
    )) p(privilege)
    where privilege not like '% (PUBLIC)'
  $$,
  array[
    'schema core: USAGE',
    'table core.rate_limit_windows: DELETE',
    'table core.rate_limit_windows: SELECT',
    'table core.siwe_nonces: DELETE',
    'table core.siwe_nonces: SELECT',
    'function core.purge_expired_siwe_nonces(): EXECUTE',
    'function core.purge_rate_limit_windows(): EXECUTE',
    'policy core.rate_limit_windows.rate_limit_windows_purge_jobs: DELETE',
    'policy core.rate_limit_windows.rate_limit_windows_select_jobs: SELECT',
    'policy core.siwe_nonces.siwe_nonces_delete_jobs: DELETE',
    'policy core.siwe_nonces.siwe_nonces_select_jobs: SELECT'
  ],
  'usage on core; select and delete on core.rate_limit_windows and core.siwe_nonces (no column grant), '
    || 'with a policy for each; the two purge jobs'
);

select * from finish();
rollback;
