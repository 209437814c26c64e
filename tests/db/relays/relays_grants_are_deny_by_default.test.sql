-- Gasless relays (20261123001200_relays.sql): deny by default. No relays function is executable
-- by PUBLIC or anon (hold_for, the hold behind reserve and the door's, by nobody); authenticated
-- executes exactly reserve, collection_for_mint and status;
-- service_jobs exactly the relayer's functions (pending_relay, the one-relay read, among them);
-- every one is security definer with an empty search_path; nobody holds a privilege on the relays
-- tables, and RLS is on for each of them.
begin;
select plan(8);

grant usage on schema extensions to service_jobs; -- pgTAP, for the assertion made as service_jobs

select is_empty(
  $$select * from tests.functions_executable_by_public('relays')$$,
  'no relays function is executable by PUBLIC'
);

select set_eq(
  $$select * from tests.functions_executable_by('authenticated', 'relays')$$,
  array[
    'relays.reserve(bigint,text,sponsorship.operation_type,text,text,text,numeric,integer)',
    'relays.collection_for_mint(text)',
    'relays.status(text)'
  ],
  'authenticated: reserve, collection_for_mint and status'
);

select set_eq(
  $$select * from tests.functions_executable_by('service_jobs', 'relays')$$,
  array[
    'relays.sync_nonce(bigint,text,bigint)',
    'relays.take_nonce(bigint,text)',
    'relays.record_signed(text,bigint,text,bigint,text,text,text,text,numeric,text,text,numeric,numeric)',
    'relays.mark_sent(text,text)',
    'relays.pending(bigint,text,integer)',
    'relays.pending_relay(bigint,text,text)',
    'relays.lock_pending(text)',
    'relays.add_attempt(text,text,text,numeric,numeric)',
    'relays.complete(text,text,numeric,boolean)',
    'relays.fail(text,text)'
  ],
  'service_jobs: the relayer''s functions'
);

select is_empty(
  $$
    select * from tests.functions_executable_by('anon', 'relays')
    union all select * from tests.functions_executable_by('api_gateway', 'relays')
  $$,
  'anon and the login role execute none'
);

select is_empty(
  $$
    select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'relays' and (not p.prosecdef or not coalesce(p.proconfig @> array['search_path=""'], false))
  $$,
  'every relays function is security definer with an empty search_path'
);

select is_empty(
  $$
    select format('%I.%I', n.nspname, c.relname), a.privilege_type
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    cross join aclexplode(c.relacl) a
    where n.nspname = 'relays' and a.grantee <> c.relowner
  $$,
  'no role but the owner holds a privilege on a relays table or sequence'
);

select is_empty(
  $$
    select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'relays' and c.relkind = 'r' and not c.relrowsecurity
  $$,
  'RLS is enabled on every relays table'
);

set local role service_jobs;
select throws_ok($$select count(*) from relays.relays$$, '42501', null, 'service_jobs reads no relay directly');
reset role;

select * from finish();
rollback;
