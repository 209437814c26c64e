-- A request without credentials can reach nothing in core: no table or column grants, and of the
-- functions only core.current_user_id() (which other schemas' policies call) and the lookup it
-- falls back to, naming nobody.
begin;
select plan(9);

select tests.create_user('alice@example.com') as alice \gset
select tests.link_address(:'alice', '0xA11CE00000000000000000000000000000000001') as alice_address \gset
select tests.create_api_key(:'alice', 'sk_alice001_aliceSecretAliceSecretAliceSecret') as alice_key \gset

select is_empty(
  $$
    select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'core' and has_function_privilege('anon', p.oid, 'execute')
      and p.oid not in ('core.current_user_id()'::regprocedure, 'core.user_id_of_auth_user()'::regprocedure)
  $$,
  'anon can execute no core function but current_user_id() and its fallback'
);

select is_empty(
  $$
    select format('%I.%I', n.nspname, c.relname) as reachable_by_anon
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'core'
      and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
      and (
        (c.relkind = 'S' and has_sequence_privilege('anon', c.oid, 'usage, select, update'))
        or (c.relkind <> 'S' and (
          has_table_privilege('anon', c.oid, 'select, insert, update, delete, truncate, references, trigger')
          or has_any_column_privilege('anon', c.oid, 'select, insert, update, references')
        ))
      )
    order by 1
  $$,
  'anon holds no privilege on any table, view or sequence in core'
);

select tests.authenticate_as_anon();

select throws_ok('select * from core.users', '42501', null, 'anon cannot read users');
select throws_ok('select * from core.profiles', '42501', null, 'anon cannot read profiles');
select throws_ok('select * from core.crypto_addresses', '42501', null, 'anon cannot read crypto addresses');
select throws_ok('select prefix from core.api_keys', '42501', null, 'anon cannot read api keys');
select throws_ok('select * from core.siwe_nonces', '42501', null, 'anon cannot read SIWE nonces');
select is(core.current_user_id(), null, 'for anon, current_user_id() names nobody');
select throws_ok(
  $$select core.issue_siwe_nonce('anonNonce0001')$$,
  '42501', null,
  'anon cannot be issued a SIWE nonce'
);

select tests.clear_authentication();
select * from finish();
rollback;
