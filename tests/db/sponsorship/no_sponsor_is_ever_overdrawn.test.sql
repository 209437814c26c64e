-- No sponsor is ever overdrawn. check denies a hold the balance does not cover
-- (insufficient_balance, no hold taken); record_usage beyond the balance is PT409
-- insufficient_balance; and behind the functions' back the CHECK constraint on the sponsor's row
-- (deposited - spent - held >= 0) refuses any update that would overdraw, even the owner's.
begin;
select plan(9);

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set actor '0x00000000000000000000000000000000000000b1'
\set target '0x00000000000000000000000000000000000000c1'

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'bob', :'actor', :'chain');
select tests.create_sponsor(:'alice', :'wallet', 2500);

select tests.authenticate_as(:'bob');
select results_eq(
  format($$select eligible, reason, available from sponsorship.check(%s, %L, 'check_in', 'client-1', %L, '0x00000001', 0, %L, null, 1000, 100)$$,
         :chain, :'wallet', :'target', :'actor'),
  $$values (true, 'eligible', 1500::numeric)$$,
  'a check the balance covers is eligible'
);
select results_eq(
  format($$select eligible, reason, available from sponsorship.check(%s, %L, 'check_in', 'client-1', %L, '0x00000002', 0, %L, null, 1500, 100)$$,
         :chain, :'wallet', :'target', :'actor'),
  $$values (true, 'eligible', 0::numeric)$$,
  'so is one for exactly what is left'
);
select results_eq(
  format($$select eligible, reason, reservation_id, available from sponsorship.check(%s, %L, 'check_in', 'client-1', %L, '0x00000003', 0, %L, null, 1, 100)$$,
         :chain, :'wallet', :'target', :'actor'),
  $$values (false, 'insufficient_balance', null::core.object_id, 0::numeric)$$,
  'one more wei is denied: insufficient_balance, no reservation'
);

select tests.authenticate_as(:'alice');
select throws_ok(
  format($$select sponsorship.record_usage(%s, %L, 'nft_mint', %L, %L, 1, 100)$$, :chain, :'wallet', :'actor', tests.tx_hash(2)),
  'PT409', 'the sponsor balance does not cover 1 wei',
  'record_usage beyond the balance is PT409'
);
select throws_ok(
  format($$select sponsorship.record_usage(%s, %L, 'nft_mint', %L, %L, 1, 100)$$, :chain, :'wallet', :'actor', tests.tx_hash(2)),
  'PT409', null, 'a second time too (nothing was recorded)'
);
select tests.clear_authentication();
select is(
  (select s.deposited - s.spent - s.held from sponsorship.sponsors s),
  0::numeric,
  'the sponsor is at zero, not below'
);

-- The constraint, as the table owner (no function in the way).
select throws_ok(
  $$update sponsorship.sponsors set held = held + 1$$,
  '23514', 'new row for relation "sponsors" violates check constraint "sponsors_not_overdrawn"', 'the CHECK refuses a hold beyond the balance'
);
select throws_ok(
  $$update sponsorship.sponsors set spent = spent + 1$$,
  '23514', 'new row for relation "sponsors" violates check constraint "sponsors_not_overdrawn"', 'and a spend beyond it'
);
select throws_ok(
  $$update sponsorship.sponsors set deposited = deposited - 1$$,
  '23514', 'new row for relation "sponsors" violates check constraint "sponsors_not_overdrawn"', 'and a deposit taken back'
);

select * from finish();
rollback;
