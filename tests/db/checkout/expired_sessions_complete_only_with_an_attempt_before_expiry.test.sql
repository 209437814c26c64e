-- SPEC 3: EXPIRED → COMPLETED only when the transaction was prepared before expiry: the payer has
-- a payment attempt of this session recorded before expires_at. A late payer without one, or a
-- different payer, is refused; FAILED never completes.
begin;
select plan(6);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as prepared \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-2', 'secret-2') as unprepared \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-3', 'secret-3') as failed \gset

select tests.authenticate_as_anon();
select checkout.record_payment_attempt(:'prepared', tests.client_secret_hash('secret-1'), '0x00000000000000000000000000000000000000b1');

-- Both expire; the job materialises order-1's expiry, order-2's only reads as expired.
select tests.clear_authentication();
update checkout.sessions set expires_at = now() - interval '1 second' where id in (:'prepared', :'unprepared');
update checkout.payment_attempts set prepared_at = now() - interval '1 minute';
update checkout.sessions set status = 'FAILED', failure_reason = 'mint reverted' where id = :'failed';
set local role service_jobs;
select checkout.expire_sessions();
reset role;

select tests.authenticate_as_anon();
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-1'), %L,
           '0x00000000000000000000000000000000000000c1', '{1}', 1000, null, 10)$$, :'prepared', tests.tx_hash(1)),
  'PT409', 'this checkout is EXPIRED and cannot complete',
  'another payer than the one who prepared cannot complete after expiry'
);
select is(
  (select status from checkout.complete_session(:'prepared', tests.client_secret_hash('secret-1'), tests.tx_hash(1),
     '0x00000000000000000000000000000000000000B1', '{1}', 1000, null, 10)),
  'COMPLETED',
  'the payer who prepared before expiry completes the EXPIRED session (address case aside)'
);
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-2'), %L,
           '0x00000000000000000000000000000000000000b1', '{2}', 1000, null, 10)$$, :'unprepared', tests.tx_hash(2)),
  'PT409', 'this checkout is EXPIRED and cannot complete',
  'a session without an attempt before expiry does not complete'
);
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-3'), %L,
           '0x00000000000000000000000000000000000000b1', '{3}', 1000, null, 10)$$, :'failed', tests.tx_hash(3)),
  'PT409', 'this checkout is FAILED and cannot complete',
  'a FAILED session does not complete'
);

-- An attempt recorded after expiry (behind the functions' back) does not count either.
select tests.clear_authentication();
insert into checkout.payment_attempts (session_id, payer_address, chain_id, prepared_at)
  values (:'unprepared', '0x00000000000000000000000000000000000000b1', 31337, now());
select tests.authenticate_as_anon();
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-2'), %L,
           '0x00000000000000000000000000000000000000b1', '{2}', 1000, null, 10)$$, :'unprepared', tests.tx_hash(2)),
  'PT409', null,
  'an attempt prepared after expiry does not let it complete'
);

select tests.clear_authentication();
select set_eq(
  $$select external_order_id, status from checkout.sessions$$,
  $$values ('order-1', 'COMPLETED'), ('order-2', 'EXPIRED'), ('order-3', 'FAILED')$$,
  'stored states'
);

select * from finish();
rollback;
