-- FAILED (20261123001000_checkout.sql): set only by the reconciler's fail_session_as_job
-- (service_jobs), from PENDING or EXPIRED, with a stable reason code; terminal: no payment starts,
-- nothing completes it, the reconciler's work lists drop it, and the client-safe read shows it with
-- its reason.
begin;
select plan(15);

grant usage on schema extensions to service_jobs;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as pending \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-2', 'secret-2') as expired \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-3', 'secret-3') as paid \gset

select tests.authenticate_as_anon();
select checkout.record_payment_attempt(:'pending', tests.client_secret_hash('secret-1'), '0x00000000000000000000000000000000000000b1');
select checkout.record_payment_attempt(:'expired', tests.client_secret_hash('secret-2'), '0x00000000000000000000000000000000000000b2');
select checkout.complete_session(:'paid', tests.client_secret_hash('secret-3'), tests.tx_hash(3),
  '0x00000000000000000000000000000000000000b3', '{3}', 1000, null, 10);
select tests.clear_authentication();
-- Expired as read only (the expiry job has not run).
update checkout.sessions set expires_at = now() - interval '1 second' where id = :'expired';

-- Nobody but service_jobs may fail a session.
select tests.authenticate_as_anon();
select throws_ok(format($$select checkout.fail_session_as_job(%L, 'checkout_reference_consumed')$$, :'pending'),
  '42501', null, 'the hosted page (anon) cannot fail a checkout');
select tests.authenticate_as(:'alice');
select throws_ok(format($$select checkout.fail_session_as_job(%L, 'checkout_reference_consumed')$$, :'pending'),
  '42501', null, 'nor can the store (authenticated)');
select tests.clear_authentication();

set local role service_jobs;
select is(
  (select row(status, failure_reason)::text from checkout.fail_session_as_job(:'pending', 'checkout_reference_consumed')),
  '(FAILED,checkout_reference_consumed)', 'a PENDING checkout fails with its reason'
);
select is(
  (select status from checkout.fail_session_as_job(:'expired', 'checkout_reference_consumed')),
  'FAILED', 'an EXPIRED one too (as read, before the expiry job ran)'
);
select is(
  (select failure_reason from checkout.fail_session_as_job(:'pending', 'another_reason')),
  'checkout_reference_consumed', 'failing a FAILED checkout again returns it unchanged'
);
select throws_ok(format($$select checkout.fail_session_as_job(%L, 'checkout_reference_consumed')$$, :'paid'),
  'PT409', 'this checkout is COMPLETED and cannot fail', 'a COMPLETED checkout cannot fail');
select throws_ok(format($$select checkout.fail_session_as_job(%L, 'Not a code!')$$, :'pending'),
  'PT400', null, 'the reason is a stable code');
select throws_ok($$select checkout.fail_session_as_job('000000000000000000000000', 'checkout_reference_consumed')$$,
  'PT404', 'no such checkout', 'an unknown checkout: 404');
select is_empty(
  format($$select session_id from checkout.sessions_to_search_for_mints(100) where session_id in (%L, %L)$$, :'pending', :'expired'),
  'the reconciler''s log search drops FAILED checkouts'
);
select is_empty(
  format($$select session_id from checkout.payment_attempts_to_reconcile(100) where session_id in (%L, %L)$$, :'pending', :'expired'),
  'and so does its receipt check'
);
reset role;

select tests.authenticate_as_anon();
select is(
  (select row(status, failure_reason)::text from checkout.session_by_client_secret(:'pending', tests.client_secret_hash('secret-1'))),
  '(FAILED,checkout_reference_consumed)', 'the client-safe read shows FAILED with its reason'
);
select is(
  (select row(status, failure_reason)::text from checkout.session_by_client_secret(:'paid', tests.client_secret_hash('secret-3'))),
  '(COMPLETED,)', 'and no reason for a checkout that did not fail'
);
select throws_ok(
  format($$select checkout.record_payment_attempt(%L, tests.client_secret_hash('secret-1'), '0x00000000000000000000000000000000000000b1')$$, :'pending'),
  'PT409', 'this checkout is FAILED and takes no new payment', 'a FAILED checkout takes no new payment'
);
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-1'), %L, '0x00000000000000000000000000000000000000b1', '{1}', 1000, null, 10)$$,
         :'pending', tests.tx_hash(1)),
  'PT409', 'this checkout is FAILED and cannot complete', 'and no payment completes it'
);
select tests.clear_authentication();

select tests.tx_hash(2) as hash_2 \gset
set local role service_jobs;
select throws_ok(
  format($$select checkout.complete_session_as_job(%L, %L, '0x00000000000000000000000000000000000000b2', '{2}', 1000, null, 10)$$,
         :'expired', :'hash_2'),
  'PT409', 'this checkout is FAILED and cannot complete', 'not even the reconciler''s completion'
);
reset role;

select * from finish();
rollback;
