-- SPEC 3: a session whose expires_at passed reads as EXPIRED before the expiry
-- job runs, through every read: the owner's view, the hosted page's read, a replayed creation.
begin;
select plan(6);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as session \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-2', 'secret-2') as live \gset

-- Time passes for order-1; the job has not run.
update checkout.sessions set expires_at = now() - interval '1 second' where id = :'session';
select is((select status from checkout.sessions where id = :'session'), 'PENDING', 'stored: still PENDING');
select is(
  (select checkout.session_status(s) from checkout.sessions s where id = :'session'),
  'EXPIRED',
  'checkout.session_status of the row is EXPIRED'
);

select tests.authenticate_as(:'alice');
select results_eq(
  $$select external_order_id, status from checkout.sessions_as_read order by external_order_id$$,
  $$values ('order-1', 'EXPIRED'), ('order-2', 'PENDING')$$,
  'the owner reads EXPIRED (and the live one PENDING)'
);
select is(
  (select status from checkout.create_session(:'collection', 'order-1', tests.checkout_fingerprint(tests.checkout_request()),
     tests.checkout_request(), tests.client_secret_hash('x'), '\x00', now() + interval '1 hour')),
  'EXPIRED',
  'a replayed creation answers EXPIRED'
);

select tests.authenticate_as_anon();
select is(
  (select status from checkout.session_by_client_secret(:'session', tests.client_secret_hash('secret-1'))),
  'EXPIRED',
  'the hosted page reads EXPIRED'
);

-- Expiry is the instant itself: expires_at = now() is expired.
select tests.clear_authentication();
update checkout.sessions set expires_at = now() where id = :'live';
select is(
  (select status from checkout.sessions_as_read where id = :'live'),
  'EXPIRED',
  'a session is expired at its expires_at'
);

select * from finish();
rollback;
