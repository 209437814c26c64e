-- Complete turns a verified hold into usage once. The reservation must be the caller's,
-- active and verified; the transaction must be the verified one (else PT409 reservation_mismatch
-- naming the field); its cost at most the hold (cost_exceeds_hold). The same reservation completed
-- again with the same transaction replays the first usage; a transaction already charged for
-- another reservation is transaction_already_charged. ERC-4337 usage is charged once per user
-- operation, so two user operations bundled in one transaction are both charged.
begin;
select plan(27);

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set actor '0x00000000000000000000000000000000000000b1'
\set target '0x00000000000000000000000000000000000000c1'

-- Bob completes: {usage, amount, released, replayed}, or the error (error_of).
create function pg_temp.complete(p_reservation text, p_call_data text, p_mode text, p_tx integer, p_user_op integer,
    p_cost numeric, p_client_id text default 'client-1', p_target text default '0x00000000000000000000000000000000000000c1',
    p_value numeric default 5, p_actor text default '0x00000000000000000000000000000000000000b1',
    p_smart text default null) returns jsonb
  language plpgsql as $f$
    declare
      v_call text := format('select * from sponsorship.complete(%L, %L, %L, %L, %s, %L, %L, %L, %L, %s, %L)', p_reservation,
        p_client_id, p_target, p_call_data, coalesce(p_value::text, 'null'), p_mode, tests.tx_hash(p_tx),
        case when p_user_op is not null then tests.tx_hash(p_user_op) end, p_actor, p_cost, p_smart);
      v_result jsonb;
    begin
      execute format('select jsonb_build_object(''usage'', c.usage_id, ''amount'', c.amount, ''released'', c.released, ''replayed'', c.replayed) from (%s) c', v_call)
        into v_result;
      return v_result;
    exception when others then
      return tests.error_of(v_call);
    end $f$;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.link_address(:'bob', :'actor', :'chain');
select tests.create_sponsor(:'alice', :'wallet', 100000);

-- Bob's holds of 1000 wei for value 5, the last one for his smart account; the provider verifies
-- all but one.
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000001', 5, :'actor') as first \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000002', 5, :'actor') as unverified \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000003', 5, :'actor') as second \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000004', 5, :'actor') as op_1 \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000005', 5, :'actor') as op_2 \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000006', 5, :'actor') as op_3 \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000007', 5, :'actor', '0x00000000000000000000000000000000000000d1') as smart \gset
select tests.approve_reservation(id) from sponsorship.reservations where id <> :'unverified' order by id;
select tests.authenticate_as(:'bob');

-- Refusals before anything is charged.
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800, p_client_id => 'client-2'),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "clientId"}}', 'another client id: reservation_mismatch naming clientId');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800, p_target => '0x00000000000000000000000000000000000000c2'),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "targetAddress"}}', 'another target: targetAddress');
select is(pg_temp.complete(:'first', '0x00000009', 'eoa', 100, null, 800),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "callData"}}', 'other call data: callData');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800, p_value => 6),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "nativeValueWei"}}', 'another value: nativeValueWei');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800, p_client_id => null),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "clientId"}}', 'a missing field is a mismatch too, not a match');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800, p_value => null),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "nativeValueWei"}}', 'a missing value too');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800, p_actor => '0x00000000000000000000000000000000000000b2'),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "actorAddress"}}',
  'usage against another actor than the reserved one (whose daily caps were checked): actorAddress');
select is(pg_temp.complete(:'first', '0x00000001', 'erc4337', 100, 150, 800, p_smart => '0x00000000000000000000000000000000000000d1'),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "smartAccountAddress"}}',
  'a smart account where none was reserved: smartAccountAddress');
select is(pg_temp.complete(:'smart', '0x00000007', 'erc4337', 100, 151, 800, p_smart => '0x00000000000000000000000000000000000000d2'),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "smartAccountAddress"}}',
  'another smart account of the same owner than the reserved one: smartAccountAddress');
select is(pg_temp.complete(:'smart', '0x00000007', 'eoa', 100, null, 800),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "smartAccountAddress"}}',
  'the owner''s own transaction for a smart-account reservation: smartAccountAddress');
