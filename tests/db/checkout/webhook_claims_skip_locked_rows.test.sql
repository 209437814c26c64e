-- The dispatcher's claim (service_jobs): due pending deliveries only, each claimed once per lease
-- (a second dispatcher gets the others, not the same ones), and a crashed dispatcher's claim comes
-- back when its lease ends. pgTAP runs in one session, so the row locks themselves are shown by the
-- plan (FOR UPDATE SKIP LOCKED in the function) and by the vitest suite with two connections.
begin;
select plan(7);

grant usage on schema extensions to service_jobs;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-' || n, 'secret-' || n)
  from generate_series(1, 3) n;
select tests.complete_checkout_order(:'alice', n) from generate_series(1, 3) n;
select tests.authenticate_as(:'alice');
select checkout.ensure_webhook_secret('https://store.example/webhooks', '\x0102');
select tests.clear_authentication();
-- order-3's delivery is not due yet.
update checkout.webhook_deliveries d set next_attempt_at = now() + interval '1 hour'
  from checkout.sessions s where s.id = d.session_id and s.external_order_id = 'order-3';

set local role service_jobs;
select is(
  (select count(*)::int from checkout.claim_webhook_deliveries(1)),
  1,
  'a claim takes at most p_limit deliveries'
);
select is(
  (select count(*)::int from checkout.claim_webhook_deliveries(10)),
  1,
  'the next claim takes the other due one, not the claimed one nor the one not due'
);
select is_empty($$select * from checkout.claim_webhook_deliveries(10)$$, 'nothing is left to claim');

-- Lease over (a crashed dispatcher): the delivery comes back, with what the dispatcher needs.
reset role;
select id as order_1 from checkout.sessions where external_order_id = 'order-1' \gset
update checkout.webhook_deliveries set claimed_until = now() - interval '1 second' where session_id = :'order_1';
set local role service_jobs;
select results_eq(
  $$select event_id, webhook_url, secret_ciphertext, payload ->> 'externalOrderId' from checkout.claim_webhook_deliveries(10)$$,
  format($$values ('checkout-completed-' || %L, 'https://store.example/webhooks', '\x0102'::bytea, 'order-1')$$,
         :'order_1'),
  'an expired claim comes back with the event id, URL, secret ciphertext and payload'
);

reset role;
select ok(
  pg_get_functiondef('checkout.claim_webhook_deliveries(integer, integer)'::regprocedure) ~* 'for update skip locked',
  'the claim locks with FOR UPDATE SKIP LOCKED'
);

-- A delivered one is never claimed again.
update checkout.webhook_deliveries set claimed_until = null, status = 'delivered', delivered_at = now();
set local role service_jobs;
select is_empty($$select * from checkout.claim_webhook_deliveries(10)$$, 'delivered deliveries are not claimed');
select is_empty($$update checkout.webhook_deliveries set next_attempt_at = now() returning id$$,
  'nor changed by service_jobs, even outside the functions');

reset role;
select * from finish();
rollback;
