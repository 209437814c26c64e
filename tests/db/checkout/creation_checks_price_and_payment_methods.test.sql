-- SPEC 4.4 rule 3, in the creating function: a static collection accepts only
-- its mint price, a dynamic one any price; provider_card only where enabled for the collection's
-- chain; the price is a decimal string in the smallest unit; the expiry lies ahead.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice', 'static', 1000) as static_collection \gset
select tests.create_collection(:'alice', 'dynamic') as dynamic_collection \gset
select tests.create_collection(:'alice', 'dynamic', p_provider_card_chain_ids => '{31337}') as card_collection \gset

create function pg_temp.create(p_collection text, p_order text, p_request jsonb, p_expires_at timestamptz default now() + interval '1 hour')
  returns text language sql as $$
    select id from checkout.create_session(p_collection, p_order, tests.checkout_fingerprint(p_request), p_request,
      tests.client_secret_hash(p_order), '\x00', p_expires_at)
  $$;

select tests.authenticate_as(:'alice');

select throws_ok(
  format($$select pg_temp.create(%L, 'o1', tests.checkout_request('999'))$$, :'static_collection'),
  'PT400', 'this collection sells at its mint price only',
  'a static collection refuses another price'
);
select isnt(pg_temp.create(:'static_collection', 'o2', tests.checkout_request('1000')), null,
  'and accepts its mint price');
select isnt(pg_temp.create(:'dynamic_collection', 'o3', tests.checkout_request('123456789')), null,
  'a dynamic collection accepts the product''s price');
select throws_ok(
  format($$select pg_temp.create(%L, 'o4', jsonb_set(tests.checkout_request(), '{price}', '"1.5"'))$$, :'dynamic_collection'),
  'PT400', null,
  'a price that is not an integer of the smallest unit is refused'
);
select throws_ok(
  format($$select pg_temp.create(%L, 'o5', jsonb_set(tests.checkout_request(), '{paymentMethods}', '["crypto_wallet", "provider_card"]'))$$,
         :'dynamic_collection'),
  'PT400', 'provider_card is not enabled for this collection on chain 31337',
  'provider_card is refused where it is not enabled'
);
select isnt(
  pg_temp.create(:'card_collection', 'o6', jsonb_set(tests.checkout_request(), '{paymentMethods}', '["crypto_wallet", "provider_card"]')),
  null,
  'and accepted where it is'
);
select throws_ok(
  format($$select pg_temp.create(%L, 'o7', tests.checkout_request(), now())$$, :'dynamic_collection'),
  'PT400', 'expires_at must be in the future',
  'an expiry that is not ahead is refused'
);

select tests.clear_authentication();
select * from finish();
rollback;
