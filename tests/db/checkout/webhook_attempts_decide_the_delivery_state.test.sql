-- record_webhook_attempt (service_jobs): 2xx delivers, 410 stops, anything else is retried at the
-- time the dispatcher chose, or fails when it gives up (no next time). Every attempt is kept.
begin;
select plan(8);

grant usage on schema extensions to service_jobs;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-' || n, 'secret-' || n)
  from generate_series(1, 3) n;
select tests.complete_checkout_order(:'alice', n) from generate_series(1, 3) n;
select tests.clear_authentication();
select d.id as d1 from checkout.webhook_deliveries d join checkout.sessions s on s.id = d.session_id where s.external_order_id = 'order-1' \gset
select d.id as d2 from checkout.webhook_deliveries d join checkout.sessions s on s.id = d.session_id where s.external_order_id = 'order-2' \gset
select d.id as d3 from checkout.webhook_deliveries d join checkout.sessions s on s.id = d.session_id where s.external_order_id = 'order-3' \gset

set local role service_jobs;
select is(checkout.record_webhook_attempt(:'d1', 503, 'Service Unavailable', now() + interval '30 seconds'), 'pending',
  'a 503 is retried');
select is(checkout.record_webhook_attempt(:'d1', null, 'connect ECONNREFUSED', now() + interval '2 minutes'), 'pending',
  'a network error is retried');
select is(checkout.record_webhook_attempt(:'d1', 204, null, null), 'delivered', 'a 2xx delivers');
select throws_ok(format($$select checkout.record_webhook_attempt(%L, 200, null, null)$$, :'d1'),
  'PT409', null, 'a delivered delivery takes no more attempts');
select is(checkout.record_webhook_attempt(:'d2', 410, 'Gone', now() + interval '1 minute'), 'stopped', 'a 410 stops');
select is(checkout.record_webhook_attempt(:'d3', 500, 'boom', null), 'failed', 'no next time: failed');

reset role;
select results_eq(
  format($$select status_code, error from checkout.webhook_attempts where delivery_id = %L order by id$$, :'d1'),
  $$values (503, 'Service Unavailable'), (null::int, 'connect ECONNREFUSED'), (204, null)$$,
  'every attempt is recorded in order'
);
select results_eq(
  format($$select attempts, last_status_code, delivered_at is not null, next_attempt_at > now() from checkout.webhook_deliveries where id = %L$$, :'d1'),
  $$values (3, 204, true, true)$$,
  'the delivery counts its attempts and keeps the last outcome'
);

select * from finish();
rollback;
