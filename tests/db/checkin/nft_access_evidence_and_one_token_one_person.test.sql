-- NFT access (20261125000200_checkin.sql): an event's `register` rules make reserving ask for chain
-- reads (`needs` names the person's linked addresses) and refuse a holder-less read; `checkIn` rules
-- make every online entry read the chain; an unavailable read never admits; the evidence is kept
-- with the reservation and the scan; one token admits one person per event; `view` rules hide the
-- event from listings of people without a recent satisfying read.
begin;
select plan(16);

select tests.create_user('host@example.com') as host \gset
select tests.create_user('a@example.com') as a \gset
select tests.create_user('b@example.com') as b \gset
select tests.create_event(:'host') as ev \gset
select tests.link_address(:'a', '0x00000000000000000000000000000000000000a1', '31337');
update community.events set access_rules = '[{"chain": "evm", "chainId": 31337, "collection": "0x00000000000000000000000000000000000000cc", "minBalance": 1, "grants": ["view", "register", "checkIn"]}]'
  where id = :'ev';

create function pg_temp.read(p_satisfied boolean, p_tokens jsonb, p_owner text default '0x00000000000000000000000000000000000000a1')
  returns jsonb language sql as $$
    select jsonb_build_array(jsonb_build_object(
      'rule', jsonb_build_object('chain', 'evm', 'chainId', 31337, 'collection', '0x00000000000000000000000000000000000000cc', 'minBalance', 1),
      'satisfied', p_satisfied, 'balance', case when p_satisfied then 1 else 0 end,
      'perOwner', jsonb_build_object(p_owner, case when p_satisfied then 1 else 0 end),
      'tokens', p_tokens, 'block', '7', 'readAt', now()))
  $$;

select tests.authenticate_as(:'a');
select is((select checkin.may_view_in_lists(e.id, e.owner_id, e.access_rules) from community.events e where e.id = :'ev'), false,
  'a view rule hides the event from listings before any read');
select is((select needs->'addresses'->'31337'->>0 from checkin.reserve(:'ev')), '0x00000000000000000000000000000000000000a1',
  'reserving asks for the reads of the person''s linked addresses');
select is((select count(*) from checkin.reservations), 0::bigint, 'and writes nothing');
select is(tests.error_of(format('select checkin.reserve(%L, %L)', :'ev', pg_temp.read(false, '[]')))->>'hint', 'access_denied',
  'a read without the NFT is refused');
select is(tests.error_of(format('select checkin.reserve(%L, %L)', :'ev', '[{"rule": {"chain": "evm", "chainId": 31337, "collection": "0x00000000000000000000000000000000000000cc"}, "unavailable": true}]'))->>'hint',
  'holdings_unavailable', 'a failed read never admits');
select reservation->>'id' as res_a, reservation->'accessEvidence'->>'block' as block from checkin.reserve(:'ev', pg_temp.read(true, '["1"]')) \gset
select is(:'block'::text, '7', 'a holder reserves, and the evidence is kept with the reservation');
select is((select checkin.may_view_in_lists(e.id, e.owner_id, e.access_rules) from community.events e where e.id = :'ev'), true,
  'the satisfying read makes the event listable for the holder');

select tests.authenticate_as(:'b');
select tests.link_address(:'b', '0x00000000000000000000000000000000000000b1', '31337');
select reservation->>'id' as res_b from checkin.reserve(:'ev', pg_temp.read(true, '["1"]', '0x00000000000000000000000000000000000000b1')) \gset

create function pg_temp.scan(p_reservation text, p_nonce text, p_evidence jsonb) returns jsonb language sql as $$
  select coalesce(scan::jsonb, jsonb_build_object('needs', needs)) from checkin.scan(current_setting('t.ev')::text, 'manual', p_reservation, null,
    null, null, 'entry', 'door-1', p_nonce, now(), p_evidence, false)
$$;
select set_config('t.ev', :'ev', false);

select tests.authenticate_as(:'host');
select ok(pg_temp.scan(:'res_a', 'nonce-0001', null) ? 'needs', 'an entry reads the chain every time, even with a recent read');
select is((select count(*) from checkin.scans), 0::bigint, 'nothing is recorded before the read');
select is(pg_temp.scan(:'res_a', 'nonce-0002', pg_temp.read(false, '[]'))->>'result', 'access_denied', 'the token moved away: refused at the door');
select is(pg_temp.scan(:'res_a', 'nonce-0003', '[{"rule": {"chain": "evm", "chainId": 31337, "collection": "0x00000000000000000000000000000000000000cc"}, "unavailable": true}]')->>'result',
  'access_unavailable', 'a failed read at the door refuses with its own reason');
select is(pg_temp.scan(:'res_a', 'nonce-0004', pg_temp.read(true, '["1"]'))->>'result', 'admitted', 'the holder of token 1 is admitted');
select is((select evidence->>'block' from checkin.scans where nonce = 'nonce-0004'), '7', 'with the evidence on the scan');
select is(pg_temp.scan(:'res_b', 'nonce-0005', pg_temp.read(true, '["1"]', '0x00000000000000000000000000000000000000b1'))->>'result',
  'token_already_used', 'token 1, transferred to b, does not admit a second person');
select pg_temp.scan(:'res_a', 'nonce-0004', null)->>'id' as entry_a \gset
select checkin.undo_scan(:'ev', :'entry_a');
select is(pg_temp.scan(:'res_b', 'nonce-0006', pg_temp.read(true, '["1"]', '0x00000000000000000000000000000000000000b1'))->>'result',
  'admitted', 'once a''s admission is undone, the token is free');
select is(pg_temp.scan(:'res_a', 'nonce-0007', pg_temp.read(true, '["1"]'))->>'result', 'token_already_used', 'and now a is the second');

select * from finish();
rollback;
