-- service_jobs, the role pg_cron jobs switch to, holds exactly the privileges its jobs' functions
-- need and cannot bypass RLS. A new job adds its grants to the lists below; the grants of another
-- schema's jobs are listed by that schema's own test (tests/db/checkout/, tests/db/sponsorship/, tests/db/relays/,
-- and tests/db/mcp/ for mcp, mcp_oauth and mcp_confirmations). (Names are compared in
-- the default collation: catalog names come in "C".)
begin;
select plan(5);

select ok(
  (select not rolbypassrls and not rolcanlogin and not rolsuper from pg_roles where rolname = 'service_jobs'),
  'service_jobs cannot log in, is no superuser and does not bypass RLS'
);

select results_eq(
  $$
    select n.nspname::text collate "default", a.privilege_type
    from pg_namespace n, aclexplode(n.nspacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname not in ('checkout', 'sponsorship', 'relays', 'mcp', 'mcp_oauth', 'mcp_confirmations')
    order by 1, 2
  $$,
  $$values ('core', 'USAGE')$$,
  'schemas: usage on core'
);

select results_eq(
  $$
    select format('%I.%I', n.nspname, c.relname) collate "default", a.privilege_type
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    cross join aclexplode(c.relacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname not in ('checkout', 'sponsorship', 'relays', 'mcp', 'mcp_oauth', 'mcp_confirmations')
    order by 1, 2
  $$,
  $$values ('core.rate_limit_windows', 'DELETE'), ('core.rate_limit_windows', 'SELECT'),
          ('core.siwe_nonces', 'DELETE'), ('core.siwe_nonces', 'SELECT')$$,
  'tables, views and sequences: select and delete on core.rate_limit_windows and core.siwe_nonces'
);

select is_empty(
  $$
    select format('%I.%I.%I', n.nspname, c.relname, t.attname)
    from pg_attribute t
    join pg_class c on c.oid = t.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    cross join aclexplode(t.attacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname not in ('checkout', 'sponsorship', 'relays', 'mcp', 'mcp_oauth', 'mcp_confirmations')
  $$,
  'columns: nothing'
);

select results_eq(
  $$
    select p.oid::regprocedure::text
    from pg_proc p, aclexplode(p.proacl) a
    where a.grantee = 'service_jobs'::regrole and a.privilege_type = 'EXECUTE'
      and p.pronamespace not in ('checkout'::regnamespace, 'sponsorship'::regnamespace, 'relays'::regnamespace,
                                'mcp'::regnamespace, 'mcp_oauth'::regnamespace, 'mcp_confirmations'::regnamespace)
    order by 1
  $$,
  $$values ('core.purge_expired_siwe_nonces()'), ('core.purge_rate_limit_windows()')$$,
  'functions: the two purge jobs'
);

select * from finish();
rollback;
