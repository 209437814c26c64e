-- Every change to a sponsor's money appends ledger entries, and the sponsor's row always
-- agrees with them: deposited = sum(deposit), spent = sum(spend), held = sum(hold) - sum(release).
-- balance() answers deposited - spent - live holds (an expired hold counts for nothing, released or
-- not). Checked after deposits, checks, provider verifies, completes, a cancel, the expiry job and
-- record_usage, for every sponsor.
begin;
select plan(8);

-- pgTAP lives in extensions: service_jobs calls is() below (rolled back with the test).
grant usage on schema extensions to service_jobs;

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set other_wallet '0x00000000000000000000000000000000000000a2'
\set actor '0x00000000000000000000000000000000000000b1'
\set vault '0x00000000000000000000000000000000000000f1'
\set target '0x00000000000000000000000000000000000000c1'

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'alice', :'wallet', :'chain');
select tests.link_address(:'alice', :'other_wallet', :'chain');
select tests.link_address(:'bob', :'actor', :'chain');

-- The owner funds two sponsor wallets and enables check-ins on the first.
select tests.authenticate_as(:'alice');
select sponsorship.record_deposit(:chain, :'wallet', tests.tx_hash(1), 6000, :'vault', 1, 100);
select sponsorship.record_deposit(:chain, :'wallet', tests.tx_hash(2), 4000, :'vault', 2, 100);
select sponsorship.record_deposit(:chain, :'other_wallet', tests.tx_hash(3), 5000, :'vault', 3, 100);
select sponsorship.save_settings(:chain, :'wallet', '{check_in}', null, null, null, null, '{}', '{}', null, null);

-- Bob asks for six check-ins of 1000 wei each (calls 0x...01 to 0x...06).
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000001', 0, :'actor') as completed_eoa \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000002', 0, :'actor') as completed_4337 \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000003', 0, :'actor') as cancelled \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000004', 0, :'actor') as released_by_job \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000005', 0, :'actor') as live \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000006', 0, :'actor') as expired_unreleased \gset

-- The provider verifies the two that will complete.
select tests.approve_reservation(:'completed_eoa', 800);
select tests.approve_reservation(:'completed_4337', 900);

-- Bob completes both (one as a user operation), cancels one.
select tests.authenticate_as(:'bob');
select sponsorship.complete(:'completed_eoa', 'client-1', :'target', '0x00000001', 0, 'eoa', tests.tx_hash(11), null, :'actor', 700);
select sponsorship.complete(:'completed_4337', 'client-1', :'target', '0x00000002', 0, 'erc4337', tests.tx_hash(12), tests.tx_hash(13), :'actor', 900);
select sponsorship.cancel(:'cancelled', 'client-1', :'target', '0x00000003', 0);

-- Two holds expire; the job releases them (the second is made to expire after the job ran).
select tests.clear_authentication();
update sponsorship.reservations set expires_at = now() - interval '1 second' where id = :'released_by_job';
set local role service_jobs;
select is(sponsorship.release_expired_holds(), 1, 'the job releases the expired hold');
reset role;
update sponsorship.reservations set expires_at = now() - interval '1 second' where id = :'expired_unreleased';

-- A trusted integration records usage on the second wallet.
select tests.authenticate_as(:'alice');
select sponsorship.record_usage(:chain, :'other_wallet', 'nft_mint', :'actor', tests.tx_hash(21), 300, 100);
select tests.clear_authentication();

select is((select count(*)::int from sponsorship.sponsors), 2, 'two sponsors');
select is_empty(
  $$
    select s.id, s.deposited, s.spent, s.held, l.deposited, l.spent, l.held
    from sponsorship.sponsors s
    cross join lateral (
      select coalesce(sum(amount) filter (where kind = 'deposit'), 0) as deposited,
             coalesce(sum(amount) filter (where kind = 'spend'), 0) as spent,
             coalesce(sum(amount) filter (where kind = 'hold'), 0)
               - coalesce(sum(amount) filter (where kind = 'release'), 0) as held
      from sponsorship.ledger_entries e where e.sponsor_id = s.id) l
    where (s.deposited, s.spent, s.held) is distinct from (l.deposited, l.spent, l.held)
  $$,
  'every sponsor''s deposited, spent and held equal the sums of its ledger entries'
);
select results_eq(
  $$
    select s.wallet_address::text, s.deposited::numeric, s.spent::numeric, s.held::numeric
    from sponsorship.sponsors s order by s.wallet_address
  $$,
  format($$values (%L, 10000::numeric, 1600::numeric, 2000::numeric), (%L, 5000::numeric, 300::numeric, 0::numeric)$$,
         :'wallet', :'other_wallet'),
  'the amounts themselves: two spends, the live and the unreleased expired hold, the recorded usage'
);
select results_eq(
  $$select kind, count(*)::int from sponsorship.ledger_entries group by kind order by kind$$,
  $$values ('deposit', 3), ('hold', 6), ('release', 4), ('spend', 3)$$,
  'one entry per deposit, hold and spend; a release per completed, cancelled and expired hold'
);

select tests.authenticate_as(:'alice');
select results_eq(
  format($$select deposited, spent, held, available, active_reservations from sponsorship.balance(%s, %L)$$, :chain, :'wallet'),
  $$values (10000::numeric, 1600::numeric, 1000::numeric, 7400::numeric, 1::bigint)$$,
  'balance() counts only the live hold: deposited - spent - live holds'
);
select results_eq(
  format($$select deposited, spent, held, available from sponsorship.balance(%s, %L)$$, :chain, :'other_wallet'),
  $$values (5000::numeric, 300::numeric, 0::numeric, 4700::numeric)$$,
  'and the second wallet''s'
);

-- The next check releases the expired hold itself, and the invariant still holds.
select tests.authenticate_as(:'bob');
select sponsorship.check(:chain, :'wallet', 'check_in', 'client-1', :'target', '0x00000007', 0, :'actor', null, 1000, 100);
select tests.clear_authentication();
select results_eq(
  format($$
    select s.held::numeric, (select coalesce(sum(amount) filter (where kind = 'hold'), 0)
                                  - coalesce(sum(amount) filter (where kind = 'release'), 0)
                             from sponsorship.ledger_entries e where e.sponsor_id = s.id)
    from sponsorship.sponsors s where s.wallet_address = %L
  $$, :'wallet'),
  $$values (2000::numeric, 2000::numeric)$$,
  'a check releases its sponsor''s expired holds first: held stays the sum of its holds and releases'
);

select * from finish();
rollback;
