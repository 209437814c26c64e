-- A customer who paid and closed the page still gets completed. The page reports
-- its transaction's hash for the attempt; the reconciler (service_jobs) lists attempts of sessions
-- still open, prepared before expiry, and completes the one whose receipt it verified, under the
-- same rules as the page (after expiry only for the payer who prepared before it).
begin;
select plan(8);

grant usage on schema extensions to service_jobs;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as session \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-2', 'secret-2') as other \gset
select tests.tx_hash(5) as tx5 \gset

select tests.authenticate_as_anon();
select id as attempt from checkout.record_payment_attempt(:'session', tests.client_secret_hash('secret-1'),
  '0x00000000000000000000000000000000000000b1') \gset
select is(
  (select tx_hash from checkout.record_payment_transaction(:'session', tests.client_secret_hash('secret-1'), :'attempt', upper(tests.tx_hash(5)))),
  tests.tx_hash(5),
  'the page records the broadcast transaction''s hash on its attempt'
);
select throws_ok(
  format($$select checkout.record_payment_transaction(%L, tests.client_secret_hash('secret-2'), %L, %L)$$,
         :'other', :'attempt', tests.tx_hash(6)),
  'PT404', 'no such payment attempt',
  'not on another session''s attempt'
);
select throws_ok(
  format($$select checkout.record_payment_transaction(%L, tests.client_secret_hash('secret-1'), %L, %L)$$,
         :'session', :'attempt', tests.tx_hash(6)),
  'PT409', 'this payment attempt already has another transaction',
  'nor a second, different hash'
);

-- The page closed; the session expired meanwhile and the job materialised it.
select tests.clear_authentication();
update checkout.sessions set expires_at = now() - interval '1 second' where id = :'session';
update checkout.payment_attempts set prepared_at = now() - interval '1 minute';
set local role service_jobs;
select checkout.expire_sessions();

select results_eq(
  $$select session_id::text, tx_hash, price from checkout.payment_attempts_to_reconcile(10)$$,
  format($$values (%L, %L, 1000::numeric)$$, :'session', :'tx5'),
  'the reconciler lists the expired session''s attempt prepared before expiry, with its hash'
);
select throws_ok(
  format($$select checkout.complete_session_as_job(%L, %L, '0x00000000000000000000000000000000000000c1', '{5}', 1000, null, 12)$$,
         :'session', :'tx5'),
  'PT409', 'this checkout is EXPIRED and cannot complete',
  'the job cannot complete it for another payer'
);
select is(
  (select status from checkout.complete_session_as_job(:'session', :'tx5',
     '0x00000000000000000000000000000000000000b1', '{5}', 1000, null, 12)),
  'COMPLETED',
  'the job completes it once the receipt is verified'
);
select is_empty($$select * from checkout.payment_attempts_to_reconcile(10)$$, 'and nothing is left to reconcile');

reset role;
select is((select count(*)::int from checkout.webhook_deliveries where session_id = :'session'), 1,
  'the webhook is queued as for the page''s confirmation');

select * from finish();
rollback;
