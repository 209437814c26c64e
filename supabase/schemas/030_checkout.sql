-- Checkout: EVM collections, idempotent checkout sessions, the hosted page's payment attempts and
-- completion, NFTs, the `checkout.completed` webhook outbox with its signing secrets, and the
-- reconciler that completes (or fails) checkouts whose page closed.
--
-- Postgres decides what two API replicas racing on the same order, transaction or delivery get:
--   * one session per (owner, externalOrderId): a unique constraint and `on conflict do nothing`;
--   * one checkout per transaction hash: a unique constraint on sessions.tx_hash;
--   * one NFT row per (collection, token id);
--   * one pending delivery per session; deliveries claimed with `for update skip locked`.
--
-- Who calls what:
--   store backend (API key, role `authenticated`): collections, create_session, own sessions, the
--     delivery log, webhook secrets, requeue_webhook. RLS: owners see their own rows only.
--   hosted checkout page (client secret, role `anon`): session_by_client_secret,
--     record_payment_attempt, record_payment_transaction, payer_of_transaction, complete_session.
--     The page has no user, so these are security definer functions that authenticate by the
--     SHA-256 of the client secret together with the session id, and return or change that one
--     session only; allowed_origin_of answers the page's frame-ancestors by id alone. anon holds no
--     table privilege in this schema.
--   background jobs (role `service_jobs`): expire_sessions (pg_cron, every minute) and the webhook
--     dispatcher (claim_webhook_deliveries, record_webhook_attempt), security invoker under RLS
--     policies written for that role; the reconciler's payment_attempts_to_reconcile,
--     sessions_to_search_for_mints, complete_session_as_job and fail_session_as_job, security
--     definer (they read, complete and fail any owner's session).
--
-- Errors (PostgREST style, mapped by the gateway): PT400 validation_failed, price_not_allowed,
-- payment_method_not_enabled, payment_mismatch; PT404 collection_not_found, checkout_not_found,
-- payment_attempt_not_found, webhook_secret_not_found; PT409 idempotency_conflict (detail
-- {"differingFields": [...]}), checkout_not_payable (detail {"status": ...}),
-- transaction_already_used, checkout_not_completed (detail {"status": ...}),
-- attempt_has_another_transaction, delivery_not_pending, checkout_not_open (detail {"status": ...}).
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

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA checkout;

GRANT USAGE ON SCHEMA checkout TO anon;
GRANT USAGE ON SCHEMA checkout TO authenticated;
GRANT USAGE ON SCHEMA checkout TO service_role;
GRANT USAGE ON SCHEMA checkout TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema checkout revoke all on tables from public;


-- The hosted checkout page (GET /checkout/<id>) is served with
-- `Content-Security-Policy: frame-ancestors <allowedOrigin>`, so no other origin can embed it.
-- The page request carries no client secret (it is in the URL fragment, which browsers never send),
-- so the gateway needs the session's allowed origin by id alone. This function returns exactly that
-- origin and nothing else: the origin is not a secret (the storefront shows itself to every
-- visitor), and an unknown id answers null, which the gateway serves with `frame-ancestors 'none'`.
CREATE FUNCTION checkout.allowed_origin_of(p_session_id core.object_id) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$ select s.request ->> 'allowedOrigin' from checkout.sessions s where s.id = p_session_id $$;

REVOKE ALL ON FUNCTION checkout.allowed_origin_of(p_session_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.allowed_origin_of(p_session_id core.object_id) TO anon;


-- The dispatcher's claim: up to p_limit due deliveries (1..1000), leased for p_lease_seconds so a
-- crashed dispatcher's claims come back; skip locked, so replicas never wait for each other nor
-- take the same row. Returns what a delivery needs, so the dispatcher needs no second statement per
-- claim: the signing secrets' ciphertexts (the previous one while its overlap lasts), the owner (it
-- names the signing secret's associated data) and created_at (the retry horizon runs from it).
CREATE FUNCTION checkout.claim_webhook_deliveries(p_limit integer, p_lease_seconds integer DEFAULT 60) RETURNS TABLE(delivery_id core.object_id, event_id text, session_id core.object_id, webhook_url text, payload jsonb, attempts integer, secret_ciphertext bytea, previous_secret_ciphertext bytea, owner_id core.object_id, created_at timestamp with time zone)
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkout.claim_webhook_deliveries(p_limit integer, p_lease_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.claim_webhook_deliveries(p_limit integer, p_lease_seconds integer) TO service_jobs;


-- Sessions
-- `status` is the stored state; a PENDING session whose expires_at passed *reads* as EXPIRED before
-- the expiry job materialises it. Every read goes through checkout.session_status (the view
-- checkout.sessions_as_read and the functions below use it).
CREATE TABLE checkout.sessions (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    owner_id core.object_id DEFAULT core.current_user_id() NOT NULL,
    collection_id core.object_id NOT NULL,
    external_order_id text NOT NULL,
    request_fingerprint bytea NOT NULL,
    request jsonb NOT NULL,
    price numeric(78,0) NOT NULL,
    client_secret_hash bytea NOT NULL,
    client_secret_ciphertext bytea NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    failure_reason text,
    expires_at timestamp with time zone NOT NULL,
    tx_hash text,
    completed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT sessions_client_secret_hash_check CHECK ((octet_length(client_secret_hash) = 32)),
    CONSTRAINT sessions_completed_has_transaction CHECK (((status = 'COMPLETED'::text) = ((tx_hash IS NOT NULL) AND (completed_at IS NOT NULL)))),
    CONSTRAINT sessions_external_order_id_check CHECK (((char_length(external_order_id) >= 1) AND (char_length(external_order_id) <= 200))),
    CONSTRAINT sessions_failed_has_reason CHECK (((status = 'FAILED'::text) = (failure_reason IS NOT NULL))),
    CONSTRAINT sessions_failure_reason_check CHECK ((char_length(failure_reason) <= 1000)),
    CONSTRAINT sessions_price_check CHECK ((price >= (0)::numeric)),
    CONSTRAINT sessions_request_check CHECK ((jsonb_typeof(request) = 'object'::text)),
    CONSTRAINT sessions_request_fingerprint_check CHECK ((octet_length(request_fingerprint) = 32)),
    CONSTRAINT sessions_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'COMPLETED'::text, 'EXPIRED'::text, 'FAILED'::text]))),
    CONSTRAINT sessions_tx_hash_check CHECK ((tx_hash ~ '^0x[0-9a-f]{64}$'::text)),
    CONSTRAINT sessions_client_secret_hash_key UNIQUE (client_secret_hash),
    CONSTRAINT sessions_owner_external_order_key UNIQUE (owner_id, external_order_id),
    CONSTRAINT sessions_pkey PRIMARY KEY (id),
    CONSTRAINT sessions_tx_hash_key UNIQUE (tx_hash),
    CONSTRAINT sessions_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index sessions_collection_id_idx on checkout.sessions (collection_id);

