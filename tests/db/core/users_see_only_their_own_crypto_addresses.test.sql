-- A session lists and unlinks only its own addresses, and cannot link one by writing the table
-- (linking spends a SIWE nonce through core.link_crypto_address).
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'alice', '0xA11CE00000000000000000000000000000000001') as alice_first \gset
select tests.link_address(:'alice', '0xa11ce00000000000000000000000000000000002') as alice_second \gset
select tests.link_address(:'bob', '0xB0B0000000000000000000000000000000000001') as bob_address \gset

select tests.authenticate_as(:'alice');

select results_eq(
  'select id::text from core.crypto_addresses order by id',
  format('select unnest(array[%L, %L]) order by 1', :'alice_first', :'alice_second'),
  'alice sees exactly her own addresses'
);

select is_empty(
  format('select * from core.crypto_addresses where user_id = %L', :'bob'),
  'alice cannot see bob''s address'
);

-- Deleting a row one cannot see deletes nothing (no error: RLS filters it out).
delete from core.crypto_addresses where id = :'bob_address';
delete from core.crypto_addresses where id = :'alice_second';

select throws_ok(
  format(
    $$insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
      values (%L, '0xA11CE00000000000000000000000000000000003', '1', 'injected', 'siwe')$$,
    :'alice'
  ),
  '42501',
  'permission denied for table crypto_addresses',
  'alice cannot insert an address directly'
);

select throws_ok(
  format('update core.crypto_addresses set user_id = %L where id = %L', :'alice', :'bob_address'),
  '42501',
  'permission denied for table crypto_addresses',
  'alice cannot update addresses'
);

select tests.clear_authentication();

select ok(
  exists (select from core.crypto_addresses where id = :'bob_address'),
  'alice''s delete of bob''s address leaves it linked'
);

select ok(
  not exists (select from core.crypto_addresses where id = :'alice_second'),
  'alice can unlink her own address'
);

select table_privs_are(
  'core', 'crypto_addresses', 'authenticated', array['SELECT', 'DELETE'],
  'authenticated may only select and delete addresses'
);

select * from finish();
rollback;
