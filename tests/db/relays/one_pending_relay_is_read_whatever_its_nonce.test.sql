-- Gasless relays (20261123001200_relays.sql): relays.pending_relay reads one pending relay by its
-- id, whatever its nonce. A relayer with a relay whose nonce lies beyond 200 other pending ones:
-- relays.pending (the batch, 200 lowest nonces) does not reach it, relays.pending_relay returns it,
-- row for row as relays.pending would with room enough. Nothing for another relayer, another chain,
-- an unknown id or a relay no longer pending. Granted as relays.pending is: service_jobs only.
begin;
select plan(16);

grant usage on schema extensions to service_jobs, api_gateway; -- pgTAP, for the assertions made as those roles

\set chain 31337
\set wallet '0x00000000000000000000000000000000000000a1'
\set actor '0x00000000000000000000000000000000000000b1'
\set target '0x00000000000000000000000000000000000000c1'
\set relayer '0x00000000000000000000000000000000000000e1'
\set other_relayer '0x00000000000000000000000000000000000000e2'

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.link_address(:'bob', :'actor', :'chain');
select tests.create_sponsor(:'alice', :'wallet', 1000000, '{venue_gasless}', array[:'target']);

-- 203 holds as the caller: 202 for the relayer, one for another relayer. Call data 0x0001, 0x0002, ...
select tests.authenticate_as(:'bob');
select array_agg(r.reservation_id order by g)::text as holds
  from generate_series(1, 203) g
  cross join lateral relays.reserve(:chain, :'wallet', 'venue_gasless', :'target', '0x' || lpad(to_hex(g), 4, '0'), :'actor', 1000, 1000) r \gset
reset role;
select set_config('request.jwt.claims', '', true);
select set_config('tests.holds', :'holds', true);

-- As the relayer does it: nonce 5 onwards for the relayer (202 relays: nonces 5..206), nonce 0 for the other.
set local role service_jobs;
select relays.sync_nonce(:chain, :'relayer', 5);
select relays.sync_nonce(:chain, :'other_relayer', 0);
do $$
  declare
    v_holds text[] := current_setting('tests.holds')::text[];
    v_relayer text;
    v_nonce bigint;
  begin
    for i in 1 .. 203 loop
      v_relayer := case when i <= 202 then '0x00000000000000000000000000000000000000e1' else '0x00000000000000000000000000000000000000e2' end;
      v_nonce := relays.take_nonce(31337, v_relayer);
      perform relays.record_signed(v_holds[i], 31337, v_relayer, v_nonce, 'venue_gasless', null,
        '0x00000000000000000000000000000000000000c1', '0x' || lpad(to_hex(i), 4, '0'), 50,
        '0x' || lpad(to_hex(1000 + i), 64, '0'), '0x01', 10, 1);
    end loop;
  end
$$;
reset role;

select id as far from relays.relays where relayer = :'relayer' and nonce = 206 \gset
select id as first from relays.relays where relayer = :'relayer' and nonce = 5 \gset
select id as others from relays.relays where relayer = :'other_relayer' \gset
set local role service_jobs;
select relays.fail(:'first', 'nonce_consumed_elsewhere'); -- not pending any more
reset role;

select is(
  (select count(*)::integer from relays.relays where relayer = :'relayer' and status in ('signed', 'sent') and nonce < 206),
  200, 'the relay at nonce 206 has 200 pending relays of its relayer below it'
);

set local role service_jobs;
select ok(
  not exists (select from relays.pending(:chain, :'relayer', 200) where id = :'far'),
  'relays.pending (200 lowest nonces) does not reach it'
);
select results_eq(
  format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', :'far'),
  format('select * from relays.pending(%s, %L, 1000) where id = %L', :chain, :'relayer', :'far'),
  'relays.pending_relay returns it, as relays.pending does with room enough'
);
select results_eq(
  format('select id, nonce, status, tx_hashes, attempts from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', :'far'),
  format($$values (%L::text, 206::bigint, 'signed'::text, array['0x' || lpad(to_hex(1202), 64, '0')], 1)$$, :'far'),
  'its nonce, status, transaction and attempts'
);
select is_empty(
  format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'other_relayer', :'far'),
  'nothing when another relayer asks for it'
);
select is_empty(
  format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', :'others'),
  'nothing for another relayer''s relay'
);
select isnt_empty(
  format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'other_relayer', :'others'),
  'that relay for its own relayer'
);
select is_empty(
  format('select * from relays.pending_relay(%s, %L, %L)', 1, :'relayer', :'far'),
  'nothing on another chain'
);
select is_empty(
  format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', '65f1c0a2b3d4e5f601234567'),
  'nothing for an unknown relay id'
);
select is_empty(
  format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', :'first'),
  'nothing for a failed relay'
);
select relays.complete(:'far', '0x' || lpad(to_hex(1202), 64, '0'), 300, false);
select is_empty(
  format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', :'far'),
  'nothing once it is mined'
);
reset role;

-- Grants: exactly relays.pending's, i.e. service_jobs and nobody else.
select set_eq(
  $$select rolname::text from pg_roles where has_function_privilege(oid, 'relays.pending_relay(bigint,text,text)', 'execute') and not rolsuper$$,
  $$select rolname::text from pg_roles where has_function_privilege(oid, 'relays.pending(bigint,text,integer)', 'execute') and not rolsuper$$,
  'the roles that execute relays.pending_relay are those that execute relays.pending'
);
select ok(not tests.is_executable_by_public('relays.pending_relay(bigint,text,text)'), 'not executable by PUBLIC');

select tests.authenticate_as(:'bob');
select throws_ok(format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', :'far'), '42501', null,
  'authenticated cannot call it');
select tests.authenticate_as_anon();
select throws_ok(format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', :'far'), '42501', null,
  'anon cannot call it');
reset role;
select set_config('request.jwt.claims', '', true);
set local role api_gateway;
select throws_ok(format('select * from relays.pending_relay(%s, %L, %L)', :chain, :'relayer', :'far'), '42501', null,
  'the login role cannot call it');
reset role;

select * from finish();
rollback;
