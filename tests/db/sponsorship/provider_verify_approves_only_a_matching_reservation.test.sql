-- SPEC 3: the sponsored-transaction provider's verify (service_jobs) approves only a
-- transaction matching an active, unexpired reservation: same client id, chain, target, call data,
-- value and sender (the actor, or its smart account when the reservation names one), with a gas
-- cost within the hold. An approval marks the reservation verified and extends its hold to 900 s;
-- each reservation is approved once. Every answer is recorded in verifications.
begin;
select plan(24);

grant usage on schema extensions to service_jobs; -- pgTAP, for the assertions made as service_jobs

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set actor '0x00000000000000000000000000000000000000b1'
\set smart_account '0x00000000000000000000000000000000000000b5'
\set target '0x00000000000000000000000000000000000000c1'

-- One verify as the provider's verifier: "reason" or "reason:<reservation id>" when it names one.
create function pg_temp.verify(p_client_id text, p_chain_id bigint, p_sender text, p_target text,
    p_call_data text, p_value numeric, p_gas_cost numeric) returns text
  language sql as $f$
    select v.reason || case when v.is_allowed <> (v.reason = 'approved') then ' (is_allowed disagrees)' else '' end
                    || coalesce(':' || v.reservation_id, '')
    from sponsorship.provider_verify(p_client_id, p_chain_id, p_sender, p_target, p_call_data, p_value, p_gas_cost) v
  $f$;
grant execute on function pg_temp.verify(text, bigint, text, text, text, numeric, numeric) to service_jobs;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'bob', :'actor', :'chain');
select tests.create_sponsor(:'alice', :'wallet', 100000);
select tests.authenticate_as(:'bob');
select reservation_id as reservation, expires_at as held_until
  from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x12345678', 5, :'actor', null, 1000, 100) \gset
select reservation_id as via_smart_account
  from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x87654321', 0, :'actor', :'smart_account', 1000, 100) \gset

reset role;
select tests.clear_authentication();
set local role service_jobs;

select is(pg_temp.verify('client-2', :chain, :'actor', :'target', '0x12345678', 5, 1000), 'no_matching_reservation', 'another client id: no match');
select is(pg_temp.verify('client-1', 1, :'actor', :'target', '0x12345678', 5, 1000), 'no_matching_reservation', 'another chain: no match');
select is(pg_temp.verify('client-1', :chain, :'actor', '0x00000000000000000000000000000000000000c2', '0x12345678', 5, 1000), 'no_matching_reservation', 'another target: no match');
select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x12345679', 5, 1000), 'no_matching_reservation', 'other call data: no match');
select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x12345678', 6, 1000), 'no_matching_reservation', 'another value: no match');
select is(pg_temp.verify('client-1', :chain, '0x00000000000000000000000000000000000000b2', :'target', '0x12345678', 5, 1000), 'no_matching_reservation', 'another sender: no match');
select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x87654321', 0, 1000), 'no_matching_reservation', 'the actor itself when the reservation names its smart account: no match');

select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x12345678', 5, 1001), 'gas_cost_exceeds_hold:' || :'reservation', 'gas over the hold: gas_cost_exceeds_hold');
reset role;
select is((select verified_at from sponsorship.reservations where id = :'reservation'), null, 'which leaves the reservation unverified');
set local role service_jobs;

select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x12345678', 5, 1000), 'approved:' || :'reservation', 'the matching transaction with gas within the hold is approved');
select is(pg_temp.verify('client-1', :chain, :'smart_account', :'target', '0x87654321', 0, 400), 'approved:' || :'via_smart_account', 'so is one sent by the reservation''s smart account');
select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x12345678', 5, 1000), 'no_matching_reservation', 'a second verify of the same transaction finds no reservation: one approval per reservation');
reset role;

