-- POST .../webhook/retry (requeue_webhook, the owner): another delivery of the same event id and
-- payload for a COMPLETED checkout; 409 checkout_not_completed otherwise; while a delivery waits,
-- the retry joins it (due now) instead of queueing a duplicate.
begin;
select plan(6);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as session \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-2', 'secret-2') as pending \gset
select tests.complete_checkout_order(:'alice', 1);
select id as first_delivery from checkout.webhook_deliveries \gset

select tests.authenticate_as(:'alice');
select throws_ok(format($$select checkout.requeue_webhook(%L)$$, :'pending'), 'PT409', null,
  'a PENDING checkout has no webhook to retry');

select is((select id from checkout.requeue_webhook(:'session'))::text, :'first_delivery'::text,
  'while the first delivery waits, a retry joins it');

select tests.clear_authentication();
update checkout.webhook_deliveries set status = 'delivered', delivered_at = now();
select tests.authenticate_as(:'alice');
select checkout.requeue_webhook(:'session');

select tests.clear_authentication();
select results_eq(
  $$select event_id, status, count(*)::int, count(distinct payload)::int from checkout.webhook_deliveries group by 1, 2 order by 2$$,
  format($$values ('checkout-completed-' || %L, 'delivered', 1, 1), ('checkout-completed-' || %L, 'pending', 1, 1)$$, :'session', :'session'),
  'after delivery, a retry queues another delivery of the same event'
);
select is(
  (select count(distinct payload)::int from checkout.webhook_deliveries), 1,
  'with the same payload'
);

select throws_ok(
  $$insert into checkout.webhook_deliveries (event_id, session_id, owner_id, webhook_url, payload) values ('x', 'x', 'x', 'x', '{}')$$,
  '23514', null, '(as the owner, a bad row is refused by its checks)'
);

select tests.authenticate_as(:'alice');
select throws_ok(
  format($$insert into checkout.webhook_deliveries (event_id, session_id, owner_id, webhook_url, payload) values ('x', %L, %L, 'https://evil.example', '{}')$$,
         :'session', :'alice'),
  '42501', null, 'a store cannot write its own deliveries'
);

select tests.clear_authentication();
select * from finish();
rollback;
