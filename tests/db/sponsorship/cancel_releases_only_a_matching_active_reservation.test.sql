-- Cancel (the provider denied before broadcast) releases the hold of the caller's own
-- active, unexpired reservation, and only when the transaction named is the reserved one (else
-- PT409 reservation_mismatch naming the field). A released, completed or expired reservation is
-- reservation_not_active with its status; someone else's is reservation_not_found. One the
-- provider approved may be broadcast any moment: it completes or expires (reservation_verified).
begin;
select plan(16);

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set actor '0x00000000000000000000000000000000000000b1'
\set target '0x00000000000000000000000000000000000000c1'

create function pg_temp.cancel(p_reservation text, p_call_data text, p_client_id text default 'client-1',
    p_target text default '0x00000000000000000000000000000000000000c1', p_value numeric default 5) returns jsonb
  language plpgsql as $f$
    declare
      v_call text := format('select released from sponsorship.cancel(%L, %L, %L, %L, %s)', p_reservation, p_client_id,
        p_target, p_call_data, coalesce(p_value::text, 'null'));
      v_released numeric;
    begin
      execute v_call into v_released;
      return jsonb_build_object('released', v_released);
    exception when others then
      return tests.error_of(v_call);
    end $f$;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.link_address(:'bob', :'actor', :'chain');
select tests.link_address(:'carol', '0x00000000000000000000000000000000000000b9', :'chain');
select tests.create_sponsor(:'alice', :'wallet', 100000);

-- Bob's four holds of 1000 wei; the provider approves the second and the fourth.
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000001', 5, :'actor') as reservation \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000002', 5, :'actor') as completed \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000003', 5, :'actor') as expired \gset
select tests.reserve(:'bob', :chain, :'wallet', :'target', '0x00000004', 5, :'actor') as approved \gset
select tests.approve_reservation(:'completed');
select tests.approve_reservation(:'approved');
update sponsorship.reservations set expires_at = now() - interval '1 second' where id = :'expired';
select tests.authenticate_as(:'bob');
select sponsorship.complete(:'completed', 'client-1', :'target', '0x00000002', 5, 'eoa', tests.tx_hash(2), null, :'actor', 700);

select is(pg_temp.cancel(:'reservation', '0x00000001', p_client_id => 'client-2'),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "clientId"}}', 'another client id: reservation_mismatch naming clientId');
select is(pg_temp.cancel(:'reservation', '0x00000001', p_target => '0x00000000000000000000000000000000000000c2'),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "targetAddress"}}', 'another target: targetAddress');
select is(pg_temp.cancel(:'reservation', '0x00000009'),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "callData"}}', 'other call data: callData');
select is(pg_temp.cancel(:'reservation', '0x00000001', p_value => 6),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "nativeValueWei"}}', 'another value: nativeValueWei');
select is(pg_temp.cancel(:'reservation', null),
  '{"code": "PT409", "hint": "reservation_mismatch", "detail": {"field": "callData"}}', 'a missing field is a mismatch, not a match');
select tests.authenticate_as(:'carol');
select is(pg_temp.cancel(:'reservation', '0x00000001'), '{"code": "PT404", "hint": "reservation_not_found"}',
  'someone else''s reservation: reservation_not_found');
select tests.authenticate_as(:'bob');
select is(pg_temp.cancel(:'completed', '0x00000002'),
  '{"code": "PT409", "hint": "reservation_not_active", "detail": {"status": "completed"}}', 'a completed reservation: reservation_not_active (completed)');
select is(pg_temp.cancel(:'expired', '0x00000003'),
  '{"code": "PT409", "hint": "reservation_not_active", "detail": {"status": "expired"}}', 'an expired one, even before the job released it: (expired)');

select is(pg_temp.cancel(:'approved', '0x00000004'), '{"code": "PT409", "hint": "reservation_verified"}',
  'one the provider approved: reservation_verified (it completes or expires)');

select tests.clear_authentication();
select is((select held::numeric from sponsorship.sponsors), 3000::numeric, 'no refusal released anything');

select tests.authenticate_as(:'bob');
select is(pg_temp.cancel(:'reservation', '0x00000001'), '{"released": 1000}', 'the matching active reservation is released');
select is(pg_temp.cancel(:'reservation', '0x00000001'),
  '{"code": "PT409", "hint": "reservation_not_active", "detail": {"status": "released"}}', 'cancelling it again: reservation_not_active (released)');

select tests.clear_authentication();
select results_eq(
  format($$select status, release_reason, settled_at is not null from sponsorship.reservations where id = %L$$, :'reservation'),
  $$values ('released', 'cancelled', true)$$,
  'it is released as cancelled'
);
select results_eq(
  format($$select kind, amount::numeric from sponsorship.ledger_entries where reservation_id = %L order by id$$, :'reservation'),
  $$values ('hold', 1000::numeric), ('release', 1000::numeric)$$,
  'with one release entry for its hold'
);
select is((select held::numeric from sponsorship.sponsors), 2000::numeric, 'held keeps the approved hold and the expired one, until the job releases it');
select results_eq(
  format($$select status, release_reason from sponsorship.reservations where id = %L$$, :'expired'),
  $$values ('active', null::text)$$,
  'cancel did not touch the expired reservation'
);

select * from finish();
rollback;
