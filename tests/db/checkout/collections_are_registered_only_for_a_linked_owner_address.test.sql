-- Registering a collection (after the gateway read owner() on-chain): the verified owner address
-- must be one of the caller's linked addresses on the collection's chain; a contract is registered
-- once per chain; static pricing needs a mint price and dynamic has none; owners see and change
-- only their own collections.
begin;
select plan(9);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'alice', '0xA11cE00000000000000000000000000000000001', '31337');
select tests.link_address(:'bob', '0xB0B0000000000000000000000000000000000001', '31337');

select tests.authenticate_as(:'alice');

select lives_ok(
  $$insert into checkout.collections (chain_id, address, pricing, mint_price, token_decimals, verified_owner_address)
    values (31337, '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'static', 1000, 18, '0xa11ce00000000000000000000000000000000001')$$,
  'alice registers a collection owned by her linked address (case-insensitive)'
);
select throws_ok(
  $$insert into checkout.collections (chain_id, address, pricing, token_decimals, verified_owner_address)
    values (31337, '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', 'dynamic', 18, '0xB0B0000000000000000000000000000000000001')$$,
  '42501', null,
  'not when owner() is bob''s address'
);
select throws_ok(
  $$insert into checkout.collections (chain_id, address, pricing, token_decimals, verified_owner_address)
    values (1, '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', 'dynamic', 18, '0xA11cE00000000000000000000000000000000001')$$,
  '42501', null,
  'nor on a chain where her address is not linked'
);
select throws_ok(
  $$insert into checkout.collections (owner_id, chain_id, address, pricing, token_decimals, verified_owner_address)
    values ('$$ || :'bob' || $$', 31337, '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', 'dynamic', 18, '0xA11cE00000000000000000000000000000000001')$$,
  '42501', null,
  'nor in bob''s name'
);
select throws_ok(
  $$insert into checkout.collections (chain_id, address, pricing, token_decimals, verified_owner_address)
    values (31337, '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', 'static', 18, '0xA11cE00000000000000000000000000000000001')$$,
  '23514', null,
  'a static collection needs a mint price'
);
select throws_ok(
  $$insert into checkout.collections (chain_id, address, pricing, mint_price, token_decimals, verified_owner_address)
    values (31337, '0x5fbdb2315678afecb367f032d93f642f64180aa3', 'static', 5, 18, '0xA11cE00000000000000000000000000000000001')$$,
  '23505', null,
  'a contract is registered once per chain (address case aside)'
);

select tests.authenticate_as(:'bob');
select is_empty($$select id from checkout.collections$$, 'bob does not see alice''s collection');
select is_empty($$update checkout.collections set mint_price = 1 returning id$$, 'nor change it');

select tests.authenticate_as(:'alice');
select throws_ok(
  $$update checkout.collections set address = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512'$$,
  '42501', null,
  'the address ownership was proved for cannot be changed'
);

select tests.clear_authentication();
select * from finish();
rollback;
