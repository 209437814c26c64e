-- Webhook signing secrets: one per (owner, webhook URL), the first one stored is
-- the one every later session of that URL gets; rotation keeps the previous secret signing until
-- the overlap ends; the dispatcher gets the ciphertexts with its claim.
begin;
select plan(6);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset

select tests.authenticate_as(:'alice');
select is(checkout.ensure_webhook_secret('https://store.example/webhooks', '\x01'), '\x01'::bytea, 'the first secret is stored');
select is(checkout.ensure_webhook_secret('https://store.example/webhooks', '\x02'), '\x01'::bytea,
  'a later session of the same URL gets the stored secret');
select is(checkout.ensure_webhook_secret('https://store.example/other', '\x03'), '\x03'::bytea, 'another URL has its own');
select throws_ok($$select checkout.rotate_webhook_secret('https://store.example/none', '\x09', '1 day')$$,
  'PT404', null, 'rotating an unknown URL''s secret is a 404');
select checkout.rotate_webhook_secret('https://store.example/webhooks', '\x04', '1 day');

select tests.clear_authentication();
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1');
select tests.complete_checkout_order(:'alice', 1);
grant usage on schema extensions to service_jobs;
set local role service_jobs;
select results_eq(
  $$select secret_ciphertext, previous_secret_ciphertext from checkout.claim_webhook_deliveries(10)$$,
  $$values ('\x04'::bytea, '\x01'::bytea)$$,
  'during the overlap the dispatcher signs with both'
);
reset role;
update checkout.webhook_secrets set previous_valid_until = now() - interval '1 second' where previous_valid_until is not null;
update checkout.webhook_deliveries set claimed_until = null;
set local role service_jobs;
select results_eq(
  $$select secret_ciphertext, previous_secret_ciphertext from checkout.claim_webhook_deliveries(10)$$,
  $$values ('\x04'::bytea, null::bytea)$$,
  'after it, with the new one only'
);
reset role;

select * from finish();
rollback;
