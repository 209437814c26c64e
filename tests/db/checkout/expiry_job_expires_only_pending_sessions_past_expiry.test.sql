-- checkout.expire_sessions (pg_cron every minute, as service_jobs) materialises EXPIRED for PENDING
-- sessions past expires_at, every owner's, and touches nothing else.
begin;
select plan(3);

grant usage on schema extensions to service_jobs;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_collection(:'bob') as bobs_collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1');
select tests.create_checkout_session(:'alice', :'collection', 'order-2', 'secret-2');
select tests.create_checkout_session(:'alice', :'collection', 'order-3', 'secret-3');
select tests.create_checkout_session(:'bob', :'bobs_collection', 'order-4', 'secret-4');
select tests.complete_checkout_order(:'alice', 3);
update checkout.sessions set expires_at = now() - interval '1 minute' where external_order_id in ('order-1', 'order-3', 'order-4');

set local role service_jobs;
select is(checkout.expire_sessions(), 2, 'the job expires the two PENDING sessions past expiry');
select is(checkout.expire_sessions(), 0, 'a second run finds nothing');
reset role;

select set_eq(
  $$select external_order_id, status from checkout.sessions$$,
  $$values ('order-1', 'EXPIRED'), ('order-2', 'PENDING'), ('order-3', 'COMPLETED'), ('order-4', 'EXPIRED')$$,
  'live and completed sessions are untouched'
);

select * from finish();
rollback;
