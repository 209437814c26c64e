-- Checkout (issue 8), the rest of the reconciler, FAILED, and the payment token's symbol; on top of
-- 20261123000400_checkout.sql, 000500 and 000600 (landed; not edited).
--
-- ## When a session is FAILED
--
-- FAILED (SPEC 3: "PENDING | server-side failure | terminal failure | FAILED | checkout stopped")
-- means: the checkout's reference was consumed on-chain by a mint that cannot complete it. Every
-- supported collection accepts a checkoutRef once (a second mint with it reverts), so once a
-- confirmed CheckoutMinted of the session's collection carries the session's reference with another
-- amount or another payment token than the session asks (e.g. the owner changed the static price
-- with setStaticPrice and the mint paid the new one, or a voucher was signed for another price), no
-- payment can ever complete the checkout. The reconciler (service_jobs) finds that mint in the
-- collection's logs, verifies its receipt like a confirmation does, and only for those permanent
-- refusals (wrong_amount, wrong_token) calls checkout.fail_session_as_job(id,
-- 'checkout_reference_consumed'). Never for "not mined yet", "not enough confirmations", RPC errors,
-- nor for a mint to a wallet that prepared no payment (the page's confirmation may still complete
-- that one). The hosted page's confirmation does not set FAILED: it answers the refusal (400) and
-- leaves the verdict to the reconciler, so there is one place that decides.
--
-- FAILED is terminal: no payment starts (record_payment_attempt: PT409 checkout_not_payable), nothing
-- completes it (complete_locked_session: PT409 checkout_not_payable), the reconciler drops it from
-- its work lists, and reads show FAILED with failure_reason.
--
-- ## Also here
--
--   * checkout.sessions_to_search_for_mints: the reconciler's second work list, one row per open
--     session with the payers of its attempts, for the CheckoutMinted log search (attempts whose
--     page closed before the wallet answered have no hash to check).
--   * checkout.claim_webhook_deliveries returns each delivery's owner_id and created_at too, which
--     the dispatcher needs (the secret's associated data, the retry horizon's start).
--   * collections.token_symbol: the ERC-20's symbol() read at registration (null for the native
--     currency, for rows registered before, and for a token without a readable symbol), shown by
--     the hosted page; session_by_client_secret returns it, and the session's failure_reason.

-- ============================================================================================
-- The payment token's symbol
-- ============================================================================================
alter table checkout.collections
  add column token_symbol text check (char_length(token_symbol) between 1 and 32);
grant insert (token_symbol) on checkout.collections to authenticated;

-- The client-safe session, as in 20261123000400, with token_symbol and failure_reason. A new
-- result type needs drop and create; the grant is repeated.
drop function checkout.session_by_client_secret(core.object_id, bytea);
create function checkout.session_by_client_secret(p_session_id core.object_id, p_client_secret_hash bytea)
  returns table (
    id                 core.object_id,
    status             text,
    expires_at         timestamptz,
    items              jsonb,
    price              numeric,
    payment_methods    jsonb,
    allowed_origin     text,
    chain_id           bigint,
    collection_address text,
    payment_token      text,
    token_decimals     smallint,
    pricing            text,
    tx_hash            text,
    completed_at       timestamptz,
    token_symbol       text,
    failure_reason     text
  )
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    return query
      select s.id, checkout.session_status(s), s.expires_at, s.request -> 'items', s.price::numeric,
             s.request -> 'paymentMethods', s.request ->> 'allowedOrigin', c.chain_id, c.address,
             c.payment_token, c.token_decimals, c.pricing, s.tx_hash, s.completed_at, c.token_symbol,
             s.failure_reason
      from checkout.sessions s
      join checkout.collections c on c.id = s.collection_id
      where s.id = p_session_id and s.client_secret_hash = p_client_secret_hash;
  end
  $$;
revoke execute on function checkout.session_by_client_secret(core.object_id, bytea) from public;
grant execute on function checkout.session_by_client_secret(core.object_id, bytea) to anon;

