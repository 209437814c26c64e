-- A SIWE nonce links one address, once, for the user it was issued to, before it expires.
begin;
select plan(10);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');

-- Spent once
select lives_ok($$select core.issue_siwe_nonce('aliceNonce0001')$$, 'alice is issued a nonce');

select results_eq(
  $$select address, chain_id, verified_by, user_id = core.current_user_id()
    from core.link_crypto_address('aliceNonce0001', '0xA11CE00000000000000000000000000000000001', '1', 'injected')$$,
  $$values ('0xA11CE00000000000000000000000000000000001', '1', 'siwe', true)$$,
  'the nonce links an address to alice'
);

select throws_ok(
  $$select * from core.link_crypto_address('aliceNonce0001', '0xA11CE00000000000000000000000000000000002', '1', 'injected')$$,
  'PT400',
  'the SIWE nonce is unknown, expired or already used',
  'the same nonce cannot link a second address'
);

-- Only by its user
select lives_ok($$select core.issue_siwe_nonce('aliceNonce0002')$$, 'alice is issued a second nonce');

select tests.authenticate_as(:'bob');
select throws_ok(
  $$select * from core.link_crypto_address('aliceNonce0002', '0xB0B0000000000000000000000000000000000001', '1', 'injected')$$,
  'PT400',
  'the SIWE nonce is unknown, expired or already used',
  'bob cannot spend a nonce issued to alice'
);

select tests.authenticate_as(:'alice');
select is(
  (select count(*)::int from core.link_crypto_address('aliceNonce0002', '0xA11CE00000000000000000000000000000000002', '1', 'injected')),
  1,
  'bob''s attempt did not use up alice''s nonce'
);

-- Only before it expires
select lives_ok($$select core.issue_siwe_nonce('aliceNonce0003')$$, 'alice is issued a third nonce');

select tests.clear_authentication();
update core.siwe_nonces set expires_at = now() - interval '1 second' where nonce = 'aliceNonce0003';
select tests.authenticate_as(:'alice');

select throws_ok(
  $$select * from core.link_crypto_address('aliceNonce0003', '0xA11CE00000000000000000000000000000000003', '1', 'injected')$$,
  'PT400',
  'the SIWE nonce is unknown, expired or already used',
  'an expired nonce cannot be spent'
);

-- Never issued
select throws_ok(
  $$select * from core.link_crypto_address('neverIssued0001', '0xA11CE00000000000000000000000000000000004', '1', 'injected')$$,
  'PT400',
  'the SIWE nonce is unknown, expired or already used',
  'a nonce that was never issued cannot be spent'
);

select tests.clear_authentication();

select results_eq(
  format('select address from core.crypto_addresses where user_id = %L order by address', :'alice'),
  $$values ('0xA11CE00000000000000000000000000000000001'), ('0xA11CE00000000000000000000000000000000002')$$,
  'only the two valid spends linked addresses'
);

select * from finish();
rollback;
