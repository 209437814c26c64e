-- SPEC 3: "a new payment cannot start" once a session expired (as read, before the job ran), nor
-- on a completed one; a PENDING session records the attempt with its time.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as session \gset

select tests.authenticate_as_anon();
select is(
  (select chain_id from checkout.record_payment_attempt(:'session', tests.client_secret_hash('secret-1'),
     '0x00000000000000000000000000000000000000b1')),
  31337::bigint,
  'a PENDING session records a payment attempt on the collection''s chain'
);

select tests.clear_authentication();
update checkout.sessions set expires_at = now() - interval '1 second' where id = :'session';

select tests.authenticate_as_anon();
select throws_ok(
  format($$select checkout.record_payment_attempt(%L, tests.client_secret_hash('secret-1'), '0x00000000000000000000000000000000000000b1')$$,
         :'session'),
  'PT409', 'this checkout is EXPIRED and takes no new payment',
  'no payment starts after expiry, before the job ran'
);

select tests.clear_authentication();
set local role service_jobs;
select checkout.expire_sessions();
reset role;
select tests.authenticate_as_anon();
select throws_ok(
  format($$select checkout.record_payment_attempt(%L, tests.client_secret_hash('secret-1'), '0x00000000000000000000000000000000000000b1')$$,
         :'session'),
  'PT409', 'this checkout is EXPIRED and takes no new payment',
  'nor after the job materialised EXPIRED'
);

select throws_ok(
  format($$select checkout.record_payment_attempt(%L, tests.client_secret_hash('wrong'), '0x00000000000000000000000000000000000000b1')$$,
         :'session'),
  'PT404', 'no such checkout',
  'a wrong client secret answers like an unknown checkout'
);

select tests.clear_authentication();
select is((select count(*)::int from checkout.payment_attempts), 1, 'only the first attempt was recorded');

select * from finish();
rollback;
