-- A gasless relay's status read settles its own relay (relayOnce with a relay id, settle only). It
-- used to read relays.pending(chain, relayer, 200), the 200 lowest pending nonces of the relayer,
-- and keep the relay with that id: a relay whose nonce lay beyond those 200 was never found, so
-- its status did not advance through that read. relays.pending_relay reads that one relay by its
-- id (the primary key), with exactly the columns and conditions of relays.pending: the same
-- chain and relayer, status signed or sent, its newest attempt. No row when the relay is not
-- pending, is another relayer's or chain's, or does not exist.
--
-- 20261123000900 is not edited: relays.pending stays as it is for the recovery pass's batch.

create function relays.pending_relay(p_chain_id bigint, p_relayer text, p_relay_id text)
  returns table (id text, nonce bigint, status text, to_address text, call_data text, gas_limit numeric, max_cost numeric, tx_hashes text[],
                 latest_raw_tx text, latest_max_fee numeric, latest_priority_fee numeric, latest_at timestamptz, attempts integer)
  language sql stable security definer
  set search_path = ''
  as $$
    select r.id, r.nonce, r.status, r.to_address, r.call_data, r.gas_limit, v.max_cost,
           (select array_agg(a.tx_hash order by a.attempt desc) from relays.attempts a where a.relay_id = r.id),
           l.raw_tx, l.max_fee_per_gas, l.max_priority_fee_per_gas, l.created_at, l.attempt::integer
    from relays.relays r
    join sponsorship.reservations v on v.id = r.reservation_id
    cross join lateral (select * from relays.attempts a where a.relay_id = r.id order by a.attempt desc limit 1) l
    where r.id = p_relay_id and r.chain_id = p_chain_id and r.relayer = p_relayer and r.status in ('signed', 'sent')
  $$;

-- Deny by default, as every relays function: the relayer's side, service_jobs only.
revoke execute on function relays.pending_relay(bigint, text, text) from public;
grant execute on function relays.pending_relay(bigint, text, text) to service_jobs;