create index sessions_owner_created_at_idx on checkout.sessions (owner_id, created_at desc, id desc);

create index sessions_pending_expires_at_idx on checkout.sessions (expires_at) where status = 'PENDING';

ALTER TABLE checkout.sessions ENABLE ROW LEVEL SECURITY;

create policy sessions_select_jobs on checkout.sessions
  for select to service_jobs
  using (status in ('PENDING', 'EXPIRED') and expires_at <= now());

create policy sessions_select_owner on checkout.sessions
  for select to authenticated
  using (owner_id = (select core.current_user_id()));

create policy sessions_update_jobs on checkout.sessions
  for update to service_jobs
  using (status = 'PENDING' and expires_at <= now())
  with check (status = 'EXPIRED');

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE checkout.sessions TO service_role;

GRANT SELECT(id) ON TABLE checkout.sessions TO authenticated;
GRANT SELECT(id) ON TABLE checkout.sessions TO service_jobs;

GRANT SELECT(owner_id),INSERT(owner_id) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(collection_id),INSERT(collection_id) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(external_order_id),INSERT(external_order_id) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(request_fingerprint),INSERT(request_fingerprint) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(request),INSERT(request) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(price),INSERT(price) ON TABLE checkout.sessions TO authenticated;

GRANT INSERT(client_secret_hash) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(client_secret_ciphertext),INSERT(client_secret_ciphertext) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(status) ON TABLE checkout.sessions TO authenticated;
GRANT SELECT(status),UPDATE(status) ON TABLE checkout.sessions TO service_jobs;

GRANT SELECT(failure_reason) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(expires_at),INSERT(expires_at) ON TABLE checkout.sessions TO authenticated;
GRANT SELECT(expires_at) ON TABLE checkout.sessions TO service_jobs;

GRANT SELECT(tx_hash) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(completed_at) ON TABLE checkout.sessions TO authenticated;

GRANT SELECT(created_at) ON TABLE checkout.sessions TO authenticated;


