-- SPEC 4.4 rule 2 and 7: reusing an externalOrderId with different checkout data answers 409
-- idempotency_conflict, naming the differing top-level fields; the stored session is unchanged.
-- Orders are per owner: another owner's same externalOrderId is a different checkout.
begin;
select plan(6);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_collection(:'alice', 'dynamic') as collection \gset
select tests.create_collection(:'alice', 'dynamic') as other_collection \gset
select tests.create_collection(:'bob', 'dynamic') as bobs_collection \gset

select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-one') as session \gset

select tests.authenticate_as(:'alice');

select throws_ok(
  format($$select * from checkout.create_session(%L, 'order-1', tests.checkout_fingerprint(%L::jsonb), %L::jsonb,
           tests.client_secret_hash('s2'), '\x00', now() + interval '1 hour')$$,
         :'collection', tests.checkout_request('2000'), tests.checkout_request('2000')),
  'PT409', null,
  'a different price for the same order is a conflict'
);

-- The hint and the differing fields, as the gateway maps them (tests.error_of).
select is(
  tests.error_of(format(
    $$select * from checkout.create_session(%L, 'order-1', tests.checkout_fingerprint(%L::jsonb), %L::jsonb,
        tests.client_secret_hash('s3'), '\x00', now() + interval '1 hour')$$,
    :'collection',
    tests.checkout_request('2000', 'https://store.example/other-hook'),
    tests.checkout_request('2000', 'https://store.example/other-hook'))),
  '{"code": "PT409", "hint": "idempotency_conflict", "detail": {"differingFields": ["items", "price", "webhookUrl"]}}'::jsonb,
  'the conflict names the differing fields (items carry the price too), sorted'
);

select is(
  tests.error_of(format(
    $$select * from checkout.create_session(%L, 'order-1', tests.checkout_fingerprint(tests.checkout_request()),
        tests.checkout_request(), tests.client_secret_hash('s4'), '\x00', now() + interval '1 hour')$$,
    :'other_collection')),
  '{"code": "PT409", "hint": "idempotency_conflict", "detail": {"differingFields": ["collectionId"]}}'::jsonb,
  'another collection for the same order is a conflict naming collectionId'
);

select results_eq(
  $$select request, status from checkout.sessions_as_read where external_order_id = 'order-1'$$,
  $$values (tests.checkout_request(), 'PENDING')$$,
  'the stored session is unchanged'
);

-- Bob's order-1 is his own checkout.
select tests.clear_authentication();
select isnt(tests.create_checkout_session(:'bob', :'bobs_collection', 'order-1', 'bob-secret'), :'session',
  'another owner''s same externalOrderId creates another checkout');
select is((select count(*)::int from checkout.sessions where external_order_id = 'order-1'), 2,
  'one session per owner for order-1');

select * from finish();
rollback;
