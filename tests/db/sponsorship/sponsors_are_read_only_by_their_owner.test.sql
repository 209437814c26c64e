-- A sponsor's rows (the sponsor, its settings, deposits, usage, ledger entries) are
-- readable by its owner only, the user who linked the wallet on that chain, and writable by nobody
-- but the functions. balance() of a wallet one does not own is PT404 sponsor_not_found. A
-- reservation is visible to whoever asked for it (and the sponsor's owner), and to nobody else.
begin;
select plan(15);

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set actor '0x00000000000000000000000000000000000000b1'
\set target '0x00000000000000000000000000000000000000c1'

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.link_address(:'bob', :'actor', :'chain');
-- Carol linked the same address on another chain: that is another wallet, not this sponsor.
select tests.link_address(:'carol', :'wallet', '1');

select tests.create_sponsor(:'alice', :'wallet', 5000);
select tests.authenticate_as(:'alice');
select sponsorship.record_usage(:chain, :'wallet', 'nft_mint', :'actor', tests.tx_hash(2), 100, 100);
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000001', 0, :'actor') as reservation \gset

-- The owner sees everything of the sponsor.
select tests.authenticate_as(:'alice');
select results_eq(
  $$select (select count(*) from sponsorship.sponsors), (select count(*) from sponsorship.settings),
           (select count(*) from sponsorship.deposits), (select count(*) from sponsorship.usage),
           (select count(*) from sponsorship.ledger_entries), (select count(*) from sponsorship.reservations)$$,
  $$values (1::bigint, 1::bigint, 1::bigint, 1::bigint, 3::bigint, 1::bigint)$$,
  'the owner sees the sponsor, its settings, deposit, usage, ledger entries and reservation'
);
select is((select available from sponsorship.balance(:chain, :'wallet')), 3900::numeric, 'and its balance');

-- Someone else sees nothing.
select tests.authenticate_as(:'carol');
select is_empty($$select * from sponsorship.sponsors$$, 'another user sees no sponsor');
select is_empty($$select * from sponsorship.settings$$, 'no settings');
select is_empty($$select * from sponsorship.deposits$$, 'no deposit');
select is_empty($$select * from sponsorship.usage$$, 'no usage');
select is_empty($$select * from sponsorship.ledger_entries$$, 'no ledger entry');
select is_empty($$select * from sponsorship.reservations$$, 'no reservation');
select is(
  tests.error_of(format($$select * from sponsorship.balance(%s, %L)$$, :chain, :'wallet')),
  '{"code": "PT404", "hint": "sponsor_not_found"}'::jsonb,
  'the balance of the wallet is PT404 sponsor_not_found (a link of that address on another chain does not count)'
);

-- The requester sees their reservation, not the sponsor's money.
select tests.authenticate_as(:'bob');
select results_eq(
  $$select id::text, status from sponsorship.reservations$$,
  format($$values (%L, 'active')$$, :'reservation'),
  'the requester sees their reservation'
);
select is_empty($$select * from sponsorship.sponsors$$, 'but no sponsor row');
select is_empty($$select * from sponsorship.ledger_entries$$, 'nor the ledger');

-- Nobody writes a table directly, the owner included.
select tests.authenticate_as(:'alice');
select throws_ok($$update sponsorship.sponsors set deposited = deposited + 1000000$$, '42501', null,
  'the owner cannot credit their own sponsor');
select throws_ok(
  format($$insert into sponsorship.sponsors (chain_id, wallet_address, deposited) values (%s, '0x00000000000000000000000000000000000000a9', 1)$$, :chain),
  '42501', null, 'nor create one');
select throws_ok($$update sponsorship.settings set max_cost_per_tx = null$$, '42501', null,
  'nor change settings but through save_settings');
select tests.clear_authentication();

select * from finish();
rollback;