-- ============================================================================================
-- The dispatcher's claim
-- ============================================================================================
-- As in 20261123000400, returning owner_id (it names the signing secret's associated data) and
-- created_at (the retry horizon runs from it) too, so the dispatcher needs no second statement per
-- claim. A new result type needs drop and create; the grant is repeated.
drop function checkout.claim_webhook_deliveries(integer, integer);
create function checkout.claim_webhook_deliveries(p_limit integer, p_lease_seconds integer default 60)
  returns table (
    delivery_id                core.object_id,
    event_id                   text,
    session_id                 core.object_id,
    webhook_url                text,
    payload                    jsonb,
    attempts                   integer,
    secret_ciphertext          bytea,
    previous_secret_ciphertext bytea,
    owner_id                   core.object_id,
    created_at                 timestamptz
  )
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  begin
    return query
      with due as (
        select d.id from checkout.webhook_deliveries d
        where d.status = 'pending' and d.next_attempt_at <= now()
          and (d.claimed_until is null or d.claimed_until <= now())
        order by d.next_attempt_at
        limit least(greatest(coalesce(p_limit, 1), 1), 1000)
        for update skip locked
      )
      update checkout.webhook_deliveries d
        set claimed_until = now() + make_interval(secs => greatest(coalesce(p_lease_seconds, 60), 1))
        from due
        where d.id = due.id
        returning d.id, d.event_id, d.session_id, d.webhook_url, d.payload, d.attempts,
          (select w.secret_ciphertext from checkout.webhook_secrets w
            where w.owner_id = d.owner_id and w.webhook_url = d.webhook_url),
          (select w.previous_secret_ciphertext from checkout.webhook_secrets w
            where w.owner_id = d.owner_id and w.webhook_url = d.webhook_url and w.previous_valid_until > now()),
          d.owner_id, d.created_at;
  end
  $$;
revoke execute on function checkout.claim_webhook_deliveries(integer, integer) from public;
grant execute on function checkout.claim_webhook_deliveries(integer, integer) to service_jobs;

-- ============================================================================================
-- The reconciler's log search
-- ============================================================================================
-- One row per session that is neither COMPLETED nor FAILED and has payment attempts prepared before
-- its expiry and in the last 3 days (the same horizon as payment_attempts_to_reconcile), with the
-- payers of those attempts: a mint found for the session's reference completes it only when minted
-- to one of them (an EXPIRED session completes only for such a payer anyway). Newest attempt first:
-- the log search covers recent blocks only, so under the limit recent checkouts come first.
create function checkout.sessions_to_search_for_mints(p_limit integer)
  returns table (
    session_id         core.object_id,
    chain_id           bigint,
    collection_address text,
    price              numeric,
    payment_token      text,
    payers             text[]
  )
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    return query
      select s.id, c.chain_id, c.address, s.price::numeric, c.payment_token,
             array_agg(distinct lower(a.payer_address))
      from checkout.sessions s
      join checkout.collections c on c.id = s.collection_id
      join checkout.payment_attempts a on a.session_id = s.id
      where s.status in ('PENDING', 'EXPIRED')
        and a.prepared_at < s.expires_at
        and a.prepared_at > now() - interval '3 days'
      group by s.id, c.chain_id, c.address, c.payment_token
      order by max(a.prepared_at) desc, s.id
      limit least(greatest(coalesce(p_limit, 1), 1), 5000);
  end
  $$;

-- ============================================================================================
-- FAILED
-- ============================================================================================
-- The reconciler's terminal failure (see the header): the session row locked, PENDING or EXPIRED
-- (stored or as read) → FAILED with p_reason, a stable code (lower-case letters, digits and _).
-- Already FAILED: returned unchanged (concurrent reconcilers); COMPLETED: PT409 checkout_not_open
-- with {"status": ...}; unknown id: PT404 checkout_not_found; a reason that is no code: PT400
-- validation_failed. Security definer: service_jobs holds no update of live sessions.
create function checkout.fail_session_as_job(p_session_id core.object_id, p_reason text)
  returns checkout.sessions
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_session checkout.sessions;
    v_status text;
  begin
    if coalesce(p_reason, '') !~ '^[a-z][a-z0-9_]{0,99}$' then
      raise exception 'the failure reason must be a code such as checkout_reference_consumed'
        using errcode = 'PT400', hint = 'validation_failed';
    end if;
    select * into v_session from checkout.sessions s where s.id = p_session_id for update;
    if v_session.id is null then
      raise exception 'no such checkout' using errcode = 'PT404', hint = 'checkout_not_found';
    end if;
    v_status := checkout.session_status(v_session);
    if v_status = 'FAILED' then
      return v_session;
    end if;
    if v_status not in ('PENDING', 'EXPIRED') then
      raise exception 'this checkout is % and cannot fail', v_status
        using errcode = 'PT409', hint = 'checkout_not_open',
              detail = json_build_object('status', v_status)::text;
    end if;
    update checkout.sessions s set status = 'FAILED', failure_reason = p_reason
      where s.id = v_session.id
      returning * into v_session;
    return v_session;
  end
  $$;

revoke execute on function checkout.sessions_to_search_for_mints(integer) from public;
revoke execute on function checkout.fail_session_as_job(core.object_id, text) from public;
grant execute on function checkout.sessions_to_search_for_mints(integer) to service_jobs;
grant execute on function checkout.fail_session_as_job(core.object_id, text) to service_jobs;
