-- A user holds at most 10 live SIWE nonces. One more is refused with PT429 (429 rate_limited)
-- whose DETAIL names the seconds until the oldest live nonce expires (the Retry-After). Spent and
-- expired nonces free their place; other users are not affected.
begin;
select plan(12);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');

select lives_ok(
  $$select core.issue_siwe_nonce('aliceNonce' || n) from generate_series(1, 10) n$$,
  'alice is issued 10 nonces'
);

select throws_ok(
  $$select core.issue_siwe_nonce('aliceNonce11')$$,
  'PT429',
  'too many live SIWE nonces: at most 10 per user',
  'an eleventh live nonce is refused'
);

-- All ten were issued in this transaction, so the oldest expires in exactly 10 minutes.
select is(
  tests.error_of($$select core.issue_siwe_nonce('aliceNonce11')$$),
  '{"code": "PT429", "hint": "rate_limited", "detail": {"retryAfterSeconds": 600, "limit": 10}}'::jsonb,
  'the refusal is rate_limited and names the wait and the limit'
);

select tests.clear_authentication();
update core.siwe_nonces set expires_at = now() + interval '89.2 seconds' where nonce = 'aliceNonce3';
select tests.authenticate_as(:'alice');

select is(
  tests.error_of($$select core.issue_siwe_nonce('aliceNonce11')$$) -> 'detail' -> 'retryAfterSeconds',
  '90'::jsonb,
  'the wait is until the oldest live nonce expires, rounded up to whole seconds'
);

-- Other users are not affected
select tests.authenticate_as(:'bob');
select lives_ok($$select core.issue_siwe_nonce('bobNonce0001')$$, 'bob is still issued a nonce');

-- Spending a nonce frees its place at once
select tests.authenticate_as(:'alice');
select is(
  (select count(*)::int from core.link_crypto_address('aliceNonce1', '0xA11CE00000000000000000000000000000000001', '1', 'injected')),
  1,
  'alice spends a nonce'
);
select lives_ok($$select core.issue_siwe_nonce('aliceNonce11')$$, 'a spent nonce frees its place');
select throws_ok($$select core.issue_siwe_nonce('aliceNonce12')$$, 'PT429', null, 'and only one place');

-- Expired nonces do not count, and issuing deletes them
select tests.clear_authentication();
update core.siwe_nonces set expires_at = now() - interval '1 second' where nonce = 'aliceNonce4';
update core.siwe_nonces set expires_at = now() where nonce = 'aliceNonce5'; -- live means after now
select tests.authenticate_as(:'alice');

select lives_ok(
  $$select core.issue_siwe_nonce('aliceNonce' || n) from generate_series(12, 13) n$$,
  'two expired nonces free two places'
);
select throws_ok($$select core.issue_siwe_nonce('aliceNonce14')$$, 'PT429', null, 'and only two');

select tests.clear_authentication();
select is(
  (select count(*)::int from core.siwe_nonces where user_id = :'alice'),
  10,
  'alice has 10 nonce rows: the expired ones were deleted when she asked again'
);
select is(
  (select count(*)::int from core.siwe_nonces where user_id = :'alice' and nonce in ('aliceNonce4', 'aliceNonce5')),
  0,
  'the deleted ones are the expired ones'
);

select * from finish();
rollback;
