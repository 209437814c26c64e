-- service_jobs in the sponsorship schema: usage on it and execute on exactly the provider's
-- verify and the expiry job, both security definer; no table, column or sequence grant, so its own
-- statements read and write nothing of the ledger. (tests/db/core/ lists its grants in core,
-- including core.purge_rate_limit_windows and core.rate_limit_windows.)
begin;
select plan(3);

grant usage on schema extensions to service_jobs; -- pgTAP, for the assertion made as service_jobs

select bag_eq(
  $$select * from tests.privileges_of('service_jobs', '{sponsorship}')$$,
  array[
    'schema sponsorship: USAGE',
    'function sponsorship.provider_verify(text,bigint,text,text,text,numeric,numeric): EXECUTE',
    'function sponsorship.record_verification_refusal(text,bigint,text,numeric,text): EXECUTE',
    'function sponsorship.release_expired_holds(): EXECUTE'
  ],
  'usage on sponsorship; provider_verify, record_verification_refusal and release_expired_holds, nothing else: '
    || 'no table, view, sequence, column or policy'
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
