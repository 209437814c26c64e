-- service_jobs in the sponsorship schema: usage on it and execute on exactly the provider's
-- verify and the expiry job, both security definer; no table, column or sequence grant, so its own
-- statements read and write nothing of the ledger. (tests/db/core/ lists its grants in core,
-- including core.purge_rate_limit_windows and core.rate_limit_windows from this migration.)
begin;
select plan(6);

grant usage on schema extensions to service_jobs; -- pgTAP, for the assertion made as service_jobs

select results_eq(
  $$
    select a.privilege_type
    from pg_namespace n, aclexplode(n.nspacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname = 'sponsorship'
  $$,
  $$values ('USAGE')$$,
  'schema: usage on sponsorship'
);

select is_empty(
  $$
    select format('%I.%I', n.nspname, c.relname), a.privilege_type
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    cross join aclexplode(c.relacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname = 'sponsorship'
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
    where a.grantee = 'service_jobs'::regrole and n.nspname = 'sponsorship'
  $$,
  'columns: nothing'
);

select results_eq(
  $$select * from tests.functions_executable_by('service_jobs', 'sponsorship')$$,
  $$values ('sponsorship.provider_verify(text,bigint,text,text,text,numeric,numeric)'),
          ('sponsorship.record_verification_refusal(text,bigint,text,numeric,text)'),
          ('sponsorship.release_expired_holds()')$$,
  'functions: provider_verify, record_verification_refusal and release_expired_holds, nothing else'
);

select ok(
  (select bool_and(p.prosecdef) from pg_proc p
   where p.oid in ('sponsorship.provider_verify(text,bigint,text,text,text,numeric,numeric)'::regprocedure,
                   'sponsorship.record_verification_refusal(text,bigint,text,numeric,text)'::regprocedure,
                   'sponsorship.release_expired_holds()'::regprocedure)),
  'all are security definer: they need no grant on the tables'
);

set local role service_jobs;
select throws_ok($$select count(*) from sponsorship.sponsors$$, '42501', null, 'service_jobs reads no sponsor directly');
reset role;

select * from finish();
rollback;
