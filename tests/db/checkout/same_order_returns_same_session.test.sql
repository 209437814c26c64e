-- SPEC 4.4 rule 1: the same request for the same externalOrderId returns the same checkout: same
-- id and the first call's secret (its ciphertext), created = false, and still one row.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset

select tests.authenticate_as(:'alice');

select * from checkout.create_session(
  :'collection', 'order-1', tests.checkout_fingerprint(tests.checkout_request()), tests.checkout_request(),
  tests.client_secret_hash('secret-one'), convert_to('secret-one', 'UTF8'), now() + interval '1 hour'
) \gset first_

select is(:'first_created'::boolean, true, 'the first call creates the session');
select is(:'first_status'::text, 'PENDING', 'a new session is PENDING');

-- The replay comes with a new secret (the gateway makes one per request); the first one wins.
select * from checkout.create_session(
  :'collection', 'order-1', tests.checkout_fingerprint(tests.checkout_request()), tests.checkout_request(),
  tests.client_secret_hash('secret-two'), convert_to('secret-two', 'UTF8'), now() + interval '2 hours'
) \gset second_

select is(:'second_created'::boolean, false, 'the replay creates nothing');
select is(:'second_id'::text, :'first_id'::text, 'the replay answers the same checkout id');
select is(convert_from(:'second_client_secret_ciphertext'::bytea, 'UTF8'), 'secret-one',
  'the replay answers the first call''s client secret');
select is(:'second_expires_at'::timestamptz, :'first_expires_at'::timestamptz, 'and its expiry');

select is((select count(*)::int from checkout.sessions where external_order_id = 'order-1'), 1,
  'one session exists for the order');

select tests.clear_authentication();
select * from finish();
rollback;
