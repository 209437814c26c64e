-- A deposit is recorded once per (chain, transaction hash). Recording it again for the
-- same sponsor replays the first record (whatever amount is passed); for another sponsor it is
-- PT409 deposit_already_recorded; the same hash on another chain is another deposit. Only the
-- wallet's owner records its deposits (PT404 sponsor_not_found for anyone else).
begin;
select plan(12);

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set other_wallet '0x00000000000000000000000000000000000000a2'
\set bobs_wallet '0x00000000000000000000000000000000000000b1'
\set vault '0x00000000000000000000000000000000000000f1'

create function pg_temp.deposit(p_chain_id bigint, p_wallet text, p_tx integer, p_amount numeric) returns jsonb
  language plpgsql as $f$
    declare
      v_call text := format('select * from sponsorship.record_deposit(%s, %L, %L, %s, %L, 1, 100)', p_chain_id, p_wallet,
        tests.tx_hash(p_tx), p_amount, '0x00000000000000000000000000000000000000f1');
      v_result jsonb;
    begin
      execute format('select jsonb_build_object(''deposit'', d.deposit_id, ''amount'', d.amount, ''replayed'', d.replayed) from (%s) d', v_call)
        into v_result;
      return v_result;
    exception when others then
      return tests.error_of(v_call);
    end $f$;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'alice', :'wallet', :'chain');
select tests.link_address(:'alice', :'other_wallet', :'chain');
select tests.link_address(:'alice', :'wallet', '1');
select tests.link_address(:'bob', :'bobs_wallet', :'chain');

select tests.authenticate_as(:'alice');
select pg_temp.deposit(:chain, :'wallet', 1, 1000) as first \gset
select is(:'first'::jsonb - 'deposit', '{"amount": 1000, "replayed": false}', 'the first record of a deposit');
select is(pg_temp.deposit(:chain, :'wallet', 1, 1000), :'first'::jsonb || '{"replayed": true}', 'recording it again replays it');
select is(pg_temp.deposit(:chain, :'wallet', 1, 5000), :'first'::jsonb || '{"replayed": true}', 'even with another amount: the first record stands');
select is(pg_temp.deposit(:chain, :'other_wallet', 1, 1000), '{"code": "PT409", "hint": "deposit_already_recorded"}',
  'the same hash for the owner''s other wallet: deposit_already_recorded');
select tests.authenticate_as(:'bob');
select is(pg_temp.deposit(:chain, :'bobs_wallet', 1, 1000), '{"code": "PT409", "hint": "deposit_already_recorded"}',
  'and for another user''s wallet');
select is(pg_temp.deposit(:chain, :'wallet', 2, 1000), '{"code": "PT404", "hint": "sponsor_not_found"}',
  'nobody records a deposit for a wallet they did not link');
select tests.authenticate_as(:'alice');
select is(pg_temp.deposit(1, :'wallet', 1, 700) - 'deposit', '{"amount": 700, "replayed": false}',
  'the same hash on another chain is another deposit');
select is(pg_temp.deposit(:chain, :'wallet', 2, 300) - 'deposit', '{"amount": 300, "replayed": false}',
  'another hash on the same chain too');

select tests.clear_authentication();
select results_eq(
  $$select chain_id::bigint, tx_hash::text, amount::numeric from sponsorship.deposits order by id$$,
  format($$values (31337::bigint, %L, 1000::numeric), (1, %L, 700), (31337, %L, 300)$$, tests.tx_hash(1), tests.tx_hash(1), tests.tx_hash(2)),
  'three deposits recorded'
);
select results_eq(
  $$select s.chain_id::bigint, s.wallet_address::text, s.deposited::numeric from sponsorship.sponsors s order by s.chain_id, s.wallet_address$$,
  format($$values (1::bigint, %L, 700::numeric), (31337, %L, 1300)$$, :'wallet', :'wallet'),
  'each counted once, for its own sponsor (a refused record leaves no sponsor behind)'
);
select is((select count(*)::int from sponsorship.ledger_entries where kind = 'deposit'), 3, 'one ledger entry per deposit');
select throws_ok(
  format($$insert into sponsorship.deposits (sponsor_id, chain_id, tx_hash, amount, from_address, to_address, block_number, recorded_by)
           select id, chain_id, %L, 1, wallet_address, wallet_address, 1, %L from sponsorship.sponsors where chain_id = 31337$$,
         tests.tx_hash(1), :'alice'),
  '23505', null,
  'behind the functions'' back, the unique constraint refuses the hash a second time'
);

select * from finish();
rollback;
