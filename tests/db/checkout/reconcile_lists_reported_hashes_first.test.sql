-- The reconciler's work list puts attempts whose page reported a transaction hash before attempts
-- without one, whatever their age: abandoned prepares (no hash, listed for 3 days) must not crowd
-- the receipt checks of customers who paid and closed the page out of the limit.
begin;
select plan(2);

grant usage on schema extensions to service_jobs;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as abandoned \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-2', 'secret-2') as paid \gset

select tests.authenticate_as_anon();
select id as abandoned_attempt from checkout.record_payment_attempt(:'abandoned', tests.client_secret_hash('secret-1'),
  '0x00000000000000000000000000000000000000b1') \gset
select id as paid_attempt from checkout.record_payment_attempt(:'paid', tests.client_secret_hash('secret-2'),
  '0x00000000000000000000000000000000000000b2') \gset
select checkout.record_payment_transaction(:'paid', tests.client_secret_hash('secret-2'), :'paid_attempt', tests.tx_hash(7));
select tests.clear_authentication();

-- The abandoned prepare is the older one: by age alone it would come first.
update checkout.payment_attempts set prepared_at = now() - interval '2 hours' where id = :'abandoned_attempt';
update checkout.payment_attempts set prepared_at = now() - interval '1 hour' where id = :'paid_attempt';

set local role service_jobs;
select results_eq(
  $$select session_id::text from checkout.payment_attempts_to_reconcile(1)$$,
  array[:'paid'::text],
  'with room for one, the attempt with a reported hash is listed, though younger'
);
select results_eq(
  $$select session_id::text from checkout.payment_attempts_to_reconcile(10)$$,
  array[:'paid'::text, :'abandoned'::text],
  'then the attempts without one, oldest first'
);

select * from finish();
rollback;
