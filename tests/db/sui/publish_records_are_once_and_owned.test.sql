-- Sui collection publishes (20261124000500_sui_collections.sql): the organiser must be one of the
-- caller's linked Sui addresses on the network; a reference is a retry with the same request and a
-- 409 with another; the first signed transaction recorded is the one that counts; a finished row
-- stays finished, and only for its own digest; nobody reads another's rows; nothing is granted but
-- to authenticated.
begin;
select plan(21);

\set pkg '0x00000000000000000000000000000000000000000000000000000000000000aa'
\set organiser '0x00000000000000000000000000000000000000000000000000000000000000b1'
\set col '0x00000000000000000000000000000000000000000000000000000000000000c1'
\set cap '0x00000000000000000000000000000000000000000000000000000000000000c2'
\set digest1 '3vG1wZJrYbQeWJ9oRi3b7vdcR7kKx9A2YMn2JrjNbSmH'
\set digest2 '5ErNpYk2zS8aQ8CaFv6w2WdcbK3j4jv1z3JxkE5q7TbL'

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'alice', :'organiser', 'sui:testnet');

create function pg_temp.begin(p_reference text, p_hash text, p_network text default 'sui:testnet') returns setof sui.collections
  language sql as $$
    select * from sui.begin_publish(p_reference, sha256(convert_to(p_hash, 'UTF8')), p_network,
      '0x00000000000000000000000000000000000000000000000000000000000000aa',
      '0x00000000000000000000000000000000000000000000000000000000000000B1', 'Passes', '', 'https://img.example/p.png',
      'https://example.com', 100, false)
  $$;

select tests.authenticate_as(:'bob');
select is(tests.error_of($$select * from pg_temp.begin('r1', 'request one')$$)->>'hint', 'sui_address_not_linked',
  'an organiser linked to someone else is refused');
select tests.authenticate_as(:'alice');
select is(tests.error_of($$select * from pg_temp.begin('r1', 'request one', 'sui:mainnet')$$)->>'hint', 'sui_address_not_linked',
  'an organiser linked on another network is refused');

select id as row1 from pg_temp.begin('r1', 'request one') \gset
select is((select status from sui.collections where id = :'row1'), 'pending', 'a new publish starts pending');
select is((select organiser from sui.collections where id = :'row1'), :'organiser', 'the organiser is stored in lower case');
select is((select id from pg_temp.begin('r1', 'request one')), :'row1', 'the same reference and request is the same row');
select is(tests.error_of($$select * from pg_temp.begin('r1', 'request two')$$)->>'hint', 'client_reference_reused',
  'the same reference with another request is a conflict');

select is((select digest from sui.record_prepared(:'row1', 'AAAA', 'sig-1', :'digest1', :'cap')), :'digest1', 'the first signed transaction is stored');
select is((select digest from sui.record_prepared(:'row1', 'BBBB', 'sig-2', :'digest2', :'col')), :'digest1',
  'a second one is not: the first is returned to be executed again');

select is(sui.unfinished_gas_coins('sui:testnet'), array[:'cap'], 'the pending transaction''s gas coin is kept from others');
select is((select status from sui.finish_publish(:'row1', :'digest2', true, :'col', :'cap', 'x::collection::EventPass', null, null)),
  'pending', 'an outcome for another digest changes nothing');
select is((select status from sui.finish_publish(:'row1', :'digest1', true, :'col', :'cap', :'pkg' || '::collection::EventPass', null, null)),
  'published', 'the outcome of the stored transaction finishes the row');
select is((select status from sui.finish_publish(:'row1', :'digest1', false, null, null, null, 'move_abort', 'late')),
  'published', 'a finished row stays finished');
select is((select collection_object_id from sui.collections where id = :'row1'), :'col', 'with its collection object');
select is(sui.unfinished_gas_coins('sui:testnet'), '{}'::text[], 'and its gas coin free again');

select tests.authenticate_as(:'bob');
select is((select count(*) from sui.collections), 0::bigint, 'another user reads none of it');
select ok(tests.error_of(format('select * from sui.record_prepared(%L, %L, %L, %L, %L)', :'row1', 'CCCC', 'sig-3', :'digest2', :'col')) is not null,
  'record_prepared of another user''s row is refused');

select tests.authenticate_as(:'alice');
select is(sui.lease_signer('sui:testnet', :'organiser', '00000000-0000-4000-8000-00000000000a', 60), true, 'a free lease is taken');
select is(sui.lease_signer('sui:testnet', :'organiser', '00000000-0000-4000-8000-00000000000b', 60), null, 'a held one is not');
select tests.clear_authentication();
update sui.signer_leases set leased_until = now() - interval '1 second'; -- as the owner: time passes
select tests.authenticate_as(:'alice');
select is(sui.lease_signer('sui:testnet', :'organiser', '00000000-0000-4000-8000-00000000000b', 60), true, 'a lapsed one is');
select sui.release_signer('sui:testnet', :'organiser', '00000000-0000-4000-8000-00000000000a');
select tests.clear_authentication();
select is((select holder::text from sui.signer_leases), '00000000-0000-4000-8000-00000000000b', 'only its holder releases it');

select tests.clear_authentication();
select results_eq(
  $$select p.proname::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'sui' and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('service_jobs', p.oid, 'execute'))$$,
  $$select null::text where false$$,
  'no sui function is executable by anon or service_jobs');

select * from finish();
rollback;
