-- The ledger explains every change, so it is append-only: a trigger refuses update,
-- delete and truncate of ledger entries for everyone, the table owner included (PT403
-- ledger_append_only); authenticated and service_role hold no write privilege on it at all.
begin;
select plan(7);

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set vault '0x00000000000000000000000000000000000000f1'

select tests.create_user('alice@example.com') as alice \gset
select tests.link_address(:'alice', :'wallet', :'chain');
select tests.authenticate_as(:'alice');
select sponsorship.record_deposit(:chain, :'wallet', tests.tx_hash(1), 1000, :'vault', 1, 100);
select tests.clear_authentication();

-- As the table owner.
select throws_ok($$update sponsorship.ledger_entries set amount = 1$$,
  'PT403', 'the sponsorship ledger is append-only', 'the owner cannot update an entry');
select throws_ok($$delete from sponsorship.ledger_entries$$,
  'PT403', 'the sponsorship ledger is append-only', 'nor delete one');
select throws_ok($$truncate sponsorship.ledger_entries cascade$$,
  'PT403', 'the sponsorship ledger is append-only', 'nor truncate the ledger');
select results_eq($$select kind, amount::numeric from sponsorship.ledger_entries$$,
  $$values ('deposit', 1000::numeric)$$, 'the entry is unchanged');

-- Nobody else has a write privilege to begin with.
select is(tests.roles_writing('sponsorship.ledger_entries'), '{}'::text[],
  'no API or job role may insert, update, delete or truncate ledger entries');
select tests.authenticate_as(:'alice');
select throws_ok($$update sponsorship.ledger_entries set amount = 1$$, '42501', null, 'the sponsor''s owner cannot update its entries');
select throws_ok($$delete from sponsorship.ledger_entries$$, '42501', null, 'nor delete them');
select tests.clear_authentication();

select * from finish();
rollback;