select results_eq(
  format($$select verified_at is not null, verified_gas_cost::numeric, expires_at, status from sponsorship.reservations where id = %L$$, :'reservation'),
  $$values (true, 1000::numeric, now() + interval '900 seconds', 'active')$$,
  'the approval marks the reservation verified with its gas cost and extends the hold to 900 s'
);
select ok(:'held_until'::timestamptz < now() + interval '900 seconds', 'from the 120 s a check holds');
select results_eq(
  $$select allowed, reason, reservation_id::text from sponsorship.verifications order by id$$,
  format($$values (false, 'no_matching_reservation', null::text), (false, 'no_matching_reservation', null), (false, 'no_matching_reservation', null),
                  (false, 'no_matching_reservation', null), (false, 'no_matching_reservation', null), (false, 'no_matching_reservation', null),
                  (false, 'no_matching_reservation', null), (false, 'gas_cost_exceeds_hold', %L), (true, 'approved', %L),
                  (true, 'approved', %L), (false, 'no_matching_reservation', null)$$,
         :'reservation', :'reservation', :'via_smart_account'),
  'every answer is recorded'
);
select results_eq(
  $$select sum(amount) filter (where kind = 'hold')::numeric, count(*) filter (where kind <> 'hold')::int from sponsorship.ledger_entries where kind <> 'deposit'$$,
  $$values (2000::numeric, 0)$$,
  'a verify moves no money'
);

-- Two reservations of the same transaction: each is approved once, then none.
select tests.authenticate_as(:'bob');
select reservation_id as twin_1 from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x22222222', 0, :'actor', null, 1000, 100) \gset
select reservation_id as twin_2 from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x22222222', 0, :'actor', null, 1000, 100) \gset
reset role;
select tests.clear_authentication();
set local role service_jobs;
select pg_temp.verify('client-1', :chain, :'actor', :'target', '0x22222222', 0, 1000) as first_twin_answer \gset
select pg_temp.verify('client-1', :chain, :'actor', :'target', '0x22222222', 0, 1000) as second_twin_answer \gset
select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x22222222', 0, 1000), 'no_matching_reservation', 'a third verify of it finds none');
reset role;
select set_eq(
  format($$values (%L), (%L)$$, :'first_twin_answer', :'second_twin_answer'),
  format($$values (%L), (%L)$$, 'approved:' || :'twin_1', 'approved:' || :'twin_2'),
  'two reservations of one transaction are approved once each'
);

-- Expired, cancelled and completed reservations are no match.
select tests.authenticate_as(:'bob');
select reservation_id as expired from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x33333333', 0, :'actor', null, 1000, 100) \gset
select reservation_id as cancelled from sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x44444444', 0, :'actor', null, 1000, 100) \gset
select sponsorship.cancel(:'cancelled', 'client-1', :'target', '0x44444444', 0);
select sponsorship.complete(:'reservation', 'client-1', :'target', '0x12345678', 5, 'eoa', tests.tx_hash(7), null, :'actor', 900);
reset role;
select tests.clear_authentication();
update sponsorship.reservations set expires_at = now() - interval '1 second' where id = :'expired';
-- A completed reservation cannot be verified again even if its verified mark were gone.
update sponsorship.reservations set verified_at = null where id = :'reservation';
set local role service_jobs;
select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x33333333', 0, 1000), 'no_matching_reservation', 'an expired hold is no match, even before the job released it');
select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x44444444', 0, 1000), 'no_matching_reservation', 'nor a cancelled one');
select is(pg_temp.verify('client-1', :chain, :'actor', :'target', '0x12345678', 5, 1000), 'no_matching_reservation', 'nor a completed one');
reset role;

-- Only the provider's verifier asks.
select tests.authenticate_as(:'bob');
select is(
  tests.error_of(format($$select sponsorship.provider_verify('client-1', %s, %L, %L, '0x', 0, 1)$$, :chain, :'actor', :'target')),
  '{"code": "42501"}'::jsonb,
  'a user cannot call provider_verify (approving their own reservation)'
);
select tests.authenticate_as(:'alice');
select is(
  tests.error_of(format($$select sponsorship.provider_verify('client-1', %s, %L, %L, '0x', 0, 1)$$, :chain, :'actor', :'target')),
  '{"code": "42501"}'::jsonb,
  'nor can the sponsor''s owner'
);
select tests.clear_authentication();
select is((select count(*)::int from sponsorship.verifications), 17, 'seventeen verifies, seventeen records');

select * from finish();
rollback;