select is(pg_temp.complete(:'unverified', '0x00000002', 'eoa', 100, null, 800),
  '{"code": "PT409", "hint": "reservation_not_verified"}', 'a reservation the provider did not verify: reservation_not_verified');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 1001),
  '{"code": "PT409", "hint": "cost_exceeds_hold"}', 'a cost over the hold: cost_exceeds_hold');
select tests.authenticate_as(:'carol');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800),
  '{"code": "PT404", "hint": "reservation_not_found"}', 'someone else''s reservation: reservation_not_found');
select tests.authenticate_as(:'alice');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800),
  '{"code": "PT404", "hint": "reservation_not_found"}', 'also for the sponsor''s owner: only the requester completes');
select tests.clear_authentication();
select is((select count(*)::int from sponsorship.usage), 0, 'nothing was charged');

-- The charge, once.
select tests.authenticate_as(:'bob');
select pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800) as charged \gset
select is(:'charged'::jsonb - 'usage', '{"amount": 800, "released": 200, "replayed": false}',
  'the verified transaction is charged its cost; the rest of the hold is released');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 100, null, 800), :'charged'::jsonb || '{"replayed": true}',
  'completing it again with the same transaction replays the same usage');
select is(pg_temp.complete(:'first', '0x00000001', 'eoa', 101, null, 800),
  '{"code": "PT409", "hint": "reservation_not_active", "detail": {"status": "completed"}}', 'with another transaction it is reservation_not_active');
select is(pg_temp.complete(:'second', '0x00000003', 'eoa', 100, null, 800),
  '{"code": "PT409", "hint": "transaction_already_charged"}', 'another reservation with the charged transaction: transaction_already_charged');

-- ERC-4337: one bundle transaction, several user operations, each charged once.
select is(pg_temp.complete(:'op_1', '0x00000004', 'erc4337', 200, 201, 300) - 'usage', '{"amount": 300, "released": 700, "replayed": false}', 'a user operation in bundle 200 is charged');
select pg_temp.complete(:'op_2', '0x00000005', 'erc4337', 200, 202, 400) as op_2_charged \gset
select is(:'op_2_charged'::jsonb - 'usage', '{"amount": 400, "released": 600, "replayed": false}', 'another user operation in the same bundle is charged too');
select is(pg_temp.complete(:'op_3', '0x00000006', 'erc4337', 200, 201, 300),
  '{"code": "PT409", "hint": "transaction_already_charged"}', 'a user operation charged before is transaction_already_charged');
select is(pg_temp.complete(:'op_2', '0x00000005', 'erc4337', 200, 202, 400), :'op_2_charged'::jsonb || '{"replayed": true}', 'a user operation''s completion replays');

select tests.clear_authentication();
select results_eq(
  $$select reservation_id::text, mode, tx_hash::text, user_op_hash::text, amount::numeric from sponsorship.usage order by id$$,
  format($$values (%L, 'eoa', %L, null, 800::numeric), (%L, 'erc4337', %L, %L, 300), (%L, 'erc4337', %L, %L, 400)$$,
         :'first', tests.tx_hash(100), :'op_1', tests.tx_hash(200), tests.tx_hash(201), :'op_2', tests.tx_hash(200), tests.tx_hash(202)),
  'three usage rows: one per charged transaction or user operation'
);
select results_eq(
  $$select id::text, status from sponsorship.reservations order by id$$,
  format($$select id, case when id in (%L, %L, %L) then 'completed' else 'active' end from unnest(array[%L, %L, %L, %L, %L, %L, %L]) id order by id$$,
         :'first', :'op_1', :'op_2', :'first', :'unverified', :'second', :'op_1', :'op_2', :'op_3', :'smart'),
  'the refused reservations are still active'
);
select results_eq(
  $$select deposited::numeric, spent::numeric, held::numeric from sponsorship.sponsors$$,
  $$values (100000::numeric, 1500::numeric, 4000::numeric)$$,
  'spent is the three charges; held the four holds left'
);
select results_eq(
  $$select kind, count(*)::int, sum(amount)::numeric from sponsorship.ledger_entries group by kind order by kind$$,
  $$values ('deposit', 1, 100000::numeric), ('hold', 7, 7000::numeric), ('release', 3, 3000::numeric), ('spend', 3, 1500::numeric)$$,
  'each completion appended a release of its hold and a spend of its cost, once'
);

select * from finish();
rollback;
