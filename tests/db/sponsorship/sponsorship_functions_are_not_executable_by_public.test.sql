-- Deny by default: no sponsorship function (nor the rate limiter) is executable by PUBLIC; users
-- (authenticated) execute exactly the API's functions and the two ownership tests the policies
-- call; the internals that move money (lock_sponsor, release_expired_of, hold_for) and the actor
-- rule on its own (requester_for_actor) are nobody's; anon and the login role execute none of them.
begin;
select plan(7);

select is_empty(
  $$
    select * from tests.functions_executable_by_public('sponsorship')
    union all
    select f::text from unnest(array['core.take_rate_limit(text,integer,integer)'::regprocedure,
                                     'core.purge_rate_limit_windows()'::regprocedure]) f
    where tests.is_executable_by_public(f)
  $$,
  'no function in sponsorship, nor the rate limiter, is executable by PUBLIC'
);

select set_eq(
  $$select * from tests.functions_executable_by('authenticated', 'sponsorship')$$,
  array[
    'sponsorship.owns_wallet(bigint,text)',
    'sponsorship.owns_sponsor(bigint)',
    'sponsorship.balance(bigint,text)',
    'sponsorship.save_settings(bigint,text,sponsorship.operation_type[],numeric,numeric,integer,numeric,text[],text[],timestamp with time zone,timestamp with time zone)',
    'sponsorship."check"(bigint,text,sponsorship.operation_type,text,text,text,numeric,text,text,numeric,integer)',
    'sponsorship.complete(text,text,text,text,numeric,text,text,text,text,numeric,text)',
    'sponsorship.cancel(text,text,text,text,numeric)',
    'sponsorship.record_deposit(bigint,text,text,numeric,text,bigint,integer)',
    'sponsorship.record_usage(bigint,text,sponsorship.operation_type,text,text,numeric,integer)',
    'sponsorship.deposit_preflight(bigint,text,integer)',
    'sponsorship.reservation_chain_id(text)'
  ],
  'authenticated may execute exactly the API''s functions and the policies'' ownership tests'
);

select is_empty(
  $$
    select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'sponsorship' and p.prosecdef
      and not coalesce(p.proconfig @> array['search_path=""'], false)
  $$,
  'every security definer function pins an empty search_path'
);

select is_empty(
  $$
    -- By regproc, so a renamed or missing internal fails here instead of leaving nothing to check
    -- (a name matching no function, as available_of did, made the list shorter without a word).
    select f::regprocedure::text
    from unnest(array['sponsorship.lock_sponsor'::regproc, 'sponsorship.release_expired_of'::regproc,
                      'sponsorship.lock_own_reservation'::regproc, 'sponsorship.require_owned_wallet'::regproc,
                      'sponsorship.mismatched_field'::regproc, 'sponsorship.refuse_ledger_change'::regproc,
                      'sponsorship.hold_for'::regproc, 'sponsorship.requester_for_actor'::regproc]) f
    where has_function_privilege('anon', f, 'execute') or has_function_privilege('authenticated', f, 'execute')
      or has_function_privilege('service_jobs', f, 'execute') or has_function_privilege('service_role', f, 'execute')
  $$,
  'the internals (lock_sponsor, release_expired_of, lock_own_reservation, require_owned_wallet, mismatched_field, the ledger trigger, '
    || 'hold_for, requester_for_actor) are nobody''s'
);

select is_empty(
  $$
    select * from tests.functions_executable_by('anon', 'sponsorship')
    union all select * from tests.functions_executable_by('api_gateway', 'sponsorship')
    union all
    select 'core.take_rate_limit(text,integer,integer)' where has_function_privilege('anon', 'core.take_rate_limit(text,integer,integer)', 'execute')
      or has_function_privilege('api_gateway', 'core.take_rate_limit(text,integer,integer)', 'execute')
  $$,
  'anon and the login role execute none of them (nor take_rate_limit)'
);

select tests.create_user('alice@example.com') as alice \gset
select tests.authenticate_as(:'alice');
select throws_ok(
  $$select sponsorship.lock_sponsor(31337, '0x00000000000000000000000000000000000000a1')$$,
  '42501', null, 'a user cannot create or lock a sponsor row directly'
);
select throws_ok(
  $$select sponsorship.release_expired_holds()$$,
  '42501', null, 'nor run the expiry job'
);
select tests.clear_authentication();

select * from finish();
rollback;
