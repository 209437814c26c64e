-- Completing a checkout, in one transaction: COMPLETED with the hash and time, the NFTs recorded,
-- the payer's attempt tied to the hash, and the checkout.completed delivery queued with the SPEC 6.1
-- payload. A payment that does not match the session's price or token is refused.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice', 'dynamic', p_payment_token => '0x00000000000000000000000000000000000000e2') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1',
  p_request => tests.checkout_request('123456789012345678901234567890')) as session \gset

select tests.authenticate_as_anon();
select checkout.record_payment_attempt(:'session', tests.client_secret_hash('secret-1'), '0x00000000000000000000000000000000000000b1');

select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-1'), %L, '0x00000000000000000000000000000000000000b1', '{7}', 1, '0x00000000000000000000000000000000000000e2', 10)$$,
         :'session', tests.tx_hash(1)),
  'PT400', null, 'a wrong amount is refused'
);
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-1'), %L, '0x00000000000000000000000000000000000000b1', '{7}', 123456789012345678901234567890, null, 10)$$,
         :'session', tests.tx_hash(1)),
  'PT400', null, 'a payment in another token (here native) is refused'
);

select is(
  (select status from checkout.complete_session(:'session', tests.client_secret_hash('secret-1'), upper(tests.tx_hash(1)),
     '0x00000000000000000000000000000000000000b1', '{7, 8}', 123456789012345678901234567890,
     '0x00000000000000000000000000000000000000E2', 10)),
  'COMPLETED', 'the matching payment completes the checkout'
);

select tests.clear_authentication();
select results_eq(
  $$select token_id, owner_address from checkout.nfts order by token_id$$,
  $$values (7::numeric, '0x00000000000000000000000000000000000000b1'), (8, '0x00000000000000000000000000000000000000b1')$$,
  'the NFTs are recorded'
);
select is((select tx_hash from checkout.payment_attempts), tests.tx_hash(1), 'the attempt carries the (lower-case) hash');

select is(
  (select payload - 'completedAt' from checkout.webhook_deliveries),
  jsonb_build_object(
    'type', 'checkout.completed', 'checkoutId', :'session', 'externalOrderId', 'order-1',
    'transactionHash', tests.tx_hash(1), 'blockNumber', 10, 'amount', '123456789012345678901234567890',
    'paymentToken', '0x00000000000000000000000000000000000000e2', 'chainId', 31337,
    'collectionAddress', (select address from checkout.collections),
    'tokenIds', jsonb_build_array('7', '8'), 'ownerWallet', '0x00000000000000000000000000000000000000b1'),
  'the delivery carries the SPEC 6.1 payload (amount and token ids as decimal strings)'
);
select results_eq(
  $$select d.event_id, d.status, d.webhook_url, (d.payload ->> 'completedAt') = to_char(s.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    from checkout.webhook_deliveries d join checkout.sessions s on s.id = d.session_id$$,
  format($$values ('checkout-completed-' || %L, 'pending', 'https://store.example/webhooks', true)$$, :'session'),
  'queued for the session''s webhook URL under event id checkout-completed-<id>, with completedAt'
);

select * from finish();
rollback;
