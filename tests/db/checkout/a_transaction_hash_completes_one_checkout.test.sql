-- SPEC 3 rule 2, 7 and 8: a transaction hash completes at most one checkout (a unique constraint),
-- whichever owner's checkouts they are. Confirming the same checkout again with its own hash is
-- idempotent; with another hash it is refused.
begin;
select plan(8);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_collection(:'bob') as bobs_collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as first \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-2', 'secret-2') as second \gset
select tests.create_checkout_session(:'bob', :'bobs_collection', 'order-1', 'secret-3') as bobs \gset
select tests.tx_hash(1) as tx \gset

-- The hosted page: no user, authenticated by the client secret.
select tests.authenticate_as_anon();

select is(
  (select status from checkout.complete_session(:'first', tests.client_secret_hash('secret-1'), :'tx',
     '0x00000000000000000000000000000000000000b1', '{1}', 1000, null, 10)),
  'COMPLETED',
  'the first checkout completes with the transaction'
);

select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-2'), %L,
           '0x00000000000000000000000000000000000000b1', '{2}', 1000, null, 10)$$, :'second', :'tx'),
  'PT409', 'transaction ' || :'tx' || ' already completed another checkout',
  'the same hash cannot complete a second checkout of the same owner'
);
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-3'), %L,
           '0x00000000000000000000000000000000000000b1', '{3}', 1000, null, 10)$$, :'bobs', upper(:'tx')),
  'PT409', null,
  'nor one of another owner, whatever the letter case of the hash'
);

select is(
  (select tx_hash from checkout.complete_session(:'first', tests.client_secret_hash('secret-1'), :'tx',
     '0x00000000000000000000000000000000000000b1', '{1}', 1000, null, 10)),
  :'tx',
  'confirming the completed checkout again with its hash returns it unchanged'
);
select throws_ok(
  format($$select checkout.complete_session(%L, tests.client_secret_hash('secret-1'), %L,
           '0x00000000000000000000000000000000000000b1', '{9}', 1000, null, 10)$$, :'first', tests.tx_hash(2)),
  'PT409', 'this checkout was completed by another transaction',
  'a completed checkout refuses another hash'
);

select tests.clear_authentication();
select set_eq(
  $$select id::text, status from checkout.sessions$$,
  format($$values (%L, 'COMPLETED'), (%L, 'PENDING'), (%L, 'PENDING')$$, :'first', :'second', :'bobs'),
  'only the first checkout is completed'
);
select is((select count(*)::int from checkout.webhook_deliveries), 1, 'one webhook is queued');

-- The constraint itself, behind the functions' back.
select throws_ok(
  format($$update checkout.sessions set status = 'COMPLETED', tx_hash = %L, completed_at = now() where id = %L$$,
         :'tx', :'second'),
  '23505', null,
  'the unique constraint refuses the hash on a second row'
);

select * from finish();
rollback;
