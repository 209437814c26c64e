-- The hosted page's payment API (issue 8 items 4-5): what the confirmation needs beyond
-- 20261123000400_checkout.sql.

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