-- Completes a checkout after the gateway verified the receipt on-chain (success, chain, contract,
-- checkout reference, amount, token, NFT minted to the payer, confirmations). In one transaction:
-- the session row locked, COMPLETED with the transaction hash, the NFTs recorded, the webhook
-- queued (outbox row + NOTIFY checkout_webhooks with the delivery id).
--
-- Allowed from PENDING, and from EXPIRED (stored or as read) only when this payer prepared a
-- payment of this session before expires_at. Already COMPLETED with the same hash: returned
-- unchanged (the page may confirm twice); with another hash, or the hash completed another
-- checkout: PT409 transaction_already_used. FAILED, or EXPIRED without such an attempt: PT409
-- checkout_not_payable. Amount or token not what the session asks: PT400 payment_mismatch.
--
-- The work is checkout.complete_locked_session, on a session row its caller has locked; it is
-- executable by no role. Two doors lead to it: complete_session (the hosted page, by client secret)
-- and complete_session_as_job (the reconciler, as service_jobs, for a customer who paid and closed
-- the page). Both only after the gateway verified the receipt.
CREATE FUNCTION checkout.complete_locked_session(p_session checkout.sessions, p_tx_hash text, p_payer text, p_token_ids numeric[], p_amount numeric, p_payment_token text, p_block_number bigint) RETURNS checkout.sessions
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_session checkout.sessions := p_session;
    v_status text := checkout.session_status(v_session);
    v_collection checkout.collections;
    v_tx_hash text := lower(p_tx_hash);
    v_delivery_id core.object_id;
  begin
    if v_status = 'COMPLETED' then
      if v_session.tx_hash = v_tx_hash then
        return v_session;
      end if;
      raise exception 'this checkout was completed by another transaction'
        using errcode = 'PT409', hint = 'transaction_already_used';
    end if;
    if v_status = 'FAILED'
       or (v_status = 'EXPIRED' and not exists (
             select from checkout.payment_attempts a
             where a.session_id = v_session.id and a.prepared_at < v_session.expires_at
               and lower(a.payer_address) = lower(p_payer))) then
      raise exception 'this checkout is % and cannot complete', v_status
        using errcode = 'PT409', hint = 'checkout_not_payable',
              detail = json_build_object('status', v_status)::text;
    end if;

    select * into v_collection from checkout.collections c where c.id = v_session.collection_id;
    if p_amount is distinct from v_session.price
       or lower(coalesce(p_payment_token, '')) <> lower(coalesce(v_collection.payment_token, '')) then
      raise exception 'the payment does not match the checkout'
        using errcode = 'PT400', hint = 'payment_mismatch',
              detail = json_build_object('expectedAmount', v_session.price::text,
                                         'expectedPaymentToken', v_collection.payment_token)::text;
    end if;
    if p_token_ids is null or cardinality(p_token_ids) = 0 then
      raise exception 'no minted token ids' using errcode = 'PT400', hint = 'validation_failed';
    end if;

    begin
      update checkout.sessions s
        set status = 'COMPLETED', tx_hash = v_tx_hash, completed_at = now()
        where s.id = v_session.id
        returning * into v_session;
    exception when unique_violation then
      raise exception 'transaction % already completed another checkout', v_tx_hash
        using errcode = 'PT409', hint = 'transaction_already_used';
    end;

    update checkout.payment_attempts a set tx_hash = v_tx_hash
      where a.id = (select a2.id from checkout.payment_attempts a2
                    where a2.session_id = v_session.id and lower(a2.payer_address) = lower(p_payer)
                    order by a2.prepared_at desc limit 1);

    begin
      insert into checkout.nfts (session_id, collection_id, token_id, owner_address)
        select v_session.id, v_session.collection_id, t, p_payer from unnest(p_token_ids) t;
    exception when unique_violation then
      raise exception 'a token of this transaction is already recorded for another checkout'
        using errcode = 'PT409', hint = 'transaction_already_used';
    end;

    -- SPEC 6.1's payload content, with these field names (the REST docs list them).
    insert into checkout.webhook_deliveries (event_id, session_id, owner_id, webhook_url, payload)
      values (
        'checkout-completed-' || v_session.id, v_session.id, v_session.owner_id,
        v_session.request ->> 'webhookUrl',
        jsonb_build_object(
          'type', 'checkout.completed',
          'checkoutId', v_session.id,
          'externalOrderId', v_session.external_order_id,
          'transactionHash', v_tx_hash,
          'blockNumber', p_block_number,
          'amount', v_session.price::text,
          'paymentToken', v_collection.payment_token,
          'chainId', v_collection.chain_id,
          'collectionAddress', v_collection.address,
          'tokenIds', (select jsonb_agg(t::text order by t) from unnest(p_token_ids) t),
          'ownerWallet', p_payer,
          'completedAt', to_char(v_session.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
      returning id into v_delivery_id;
    perform pg_notify('checkout_webhooks', v_delivery_id);
    return v_session;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.complete_locked_session(p_session checkout.sessions, p_tx_hash text, p_payer text, p_token_ids numeric[], p_amount numeric, p_payment_token text, p_block_number bigint) FROM PUBLIC;


-- The hosted page's confirmation: the session of this id and client secret (PT404
-- checkout_not_found otherwise), locked, then completed as above.
CREATE FUNCTION checkout.complete_session(p_session_id core.object_id, p_client_secret_hash bytea, p_tx_hash text, p_payer text, p_token_ids numeric[], p_amount numeric, p_payment_token text, p_block_number bigint) RETURNS checkout.sessions
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    return checkout.complete_locked_session(
      checkout.session_for_client_secret(p_session_id, p_client_secret_hash, true),
      p_tx_hash, p_payer, p_token_ids, p_amount, p_payment_token, p_block_number);
  end
  $$;

REVOKE ALL ON FUNCTION checkout.complete_session(p_session_id core.object_id, p_client_secret_hash bytea, p_tx_hash text, p_payer text, p_token_ids numeric[], p_amount numeric, p_payment_token text, p_block_number bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.complete_session(p_session_id core.object_id, p_client_secret_hash bytea, p_tx_hash text, p_payer text, p_token_ids numeric[], p_amount numeric, p_payment_token text, p_block_number bigint) TO anon;


-- The reconciler's completion (service_jobs): a customer paid and closed the page, and the job
-- found the mint (an attempt's reported hash, or the collection's logs carrying the checkout
-- reference) and verified its receipt like the page's confirmation does. Same rules; PT404
-- checkout_not_found for an unknown id. Security definer like the page's door: completing writes
-- the session, NFTs and outbox of any owner, which service_jobs holds no grant for.
CREATE FUNCTION checkout.complete_session_as_job(p_session_id core.object_id, p_tx_hash text, p_payer text, p_token_ids numeric[], p_amount numeric, p_payment_token text, p_block_number bigint) RETURNS checkout.sessions
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_session checkout.sessions;
  begin
    select * into v_session from checkout.sessions s where s.id = p_session_id for update;
    if v_session.id is null then
      raise exception 'no such checkout' using errcode = 'PT404', hint = 'checkout_not_found';
    end if;
    return checkout.complete_locked_session(v_session, p_tx_hash, p_payer, p_token_ids, p_amount,
                                            p_payment_token, p_block_number);
  end
  $$;

REVOKE ALL ON FUNCTION checkout.complete_session_as_job(p_session_id core.object_id, p_tx_hash text, p_payer text, p_token_ids numeric[], p_amount numeric, p_payment_token text, p_block_number bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.complete_session_as_job(p_session_id core.object_id, p_tx_hash text, p_payer text, p_token_ids numeric[], p_amount numeric, p_payment_token text, p_block_number bigint) TO service_jobs;


-- Creating a session: one idempotent function
-- The gateway has validated the request, computed its fingerprint (SHA-256 of the canonical JSON),
-- generated a client secret, hashed it and encrypted it. Returns the session (created = true) or
-- the existing one for the same order and the same request (created = false, with the first call's
-- secret ciphertext, so the replay answers the same secret and URL).
--
-- Security invoker: the caller's collection is found under RLS (another owner's answers like an
-- unknown one: 404), and the insert policy checks the row. The unique constraint decides races:
-- `on conflict do nothing` waits for a concurrent insert of the same order and then skips it; the
-- next statement (a new snapshot in READ COMMITTED) reads the winner's committed row.
CREATE FUNCTION checkout.create_session(p_collection_id core.object_id, p_external_order_id text, p_fingerprint bytea, p_request jsonb, p_client_secret_hash bytea, p_client_secret_ciphertext bytea, p_expires_at timestamp with time zone) RETURNS TABLE(id core.object_id, owner_id core.object_id, collection_id core.object_id, external_order_id text, request jsonb, price numeric, client_secret_ciphertext bytea, status text, expires_at timestamp with time zone, created_at timestamp with time zone, created boolean)
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $_$
  declare
    v_owner core.object_id := core.current_user_id();
    v_collection checkout.collections;
    v_price numeric(78, 0);
    v_session checkout.sessions;
    v_differing text[];
  begin
    select * into v_collection from checkout.collections c where c.id = p_collection_id;
    if not found then
      raise exception 'no collection % of yours', p_collection_id
        using errcode = 'PT404', hint = 'collection_not_found';
    end if;

    if p_expires_at is null or p_expires_at <= now() then
      raise exception 'expires_at must be in the future' using errcode = 'PT400', hint = 'validation_failed';
    end if;
    if coalesce(p_request ->> 'price', '') !~ '^[0-9]{1,78}$' then
      raise exception 'request.price must be a decimal string of the amount in the token''s smallest unit'
        using errcode = 'PT400', hint = 'price_not_allowed';
    end if;
    v_price := (p_request ->> 'price')::numeric;
    -- SPEC 4.4 rule 3: a static-price collection accepts only its mint price.
    if v_collection.pricing = 'static' and v_price <> v_collection.mint_price then
      raise exception 'this collection sells at its mint price only'
        using errcode = 'PT400', hint = 'price_not_allowed',
              detail = json_build_object('mintPrice', v_collection.mint_price::text)::text;
    end if;
    if coalesce(p_request -> 'paymentMethods', '[]') ? 'provider_card'
       and not (v_collection.chain_id = any (v_collection.provider_card_chain_ids)) then
      raise exception 'provider_card is not enabled for this collection on chain %', v_collection.chain_id
        using errcode = 'PT400', hint = 'payment_method_not_enabled',
              detail = json_build_object('paymentMethod', 'provider_card', 'chainId', v_collection.chain_id)::text;
    end if;

    -- A concurrent session of the same order may be deleted between the insert and the read (only
    -- by an operator); trying again covers that.
    for i in 1..3 loop
      insert into checkout.sessions as s (owner_id, collection_id, external_order_id, request_fingerprint,
                                          request, price, client_secret_hash, client_secret_ciphertext, expires_at)
        values (v_owner, p_collection_id, p_external_order_id, p_fingerprint, p_request, v_price,
                p_client_secret_hash, p_client_secret_ciphertext, p_expires_at)
        on conflict on constraint sessions_owner_external_order_key do nothing
        returning s.id, s.owner_id, s.collection_id, s.external_order_id, s.request, s.price,
                  s.client_secret_ciphertext, s.status, s.expires_at, s.created_at
        into v_session.id, v_session.owner_id, v_session.collection_id, v_session.external_order_id,
             v_session.request, v_session.price, v_session.client_secret_ciphertext, v_session.status,
             v_session.expires_at, v_session.created_at;
      if v_session.id is not null then
        return query select v_session.id, v_session.owner_id, v_session.collection_id,
          v_session.external_order_id, v_session.request, v_session.price::numeric,
          v_session.client_secret_ciphertext, v_session.status, v_session.expires_at,
          v_session.created_at, true;
        return;
      end if;

      select s.id, s.owner_id, s.collection_id, s.external_order_id, s.request_fingerprint, s.request,
             s.price, s.client_secret_ciphertext, s.status, s.expires_at, s.created_at
        into v_session.id, v_session.owner_id, v_session.collection_id, v_session.external_order_id,
             v_session.request_fingerprint, v_session.request, v_session.price,
             v_session.client_secret_ciphertext, v_session.status, v_session.expires_at, v_session.created_at
        from checkout.sessions s
        where s.owner_id = v_owner and s.external_order_id = p_external_order_id;
      if v_session.id is not null then
        if v_session.request_fingerprint = p_fingerprint and v_session.collection_id = p_collection_id then
          return query select v_session.id, v_session.owner_id, v_session.collection_id,
            v_session.external_order_id, v_session.request, v_session.price::numeric,
            v_session.client_secret_ciphertext, checkout.session_status(v_session), v_session.expires_at,
            v_session.created_at, false;
          return;
        end if;
        -- Top-level request keys whose values differ (or that only one side has), sorted.
        select coalesce(array_agg(k order by k), '{}') into v_differing
          from (
            select coalesce(a.key, b.key) as k
            from jsonb_each(p_request) a
            full join jsonb_each(v_session.request) b on b.key = a.key
            where a.value is distinct from b.value
            union
            select 'collectionId' where v_session.collection_id <> p_collection_id
          ) d;
        raise exception 'externalOrderId % was already used with different checkout data', p_external_order_id
          using errcode = 'PT409', hint = 'idempotency_conflict',
                detail = json_build_object('differingFields', v_differing)::text;
      end if;
    end loop;
    raise exception 'could not create or find the session of order %', p_external_order_id
      using errcode = 'PT503', hint = 'try_again';
  end
  $_$;

REVOKE ALL ON FUNCTION checkout.create_session(p_collection_id core.object_id, p_external_order_id text, p_fingerprint bytea, p_request jsonb, p_client_secret_hash bytea, p_client_secret_ciphertext bytea, p_expires_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.create_session(p_collection_id core.object_id, p_external_order_id text, p_fingerprint bytea, p_request jsonb, p_client_secret_hash bytea, p_client_secret_ciphertext bytea, p_expires_at timestamp with time zone) TO authenticated;


-- The secret of (caller, URL): the stored one, or p_new_ciphertext stored now. Concurrent first
-- calls agree on one secret (the primary key decides). Returns the ciphertext to decrypt.
CREATE FUNCTION checkout.ensure_webhook_secret(p_webhook_url text, p_new_ciphertext bytea) RETURNS bytea
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_ciphertext bytea;
  begin
    insert into checkout.webhook_secrets (owner_id, webhook_url, secret_ciphertext)
      values (core.current_user_id(), p_webhook_url, p_new_ciphertext)
      on conflict (owner_id, webhook_url) do nothing
      returning secret_ciphertext into v_ciphertext;
    if v_ciphertext is null then
      select w.secret_ciphertext into v_ciphertext from checkout.webhook_secrets w
        where w.owner_id = core.current_user_id() and w.webhook_url = p_webhook_url;
    end if;
    return v_ciphertext;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.ensure_webhook_secret(p_webhook_url text, p_new_ciphertext bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.ensure_webhook_secret(p_webhook_url text, p_new_ciphertext bytea) TO authenticated;


-- Jobs (service_jobs, security invoker, under the policies below)
-- Materialises EXPIRED for PENDING sessions past expires_at; returns how many. Reads never wait for
-- it (checkout.session_status), it only keeps the stored state honest for the reconciler and reports.
CREATE FUNCTION checkout.expire_sessions() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_expired integer;
  begin
    update checkout.sessions set status = 'EXPIRED'
      where status = 'PENDING' and expires_at <= now();
    get diagnostics v_expired = row_count;
    return v_expired;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.expire_sessions() FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.expire_sessions() TO service_jobs;


-- The reconciler's terminal failure (see "When a session is FAILED" above): the session row locked,
-- PENDING or EXPIRED (stored or as read) → FAILED with p_reason, a stable code (lower-case letters,
-- digits and _). Already FAILED: returned unchanged (concurrent reconcilers); COMPLETED: PT409
-- checkout_not_open with {"status": ...}; unknown id: PT404 checkout_not_found; a reason that is no
-- code: PT400 validation_failed. Security definer: service_jobs holds no update of live sessions.
CREATE FUNCTION checkout.fail_session_as_job(p_session_id core.object_id, p_reason text) RETURNS checkout.sessions
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $_$
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
  $_$;

REVOKE ALL ON FUNCTION checkout.fail_session_as_job(p_session_id core.object_id, p_reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.fail_session_as_job(p_session_id core.object_id, p_reason text) TO service_jobs;


-- EVM addresses as the gateway writes them (EIP-55 checksummed; the checksum is the gateway's
-- check, the shape is ours). Compared case-insensitively everywhere.
CREATE FUNCTION checkout.is_evm_address(p text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $_$ select p ~ '^0x[0-9a-fA-F]{40}$' $_$;

REVOKE ALL ON FUNCTION checkout.is_evm_address(p text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.is_evm_address(p text) TO authenticated;
GRANT ALL ON FUNCTION checkout.is_evm_address(p text) TO service_role;


-- Confirmation: the payer whose attempt of this session reported this transaction hash
-- (record_payment_transaction), the latest such attempt; null when no attempt did. The page has no
-- table privilege (anon), so this is a security definer function authenticated like the others by
-- the session id and its client secret's hash; a wrong secret also answers null (the gateway has
-- already answered 404 for it after session_by_client_secret).
CREATE FUNCTION checkout.payer_of_transaction(p_session_id core.object_id, p_client_secret_hash bytea, p_tx_hash text) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select a.payer_address
    from checkout.sessions s
    join checkout.payment_attempts a on a.session_id = s.id
    where s.id = p_session_id and s.client_secret_hash = p_client_secret_hash and a.tx_hash = lower(p_tx_hash)
    order by a.prepared_at desc
    limit 1
  $$;

REVOKE ALL ON FUNCTION checkout.payer_of_transaction(p_session_id core.object_id, p_client_secret_hash bytea, p_tx_hash text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.payer_of_transaction(p_session_id core.object_id, p_client_secret_hash bytea, p_tx_hash text) TO anon;


-- The reconciler (service_jobs): checkouts whose customer paid and closed the page
-- The reconciler's work list (service_jobs): payment attempts of sessions that are neither
-- COMPLETED nor FAILED, prepared before their session's expiry and in the last 3 days (about the
-- webhook's retry horizon; older ones are left to an operator). Attempts with a reported hash come
-- first, oldest first: every page that prepared a payment and was left leaves an attempt without one
-- for 3 days, and under the limit those must not crowd out the cheap receipt checks of customers
-- who paid and closed the page. With a hash: check its receipt; without: search the collection's
-- logs for the checkout reference from prepared_at on. Security definer: it reads every owner's
-- sessions, which service_jobs cannot.
CREATE FUNCTION checkout.payment_attempts_to_reconcile(p_limit integer) RETURNS TABLE(attempt_id core.object_id, session_id core.object_id, payer_address text, chain_id bigint, tx_hash text, prepared_at timestamp with time zone, collection_address text, price numeric, payment_token text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkout.payment_attempts_to_reconcile(p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.payment_attempts_to_reconcile(p_limit integer) TO service_jobs;


-- Payment attempts: a payer asked the hosted page for the transactions to sign
CREATE TABLE checkout.payment_attempts (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    session_id core.object_id NOT NULL,
    payer_address text NOT NULL,
    chain_id bigint NOT NULL,
    prepared_at timestamp with time zone DEFAULT now() NOT NULL,
    tx_hash text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT payment_attempts_payer_address_check CHECK (checkout.is_evm_address(payer_address)),
    CONSTRAINT payment_attempts_tx_hash_check CHECK ((tx_hash ~ '^0x[0-9a-f]{64}$'::text)),
    CONSTRAINT payment_attempts_pkey PRIMARY KEY (id),
    CONSTRAINT payment_attempts_session_id_fkey FOREIGN KEY (session_id) REFERENCES checkout.sessions(id) ON DELETE CASCADE
);

create index payment_attempts_prepared_at_idx on checkout.payment_attempts (prepared_at);

create index payment_attempts_session_id_idx on checkout.payment_attempts (session_id, prepared_at);

ALTER TABLE checkout.payment_attempts ENABLE ROW LEVEL SECURITY;

create policy payment_attempts_select_owner on checkout.payment_attempts
  for select to authenticated
  using (exists (select from checkout.sessions s where s.id = session_id));

GRANT SELECT ON TABLE checkout.payment_attempts TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE checkout.payment_attempts TO service_role;


-- Records that the page prepared a payment for p_payer: only while the session reads PENDING
-- (SPEC 3: no new payment starts after expiry). PT409 checkout_not_payable with {"status": ...}.
-- The session row is locked, so an attempt and the expiry are ordered.
CREATE FUNCTION checkout.record_payment_attempt(p_session_id core.object_id, p_client_secret_hash bytea, p_payer text) RETURNS checkout.payment_attempts
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_session checkout.sessions := checkout.session_for_client_secret(p_session_id, p_client_secret_hash, true);
    v_status text := checkout.session_status(v_session);
    v_attempt checkout.payment_attempts;
  begin
    if v_status <> 'PENDING' then
      raise exception 'this checkout is % and takes no new payment', v_status
        using errcode = 'PT409', hint = 'checkout_not_payable',
              detail = json_build_object('status', v_status)::text;
    end if;
    if not checkout.is_evm_address(p_payer) then
      raise exception 'the payer is not an EVM address' using errcode = 'PT400', hint = 'validation_failed';
    end if;
    insert into checkout.payment_attempts (session_id, payer_address, chain_id)
      select v_session.id, p_payer, c.chain_id from checkout.collections c where c.id = v_session.collection_id
      returning * into v_attempt;
    return v_attempt;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.record_payment_attempt(p_session_id core.object_id, p_client_secret_hash bytea, p_payer text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.record_payment_attempt(p_session_id core.object_id, p_client_secret_hash bytea, p_payer text) TO anon;


-- The page reports the hash of the transaction it broadcast for an attempt, before it waits for the
-- receipt: if the customer closes the page, the reconciler still knows where to look. Allowed
-- whatever the session's state (the transaction was prepared while it was payable). PT404
-- payment_attempt_not_found for another session's or an unknown attempt; PT409
-- attempt_has_another_transaction when the attempt already carries a different hash.
CREATE FUNCTION checkout.record_payment_transaction(p_session_id core.object_id, p_client_secret_hash bytea, p_attempt_id core.object_id, p_tx_hash text) RETURNS checkout.payment_attempts
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_session checkout.sessions := checkout.session_for_client_secret(p_session_id, p_client_secret_hash, false);
    v_attempt checkout.payment_attempts;
  begin
    select * into v_attempt from checkout.payment_attempts a
      where a.id = p_attempt_id and a.session_id = v_session.id
      for update;
    if v_attempt.id is null then
      raise exception 'no such payment attempt' using errcode = 'PT404', hint = 'payment_attempt_not_found';
    end if;
    if v_attempt.tx_hash is not null and v_attempt.tx_hash <> lower(p_tx_hash) then
      raise exception 'this payment attempt already has another transaction'
        using errcode = 'PT409', hint = 'attempt_has_another_transaction';
    end if;
    update checkout.payment_attempts a set tx_hash = lower(p_tx_hash) where a.id = v_attempt.id
      returning * into v_attempt;
    return v_attempt;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.record_payment_transaction(p_session_id core.object_id, p_client_secret_hash bytea, p_attempt_id core.object_id, p_tx_hash text) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.record_payment_transaction(p_session_id core.object_id, p_client_secret_hash bytea, p_attempt_id core.object_id, p_tx_hash text) TO anon;


-- One attempt's outcome. 2xx: delivered; 410: stopped; else pending again at p_next_attempt_at
-- (the dispatcher's backoff with jitter and Retry-After), or failed when it is null (gave up).
-- Every attempt is appended to webhook_attempts. Returns the delivery's new status; a delivery no
-- longer pending: PT409 delivery_not_pending.
CREATE FUNCTION checkout.record_webhook_attempt(p_delivery_id core.object_id, p_status_code integer, p_error text, p_next_attempt_at timestamp with time zone) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_status text;
  begin
    update checkout.webhook_deliveries d
      set attempts = d.attempts + 1,
          last_status_code = p_status_code,
          last_error = left(p_error, 2000),
          claimed_until = null,
          status = case
                     when p_status_code between 200 and 299 then 'delivered'
                     when p_status_code = 410 then 'stopped'
                     when p_next_attempt_at is null then 'failed'
                     else 'pending'
                   end,
          delivered_at = case when p_status_code between 200 and 299 then now() end,
          next_attempt_at = coalesce(p_next_attempt_at, d.next_attempt_at)
      where d.id = p_delivery_id and d.status = 'pending'
      returning d.status into v_status;
    if v_status is null then
      raise exception 'delivery % is not pending', p_delivery_id
        using errcode = 'PT409', hint = 'delivery_not_pending';
    end if;
    insert into checkout.webhook_attempts (delivery_id, status_code, error)
      values (p_delivery_id, p_status_code, left(p_error, 2000));
    return v_status;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.record_webhook_attempt(p_delivery_id core.object_id, p_status_code integer, p_error text, p_next_attempt_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.record_webhook_attempt(p_delivery_id core.object_id, p_status_code integer, p_error text, p_next_attempt_at timestamp with time zone) TO service_jobs;


-- Webhook outbox: one row per delivery of `checkout.completed`, and every attempt
CREATE TABLE checkout.webhook_deliveries (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    event_id text NOT NULL,
    session_id core.object_id NOT NULL,
    owner_id core.object_id NOT NULL,
    webhook_url text NOT NULL,
    payload jsonb NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    claimed_until timestamp with time zone,
    last_status_code integer,
    last_error text,
    delivered_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'stopped'::text, 'failed'::text]))),
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_deliveries_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE,
    CONSTRAINT webhook_deliveries_session_id_fkey FOREIGN KEY (session_id) REFERENCES checkout.sessions(id) ON DELETE CASCADE
);

create index webhook_deliveries_due_idx on checkout.webhook_deliveries (next_attempt_at) where status = 'pending';

CREATE UNIQUE INDEX webhook_deliveries_one_pending_per_session ON checkout.webhook_deliveries USING btree (session_id) WHERE (status = 'pending'::text);

create index webhook_deliveries_owner_id_idx on checkout.webhook_deliveries (owner_id);

create index webhook_deliveries_session_id_idx on checkout.webhook_deliveries (session_id, created_at);

ALTER TABLE checkout.webhook_deliveries ENABLE ROW LEVEL SECURITY;

create policy webhook_deliveries_select_jobs on checkout.webhook_deliveries
  for select to service_jobs
  using (true);

create policy webhook_deliveries_select_owner on checkout.webhook_deliveries
  for select to authenticated
  using (owner_id = (select core.current_user_id()));

create policy webhook_deliveries_update_jobs on checkout.webhook_deliveries
  for update to service_jobs
  using (status = 'pending')
  with check (true);

GRANT SELECT ON TABLE checkout.webhook_deliveries TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE checkout.webhook_deliveries TO service_role;
GRANT SELECT ON TABLE checkout.webhook_deliveries TO service_jobs;

GRANT UPDATE(status) ON TABLE checkout.webhook_deliveries TO service_jobs;

GRANT UPDATE(attempts) ON TABLE checkout.webhook_deliveries TO service_jobs;

GRANT UPDATE(next_attempt_at) ON TABLE checkout.webhook_deliveries TO service_jobs;

GRANT UPDATE(claimed_until) ON TABLE checkout.webhook_deliveries TO service_jobs;

GRANT UPDATE(last_status_code) ON TABLE checkout.webhook_deliveries TO service_jobs;

GRANT UPDATE(last_error) ON TABLE checkout.webhook_deliveries TO service_jobs;

GRANT UPDATE(delivered_at) ON TABLE checkout.webhook_deliveries TO service_jobs;


-- The store's retry: another delivery of the same event
-- POST .../webhook/retry. Security definer because request roles hold no insert on the outbox (an
-- owner must not write payloads); the owner check is explicit. Another owner's or an unknown
-- session: PT404 checkout_not_found; not COMPLETED (as read): PT409 checkout_not_completed. When a
-- delivery of the session is already waiting, returns that one (no duplicate queue).
CREATE FUNCTION checkout.requeue_webhook(p_session_id core.object_id) RETURNS checkout.webhook_deliveries
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_session checkout.sessions;
    v_status text;
    v_delivery checkout.webhook_deliveries;
  begin
    select * into v_session from checkout.sessions s
      where s.id = p_session_id and s.owner_id = core.current_user_id()
      for update;
    if v_session.id is null then
      raise exception 'no such checkout' using errcode = 'PT404', hint = 'checkout_not_found';
    end if;
    v_status := checkout.session_status(v_session);
    if v_status <> 'COMPLETED' then
      raise exception 'this checkout is %, not COMPLETED: there is no webhook to send', v_status
        using errcode = 'PT409', hint = 'checkout_not_completed',
              detail = json_build_object('status', v_status)::text;
    end if;
    select * into v_delivery from checkout.webhook_deliveries d
      where d.session_id = v_session.id and d.status = 'pending';
    if v_delivery.id is not null then
      -- Due now: the store asked for a delivery, not for the backoff.
      update checkout.webhook_deliveries d set next_attempt_at = least(d.next_attempt_at, now())
        where d.id = v_delivery.id returning * into v_delivery;
    else
      insert into checkout.webhook_deliveries (event_id, session_id, owner_id, webhook_url, payload)
        select d.event_id, d.session_id, d.owner_id, d.webhook_url, d.payload
        from checkout.webhook_deliveries d
        where d.session_id = v_session.id
        order by d.created_at
        limit 1
        returning * into v_delivery;
    end if;
    perform pg_notify('checkout_webhooks', v_delivery.id);
    return v_delivery;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.requeue_webhook(p_session_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.requeue_webhook(p_session_id core.object_id) TO authenticated;


-- Replaces the secret of (caller, URL); the old one keeps signing until now() + p_overlap.
-- PT404 webhook_secret_not_found when there is none.
CREATE FUNCTION checkout.rotate_webhook_secret(p_webhook_url text, p_new_ciphertext bytea, p_overlap interval) RETURNS timestamp with time zone
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_until timestamptz := now() + greatest(p_overlap, interval '0');
  begin
    update checkout.webhook_secrets w
      set previous_secret_ciphertext = w.secret_ciphertext, previous_valid_until = v_until,
          secret_ciphertext = p_new_ciphertext, rotated_at = now()
      where w.owner_id = core.current_user_id() and w.webhook_url = p_webhook_url;
    if not found then
      raise exception 'no webhook secret for this URL' using errcode = 'PT404', hint = 'webhook_secret_not_found';
    end if;
    return v_until;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.rotate_webhook_secret(p_webhook_url text, p_new_ciphertext bytea, p_overlap interval) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.rotate_webhook_secret(p_webhook_url text, p_new_ciphertext bytea, p_overlap interval) TO authenticated;


-- GET /checkout/sessions/<id> with X-Checkout-Client-Secret: the client-safe session, or no row.
-- Never the webhook URL, the owner, the external order id or any secret. With the failure reason
-- and the payment token's symbol, which the page shows.
CREATE FUNCTION checkout.session_by_client_secret(p_session_id core.object_id, p_client_secret_hash bytea) RETURNS TABLE(id core.object_id, status text, expires_at timestamp with time zone, items jsonb, price numeric, payment_methods jsonb, allowed_origin text, chain_id bigint, collection_address text, payment_token text, token_decimals smallint, pricing text, tx_hash text, completed_at timestamp with time zone, token_symbol text, failure_reason text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkout.session_by_client_secret(p_session_id core.object_id, p_client_secret_hash bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.session_by_client_secret(p_session_id core.object_id, p_client_secret_hash bytea) TO anon;


-- The hosted page's functions: authenticated by the client secret
-- The session with this id and client-secret hash, locked when p_lock; raises PT404
-- checkout_not_found otherwise (a wrong secret answers exactly like an unknown id). Not executable
-- by any request role: only the definer functions below call it.
CREATE FUNCTION checkout.session_for_client_secret(p_session_id core.object_id, p_client_secret_hash bytea, p_lock boolean) RETURNS checkout.sessions
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_session checkout.sessions;
  begin
    if p_lock then
      select * into v_session from checkout.sessions s
        where s.id = p_session_id and s.client_secret_hash = p_client_secret_hash
        for update;
    else
      select * into v_session from checkout.sessions s
        where s.id = p_session_id and s.client_secret_hash = p_client_secret_hash;
    end if;
    if v_session.id is null then
      raise exception 'no such checkout' using errcode = 'PT404', hint = 'checkout_not_found';
    end if;
    return v_session;
  end
  $$;

REVOKE ALL ON FUNCTION checkout.session_for_client_secret(p_session_id core.object_id, p_client_secret_hash bytea, p_lock boolean) FROM PUBLIC;


CREATE FUNCTION checkout.session_status(s checkout.sessions) RETURNS text
    LANGUAGE sql STABLE
    AS $$ select checkout.status_as_read(s.status, s.expires_at) $$;

REVOKE ALL ON FUNCTION checkout.session_status(s checkout.sessions) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.session_status(s checkout.sessions) TO authenticated;
GRANT ALL ON FUNCTION checkout.session_status(s checkout.sessions) TO service_role;


-- The reconciler's second work list, for the CheckoutMinted log search (attempts whose page closed
-- before the wallet answered have no hash to check): one row per session that is neither COMPLETED
-- nor FAILED and has payment attempts prepared before its expiry and in the last 3 days (the same
-- horizon as payment_attempts_to_reconcile), with the payers of those attempts: a mint found for
-- the session's reference completes it only when minted to one of them (an EXPIRED session
-- completes only for such a payer anyway). Newest attempt first: the log search covers recent
-- blocks only, so under the limit recent checkouts come first.
CREATE FUNCTION checkout.sessions_to_search_for_mints(p_limit integer) RETURNS TABLE(session_id core.object_id, chain_id bigint, collection_address text, price numeric, payment_token text, payers text[])
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION checkout.sessions_to_search_for_mints(p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.sessions_to_search_for_mints(p_limit integer) TO service_jobs;


-- The session's state as read: PENDING past expires_at is EXPIRED, whether or not the job ran.
-- Two forms: of the stored status and expiry (for the view: a whole-row reference would need the
-- select privilege on client_secret_hash too), and of a row. No SET clause, so both inline.
CREATE FUNCTION checkout.status_as_read(p_status text, p_expires_at timestamp with time zone) RETURNS text
    LANGUAGE sql STABLE
    AS $$
    select case when p_status = 'PENDING' and p_expires_at <= pg_catalog.now() then 'EXPIRED' else p_status end
  $$;

REVOKE ALL ON FUNCTION checkout.status_as_read(p_status text, p_expires_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION checkout.status_as_read(p_status text, p_expires_at timestamp with time zone) TO authenticated;
GRANT ALL ON FUNCTION checkout.status_as_read(p_status text, p_expires_at timestamp with time zone) TO service_role;


-- Collections: deployed EVM collections an owner sells through checkout
CREATE TABLE checkout.collections (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    owner_id core.object_id DEFAULT core.current_user_id() NOT NULL,
    chain_id bigint NOT NULL,
    address text NOT NULL,
    pricing text NOT NULL,
    mint_price numeric(78,0),
    payment_token text,
    token_decimals smallint NOT NULL,
    provider_card_chain_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    verified_owner_address text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    token_symbol text,
    CONSTRAINT collections_address_check CHECK (checkout.is_evm_address(address)),
    CONSTRAINT collections_chain_id_check CHECK (((chain_id >= 1) AND (chain_id <= '9007199254740991'::bigint))),
    CONSTRAINT collections_mint_price_check CHECK ((mint_price >= (0)::numeric)),
    CONSTRAINT collections_mint_price_iff_static CHECK (((pricing = 'static'::text) = (mint_price IS NOT NULL))),
    CONSTRAINT collections_payment_token_check CHECK (((payment_token IS NULL) OR checkout.is_evm_address(payment_token))),
    CONSTRAINT collections_pricing_check CHECK ((pricing = ANY (ARRAY['static'::text, 'dynamic'::text]))),
    CONSTRAINT collections_token_decimals_check CHECK (((token_decimals >= 0) AND (token_decimals <= 77))),
    CONSTRAINT collections_token_symbol_check CHECK (((char_length(token_symbol) >= 1) AND (char_length(token_symbol) <= 32))),
    CONSTRAINT collections_verified_owner_address_check CHECK (checkout.is_evm_address(verified_owner_address)),
    CONSTRAINT collections_pkey PRIMARY KEY (id),
    CONSTRAINT collections_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create unique index collections_chain_address_key on checkout.collections (chain_id, lower(address));

create index collections_owner_id_idx on checkout.collections (owner_id, created_at);

ALTER TABLE checkout.collections ENABLE ROW LEVEL SECURITY;

create policy collections_delete_owner on checkout.collections
  for delete to authenticated
  using (owner_id = (select core.current_user_id()));

create policy collections_insert_owner on checkout.collections
  for insert to authenticated
  with check (
    owner_id = (select core.current_user_id())
    and exists (
      select from core.crypto_addresses a
      where a.user_id = (select core.current_user_id())
        and a.chain_id = collections.chain_id::text
        and lower(a.address) = lower(collections.verified_owner_address)
    )
  );

create policy collections_select_owner on checkout.collections
  for select to authenticated
  using (owner_id = (select core.current_user_id()));

create policy collections_update_owner on checkout.collections
  for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));

GRANT SELECT,DELETE ON TABLE checkout.collections TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE checkout.collections TO service_role;

GRANT INSERT(owner_id) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(chain_id) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(address) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(pricing),UPDATE(pricing) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(mint_price),UPDATE(mint_price) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(payment_token),UPDATE(payment_token) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(token_decimals),UPDATE(token_decimals) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(provider_card_chain_ids),UPDATE(provider_card_chain_ids) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(verified_owner_address) ON TABLE checkout.collections TO authenticated;

GRANT INSERT(token_symbol) ON TABLE checkout.collections TO authenticated;


-- NFTs issued by completed checkouts
CREATE TABLE checkout.nfts (
    session_id core.object_id NOT NULL,
    collection_id core.object_id NOT NULL,
    token_id numeric(78,0) NOT NULL,
    owner_address text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT nfts_owner_address_check CHECK (checkout.is_evm_address(owner_address)),
    CONSTRAINT nfts_token_id_check CHECK ((token_id >= (0)::numeric)),
    CONSTRAINT nfts_collection_token_key UNIQUE (collection_id, token_id),
    CONSTRAINT nfts_pkey PRIMARY KEY (session_id, token_id),
    CONSTRAINT nfts_collection_id_fkey FOREIGN KEY (collection_id) REFERENCES checkout.collections(id),
    CONSTRAINT nfts_session_id_fkey FOREIGN KEY (session_id) REFERENCES checkout.sessions(id) ON DELETE CASCADE
);

ALTER TABLE checkout.nfts ENABLE ROW LEVEL SECURITY;

create policy nfts_select_owner on checkout.nfts
  for select to authenticated
  using (exists (select from checkout.sessions s where s.id = session_id));

GRANT SELECT ON TABLE checkout.nfts TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE checkout.nfts TO service_role;


-- What the API reads for a store: the session with its status as read. security_invoker, so the
-- sessions policy decides which rows the caller sees.
CREATE VIEW checkout.sessions_as_read WITH (security_invoker='true') AS
 SELECT s.id,
    s.owner_id,
    s.collection_id,
    s.external_order_id,
    s.request,
    s.price,
    checkout.status_as_read(s.status, s.expires_at) AS status,
    s.failure_reason,
    s.expires_at,
    s.tx_hash,
    s.completed_at,
    s.created_at
   FROM checkout.sessions s;


CREATE TABLE checkout.webhook_attempts (
    id bigint NOT NULL,
    delivery_id core.object_id NOT NULL,
    status_code integer,
    error text,
    attempted_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_attempts_error_check CHECK ((char_length(error) <= 2000)),
    CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES checkout.webhook_deliveries(id) ON DELETE CASCADE
);

ALTER TABLE checkout.webhook_attempts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME checkout.webhook_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

create index webhook_attempts_delivery_id_idx on checkout.webhook_attempts (delivery_id, id);

ALTER TABLE checkout.webhook_attempts ENABLE ROW LEVEL SECURITY;

create policy webhook_attempts_insert_jobs on checkout.webhook_attempts
  for insert to service_jobs
  with check (true);

create policy webhook_attempts_select_owner on checkout.webhook_attempts
  for select to authenticated
  using (exists (select from checkout.webhook_deliveries d where d.id = delivery_id));

GRANT SELECT ON TABLE checkout.webhook_attempts TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE checkout.webhook_attempts TO service_role;

GRANT INSERT(delivery_id) ON TABLE checkout.webhook_attempts TO service_jobs;

GRANT INSERT(status_code) ON TABLE checkout.webhook_attempts TO service_jobs;

GRANT INSERT(error) ON TABLE checkout.webhook_attempts TO service_jobs;


-- Webhook signing secrets: one per (owner, webhook URL), encrypted by the gateway
CREATE TABLE checkout.webhook_secrets (
    owner_id core.object_id DEFAULT core.current_user_id() NOT NULL,
    webhook_url text NOT NULL,
    secret_ciphertext bytea NOT NULL,
    previous_secret_ciphertext bytea,
    previous_valid_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    rotated_at timestamp with time zone,
    CONSTRAINT webhook_secrets_previous_together CHECK (((previous_secret_ciphertext IS NULL) = (previous_valid_until IS NULL))),
    CONSTRAINT webhook_secrets_webhook_url_check CHECK (((webhook_url ~ '^https?://'::text) AND (char_length(webhook_url) <= 2048))),
    CONSTRAINT webhook_secrets_pkey PRIMARY KEY (owner_id, webhook_url),
    CONSTRAINT webhook_secrets_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE
);

ALTER TABLE checkout.webhook_secrets ENABLE ROW LEVEL SECURITY;

create policy webhook_secrets_insert_owner on checkout.webhook_secrets
  for insert to authenticated
  with check (owner_id = (select core.current_user_id()));

create policy webhook_secrets_select_jobs on checkout.webhook_secrets
  for select to service_jobs
  using (true);

create policy webhook_secrets_select_owner on checkout.webhook_secrets
  for select to authenticated
  using (owner_id = (select core.current_user_id()));

create policy webhook_secrets_update_owner on checkout.webhook_secrets
  for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));

GRANT SELECT ON TABLE checkout.webhook_secrets TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE checkout.webhook_secrets TO service_role;

GRANT INSERT(owner_id) ON TABLE checkout.webhook_secrets TO authenticated;
GRANT SELECT(owner_id) ON TABLE checkout.webhook_secrets TO service_jobs;

GRANT INSERT(webhook_url) ON TABLE checkout.webhook_secrets TO authenticated;
GRANT SELECT(webhook_url) ON TABLE checkout.webhook_secrets TO service_jobs;

GRANT INSERT(secret_ciphertext),UPDATE(secret_ciphertext) ON TABLE checkout.webhook_secrets TO authenticated;
GRANT SELECT(secret_ciphertext) ON TABLE checkout.webhook_secrets TO service_jobs;

GRANT UPDATE(previous_secret_ciphertext) ON TABLE checkout.webhook_secrets TO authenticated;
GRANT SELECT(previous_secret_ciphertext) ON TABLE checkout.webhook_secrets TO service_jobs;

GRANT UPDATE(previous_valid_until) ON TABLE checkout.webhook_secrets TO authenticated;
GRANT SELECT(previous_valid_until) ON TABLE checkout.webhook_secrets TO service_jobs;

GRANT UPDATE(rotated_at) ON TABLE checkout.webhook_secrets TO authenticated;


GRANT SELECT ON TABLE checkout.sessions_as_read TO authenticated;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY checkout.sessions
    ADD CONSTRAINT sessions_collection_id_fkey FOREIGN KEY (collection_id) REFERENCES checkout.collections(id);

create policy sessions_insert_owner on checkout.sessions
  for insert to authenticated
  with check (
    owner_id = (select core.current_user_id())
    and status = 'PENDING'
    and exists (select from checkout.collections c where c.id = collection_id)
  );


-- Background jobs, run by pg_cron as service_jobs (core.schedule_job: scheduling a job of the same
-- name again replaces it).
select core.schedule_job('expire_checkout_sessions', '* * * * *', 'checkout.expire_sessions');
