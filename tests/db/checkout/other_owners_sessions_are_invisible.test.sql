-- Another owner's collections, sessions, attempts, NFTs, deliveries and webhook
-- secrets are invisible; another owner's collection cannot take a session (404, like an unknown
-- one); anon reads no table at all.
begin;
select plan(12);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as session \gset
select tests.authenticate_as_anon();
select checkout.record_payment_attempt(:'session', tests.client_secret_hash('secret-1'), '0x00000000000000000000000000000000000000b1');
select checkout.complete_session(:'session', tests.client_secret_hash('secret-1'), tests.tx_hash(1),
  '0x00000000000000000000000000000000000000b1', '{1}', 1000, null, 10);
select tests.authenticate_as(:'alice');
select checkout.ensure_webhook_secret('https://store.example/webhooks', '\x01');

-- Alice sees her rows (so Bob's empty answers below are about RLS).
select is((select count(*)::int from checkout.sessions_as_read), 1, 'alice sees her session');

select tests.authenticate_as(:'bob');
select is_empty($$select id from checkout.collections$$, 'bob sees no collection of alice');
select is_empty($$select id from checkout.sessions$$, 'bob sees no session of alice');
select is_empty($$select id from checkout.sessions_as_read$$, 'nor through the view');
select is_empty($$select id from checkout.payment_attempts$$, 'nor her payment attempts');
select is_empty($$select token_id from checkout.nfts$$, 'nor her NFTs');
select is_empty($$select id from checkout.webhook_deliveries$$, 'nor her deliveries');
select is_empty($$select webhook_url from checkout.webhook_secrets$$, 'nor her webhook secrets');
select throws_ok(
  format($$select checkout.create_session(%L, 'bob-order', '\x00', '{"price": "1000"}', '\x01', '\x00', now() + interval '1 hour')$$,
         :'collection'),
  'PT404', null,
  'bob cannot create a session on alice''s collection'
);
select throws_ok(
  format($$select checkout.requeue_webhook(%L)$$, :'session'),
  'PT404', 'no such checkout',
  'bob cannot requeue alice''s webhook (404, like an unknown checkout)'
);

select tests.authenticate_as_anon();
select throws_ok($$select id from checkout.sessions$$, '42501', null, 'anon reads no session');
select throws_ok($$select id from checkout.collections$$, '42501', null, 'anon reads no collection');

select tests.clear_authentication();
select * from finish();
rollback;
