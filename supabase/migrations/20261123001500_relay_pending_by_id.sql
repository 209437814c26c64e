-- A gasless relay's status read settles its own relay (relayOnce with a relay id, settle only). It
-- used to read relays.pending(chain, relayer, 200), the 200 lowest pending nonces of the relayer,
-- and keep the relay with that id: a relay whose nonce lay beyond those 200 was never found, so
-- its status did not advance through that read. relays.pending_relay reads that one relay by its
-- id (the primary key), with exactly the columns and conditions of relays.pending: the same
-- chain and relayer, status signed or sent, its newest attempt. No row when the relay is not
-- pending, is another relayer's or chain's, or does not exist.
--
-- What a pending relay is, is said once, in the view relays.pending_relays, which both functions
-- read (relays.pending is redefined over it, same answer). A view, not a function: the planner
-- inlines it, so the by-id read stays a primary-key lookup and the batch read keeps its
-- (chain_id, relayer, nonce) index order. Nobody is granted the view; only the definer functions
-- read it.

create view relays.pending_relays as
  select r.chain_id, r.relayer, r.id, r.nonce, r.status, r.to_address, r.call_data, r.gas_limit, v.max_cost,
         (select array_agg(a.tx_hash order by a.attempt desc) from relays.attempts a where a.relay_id = r.id) as tx_hashes,
         l.raw_tx as latest_raw_tx, l.max_fee_per_gas as latest_max_fee, l.max_priority_fee_per_gas as latest_priority_fee,
         l.created_at as latest_at, l.attempt::integer as attempts
  from relays.relays r
  join sponsorship.reservations v on v.id = r.reservation_id
  cross join lateral (select * from relays.attempts a where a.relay_id = r.id order by a.attempt desc limit 1) l
  where r.status in ('signed', 'sent');
revoke all on relays.pending_relays from public;

-- The relayer's relays not mined nor failed, oldest nonce first (as in 20261123000900).
create or replace function relays.pending(p_chain_id bigint, p_relayer text, p_limit integer)
  returns table (id text, nonce bigint, status text, to_address text, call_data text, gas_limit numeric, max_cost numeric, tx_hashes text[],
                 latest_raw_tx text, latest_max_fee numeric, latest_priority_fee numeric, latest_at timestamptz, attempts integer)
  language sql stable security definer
  set search_path = ''
  as $$
    select p.id, p.nonce, p.status, p.to_address, p.call_data, p.gas_limit, p.max_cost, p.tx_hashes,
           p.latest_raw_tx, p.latest_max_fee, p.latest_priority_fee, p.latest_at, p.attempts
    from relays.pending_relays p
    where p.chain_id = p_chain_id and p.relayer = p_relayer
    order by p.nonce
    limit p_limit
  $$;

-- One of them, by id.
create function relays.pending_relay(p_chain_id bigint, p_relayer text, p_relay_id text)
  returns table (id text, nonce bigint, status text, to_address text, call_data text, gas_limit numeric, max_cost numeric, tx_hashes text[],
                 latest_raw_tx text, latest_max_fee numeric, latest_priority_fee numeric, latest_at timestamptz, attempts integer)
  language sql stable security definer
  set search_path = ''
  as $$
    select p.id, p.nonce, p.status, p.to_address, p.call_data, p.gas_limit, p.max_cost, p.tx_hashes,
           p.latest_raw_tx, p.latest_max_fee, p.latest_priority_fee, p.latest_at, p.attempts
    from relays.pending_relays p
    where p.id = p_relay_id and p.chain_id = p_chain_id and p.relayer = p_relayer
  $$;

-- Deny by default, as every relays function: the relayer's side, service_jobs only.
revoke execute on function relays.pending_relay(bigint, text, text) from public;
grant execute on function relays.pending_relay(bigint, text, text) to service_jobs;
