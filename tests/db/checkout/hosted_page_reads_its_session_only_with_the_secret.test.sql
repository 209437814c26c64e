-- SPEC 4.4 GET with X-Checkout-Client-Secret (no API key): the hosted page (anon) reads the
-- client-safe session by id and secret hash; a wrong secret answers exactly like an unknown id (no
-- row); nothing private (owner, external order id, webhook URL, secrets) is in the answer.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as session \gset

select tests.authenticate_as_anon();

select results_eq(
  format($$select id::text, status, items, price, payment_methods, allowed_origin, chain_id, pricing
           from checkout.session_by_client_secret(%L, tests.client_secret_hash('secret-1'))$$, :'session'),
  format($$values (%L, 'PENDING', %L::jsonb, 1000::numeric, '["crypto_wallet"]'::jsonb, 'https://store.example', 31337::bigint, 'static')$$,
         :'session', tests.checkout_request() -> 'items'),
  'the right secret reads the client-safe session'
);
select is_empty(
  format($$select * from checkout.session_by_client_secret(%L, tests.client_secret_hash('secret-2'))$$, :'session'),
  'a wrong secret reads nothing'
);
select is_empty(
  $$select * from checkout.session_by_client_secret('000000000000000000000000', tests.client_secret_hash('secret-1'))$$,
  'the right secret with another id reads nothing, like an unknown id'
);
select is_empty(
  $$
    select a.attname from pg_proc p, unnest(p.proargnames) as a(attname)
    where p.oid = 'checkout.session_by_client_secret(core.object_id, bytea)'::regprocedure
      and a.attname in ('owner_id', 'external_order_id', 'webhook_url', 'request', 'client_secret_hash', 'client_secret_ciphertext')
  $$,
  'the answer has no private column'
);
select throws_ok($$select id from checkout.sessions_as_read$$, '42501', null, 'anon reads no session list');

select tests.clear_authentication();
select * from finish();
rollback;
