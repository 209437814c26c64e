-- The hosted page's payment API (issue 8 items 4-5): what the confirmation and the reconciler need
-- beyond 20261123000400_checkout.sql.

-- Confirmation: the payer whose attempt of this session reported this transaction hash
-- (record_payment_transaction), the latest such attempt; null when no attempt did. The page has no
-- table privilege (anon), so this is a security definer function authenticated like the others by
-- the session id and its client secret's hash; a wrong secret also answers null (the gateway has
-- already answered 404 for it after session_by_client_secret).
create function checkout.payer_of_transaction(p_session_id core.object_id, p_client_secret_hash bytea, p_tx_hash text)
  returns text
  language sql stable security definer
  set search_path = ''
  as $$
    select a.payer_address
    from checkout.sessions s
    join checkout.payment_attempts a on a.session_id = s.id
    where s.id = p_session_id and s.client_secret_hash = p_client_secret_hash and a.tx_hash = lower(p_tx_hash)
    order by a.prepared_at desc
    limit 1
  $$;
revoke execute on function checkout.payer_of_transaction(core.object_id, bytea, text) from public;
grant execute on function checkout.payer_of_transaction(core.object_id, bytea, text) to anon;

-- The reconciler's work list, as before but attempts with a reported hash first: every page that
-- prepared a payment and was left leaves an attempt without one for 3 days, and under the limit
-- those must not crowd out the cheap receipt checks of customers who paid and closed the page.
create or replace function checkout.payment_attempts_to_reconcile(p_limit integer)
  returns table (
    attempt_id         core.object_id,
    session_id         core.object_id,
    payer_address      text,
    chain_id           bigint,
    tx_hash            text,
    prepared_at        timestamptz,
    collection_address text,
    price              numeric,
    payment_token      text
  )
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    return query
      select a.id, a.session_id, a.payer_address, a.chain_id, a.tx_hash, a.prepared_at, c.address,
             s.price::numeric, c.payment_token
      from checkout.payment_attempts a
      join checkout.sessions s on s.id = a.session_id
      join checkout.collections c on c.id = s.collection_id
      where s.status in ('PENDING', 'EXPIRED')
        and a.prepared_at < s.expires_at
        and a.prepared_at > now() - interval '3 days'
      order by a.tx_hash is null, a.prepared_at
      limit least(greatest(coalesce(p_limit, 1), 1), 1000);
  end
  $$;
