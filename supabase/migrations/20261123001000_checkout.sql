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

-- ============================================================================================
-- Schema and default privileges: deny by default
-- ============================================================================================
create schema checkout;
revoke all on schema checkout from public;
-- anon needs usage to call the client-secret functions; it holds no table grant here.
grant usage on schema checkout to anon, authenticated, service_role, service_jobs;
alter default privileges in schema checkout revoke all on tables from public;

-- EVM addresses as the gateway writes them (EIP-55 checksummed; the checksum is the gateway's
-- check, the shape is ours). Compared case-insensitively everywhere.
create function checkout.is_evm_address(p text) returns boolean
  language sql immutable
  set search_path = ''
  as $$ select p ~ '^0x[0-9a-fA-F]{40}$' $$;

-- ============================================================================================
-- Collections: deployed EVM collections an owner sells through checkout
-- ============================================================================================
create table checkout.collections (
  id                      core.object_id primary key default core.new_object_id(),
  owner_id                core.object_id not null default core.current_user_id()
                            references core.users (id) on delete cascade,
  -- EVM chain ids: exact integers up to 2^53-1, like the SIWE messages accept.
  chain_id                bigint not null check (chain_id between 1 and 9007199254740991),
  address                 text not null check (checkout.is_evm_address(address)),
  pricing                 text not null check (pricing in ('static', 'dynamic')),
  -- In the payment token's smallest unit (wei for native), so no float ever touches a price.
  mint_price              numeric(78, 0) check (mint_price >= 0),
  -- null = the chain's native currency, else an ERC-20 contract.
  payment_token           text check (payment_token is null or checkout.is_evm_address(payment_token)),
  -- Read on-chain by the gateway for ERC-20 (decimals()); 18 for native.
  token_decimals          smallint not null check (token_decimals between 0 and 77),
  -- Networks where `provider_card` may be offered for this collection.
  provider_card_chain_ids bigint[] not null default '{}',
  -- What owner() returned when the gateway verified ownership on-chain; one of the owner's linked
  -- addresses on this chain at registration (the insert policy).
  verified_owner_address  text not null check (checkout.is_evm_address(verified_owner_address)),
  created_at              timestamptz not null default now(),
  -- The ERC-20's symbol() read at registration, shown by the hosted page: null for the native
  -- currency and for a token without a readable symbol.
  token_symbol            text check (char_length(token_symbol) between 1 and 32),
  constraint collections_mint_price_iff_static check ((pricing = 'static') = (mint_price is not null))
);
-- A contract is registered once on its chain, by whoever proved they own it first.
create unique index collections_chain_address_key on checkout.collections (chain_id, lower(address));
create index collections_owner_id_idx on checkout.collections (owner_id, created_at);

alter table checkout.collections enable row level security;

create policy collections_select_owner on checkout.collections
  for select to authenticated
  using (owner_id = (select core.current_user_id()));
-- The owner's own linked addresses are visible to them under core.crypto_addresses' RLS, so the
-- check needs no security definer helper. Chain ids there are decimal text. (The new row's columns
-- are qualified: crypto_addresses has a chain_id of its own.)
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
create policy collections_update_owner on checkout.collections
  for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));
-- Deleting a collection that has sessions fails on the foreign key (sessions keep their terms).
create policy collections_delete_owner on checkout.collections
  for delete to authenticated
  using (owner_id = (select core.current_user_id()));

grant select on checkout.collections to authenticated;
grant insert (owner_id, chain_id, address, pricing, mint_price, payment_token, token_decimals,
              provider_card_chain_ids, verified_owner_address, token_symbol)
  on checkout.collections to authenticated;
-- chain, address and verified owner are what ownership was proved for: not changeable.
grant update (pricing, mint_price, payment_token, token_decimals, provider_card_chain_ids)
  on checkout.collections to authenticated;
grant delete on checkout.collections to authenticated;
grant select, insert, update, delete on checkout.collections to service_role;

-- ============================================================================================
-- Sessions
-- ============================================================================================
-- `status` is the stored state; a PENDING session whose expires_at passed *reads* as EXPIRED before
-- the expiry job materialises it. Every read goes through checkout.session_status (the view
-- checkout.sessions_as_read and the functions below use it).
create table checkout.sessions (
  id                       core.object_id primary key default core.new_object_id(),
  owner_id                 core.object_id not null default core.current_user_id()
                             references core.users (id) on delete cascade,
  collection_id            core.object_id not null references checkout.collections (id),
  external_order_id        text not null check (char_length(external_order_id) between 1 and 200),
  -- SHA-256 of the canonical request, computed by the gateway: equal fingerprints = same checkout.
  request_fingerprint      bytea not null check (octet_length(request_fingerprint) = 32),
  -- The canonical request: items, paymentMethods, allowedOrigin, webhookUrl, expiresInSeconds, price.
  request                  jsonb not null check (jsonb_typeof(request) = 'object'),
  -- The price to pay, in the payment token's smallest unit (the request's `price`, a decimal string).
  price                    numeric(78, 0) not null check (price >= 0),
  client_secret_hash       bytea not null unique check (octet_length(client_secret_hash) = 32),
  -- AES-GCM by the gateway's key, so an idempotent replay returns the same secret.
  client_secret_ciphertext bytea not null,
  status                   text not null default 'PENDING'
                             check (status in ('PENDING', 'COMPLETED', 'EXPIRED', 'FAILED')),
  failure_reason           text check (char_length(failure_reason) <= 1000),
  expires_at               timestamptz not null,
  -- A transaction hash completes at most one checkout (SPEC 3 rule 2, 8).
  tx_hash                  text unique check (tx_hash ~ '^0x[0-9a-f]{64}$'),
  completed_at             timestamptz,
  created_at               timestamptz not null default now(),
  constraint sessions_owner_external_order_key unique (owner_id, external_order_id),
  constraint sessions_completed_has_transaction
    check ((status = 'COMPLETED') = (tx_hash is not null and completed_at is not null)),
  constraint sessions_failed_has_reason check ((status = 'FAILED') = (failure_reason is not null))
);
create index sessions_collection_id_idx on checkout.sessions (collection_id);
create index sessions_owner_created_at_idx on checkout.sessions (owner_id, created_at desc, id desc);
-- The expiry job's scan: only PENDING rows, by expiry.
create index sessions_pending_expires_at_idx on checkout.sessions (expires_at) where status = 'PENDING';

-- The session's state as read: PENDING past expires_at is EXPIRED, whether or not the job ran.
-- Two forms: of the stored status and expiry (for the view: a whole-row reference would need the
-- select privilege on client_secret_hash too), and of a row. No SET clause, so both inline.
create function checkout.status_as_read(p_status text, p_expires_at timestamptz) returns text
  language sql stable
  as $$
    select case when p_status = 'PENDING' and p_expires_at <= pg_catalog.now() then 'EXPIRED' else p_status end
  $$;

create function checkout.session_status(s checkout.sessions) returns text
  language sql stable
  as $$ select checkout.status_as_read(s.status, s.expires_at) $$;

alter table checkout.sessions enable row level security;

create policy sessions_select_owner on checkout.sessions
  for select to authenticated
  using (owner_id = (select core.current_user_id()));
-- Creation goes through checkout.create_session (invoker): the row must be the caller's, for one of
-- the caller's collections, and start PENDING.
create policy sessions_insert_owner on checkout.sessions
  for insert to authenticated
  with check (
    owner_id = (select core.current_user_id())
    and status = 'PENDING'
    and exists (select from checkout.collections c where c.id = collection_id)
  );

-- Owners read everything but the client secret's hash (like API key hashes). The ciphertext is
-- readable: create_session returns it on a replay, and only the gateway can decrypt it.
grant select (id, owner_id, collection_id, external_order_id, request_fingerprint, request, price,
              client_secret_ciphertext, status, failure_reason, expires_at, tx_hash, completed_at, created_at)
  on checkout.sessions to authenticated;
grant insert (owner_id, collection_id, external_order_id, request_fingerprint, request, price,
              client_secret_hash, client_secret_ciphertext, expires_at)
  on checkout.sessions to authenticated;
grant select, insert, update, delete on checkout.sessions to service_role;

-- What the API reads for a store: the session with its status as read. security_invoker, so the
-- sessions policy decides which rows the caller sees.
create view checkout.sessions_as_read with (security_invoker = true) as
  select s.id, s.owner_id, s.collection_id, s.external_order_id, s.request, s.price,
         checkout.status_as_read(s.status, s.expires_at) as status, s.failure_reason, s.expires_at, s.tx_hash,
         s.completed_at, s.created_at
  from checkout.sessions s;
grant select on checkout.sessions_as_read to authenticated;

-- ============================================================================================
-- Creating a session: one idempotent function
-- ============================================================================================
-- The gateway has validated the request, computed its fingerprint (SHA-256 of the canonical JSON),
-- generated a client secret, hashed it and encrypted it. Returns the session (created = true) or
-- the existing one for the same order and the same request (created = false, with the first call's
-- secret ciphertext, so the replay answers the same secret and URL).
--
-- Security invoker: the caller's collection is found under RLS (another owner's answers like an
-- unknown one: 404), and the insert policy checks the row. The unique constraint decides races:
-- `on conflict do nothing` waits for a concurrent insert of the same order and then skips it; the
-- next statement (a new snapshot in READ COMMITTED) reads the winner's committed row.
create function checkout.create_session(
  p_collection_id            core.object_id,
  p_external_order_id        text,
  p_fingerprint              bytea,
  p_request                  jsonb,
  p_client_secret_hash       bytea,
  p_client_secret_ciphertext bytea,
  p_expires_at               timestamptz
)
  returns table (
    id                       core.object_id,
    owner_id                 core.object_id,
    collection_id            core.object_id,
    external_order_id        text,
    request                  jsonb,
    price                    numeric,
    client_secret_ciphertext bytea,
    status                   text,
    expires_at               timestamptz,
    created_at               timestamptz,
    created                  boolean
  )
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
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
  $$;

-- ============================================================================================
-- Payment attempts: a payer asked the hosted page for the transactions to sign
-- ============================================================================================
create table checkout.payment_attempts (
  id            core.object_id primary key default core.new_object_id(),
  session_id    core.object_id not null references checkout.sessions (id) on delete cascade,
  payer_address text not null check (checkout.is_evm_address(payer_address)),
  chain_id      bigint not null,
  -- When the transaction was prepared: SPEC 3 lets an EXPIRED session complete only for a
  -- transaction prepared before expiry.
  prepared_at   timestamptz not null default now(),
  -- The hash the page reported, when it did (the reconciler checks pending attempts' receipts).
  tx_hash       text check (tx_hash ~ '^0x[0-9a-f]{64}$'),
  created_at    timestamptz not null default now()
);
create index payment_attempts_session_id_idx on checkout.payment_attempts (session_id, prepared_at);
-- The reconciler's work lists read attempts of the last 3 days.
create index payment_attempts_prepared_at_idx on checkout.payment_attempts (prepared_at);

alter table checkout.payment_attempts enable row level security;
create policy payment_attempts_select_owner on checkout.payment_attempts
  for select to authenticated
  using (exists (select from checkout.sessions s where s.id = session_id));
grant select on checkout.payment_attempts to authenticated;
grant select, insert, update, delete on checkout.payment_attempts to service_role;

-- ============================================================================================
-- NFTs issued by completed checkouts
-- ============================================================================================
create table checkout.nfts (
  session_id    core.object_id not null references checkout.sessions (id) on delete cascade,
  collection_id core.object_id not null references checkout.collections (id),
  token_id      numeric(78, 0) not null check (token_id >= 0),
  owner_address text not null check (checkout.is_evm_address(owner_address)),
  created_at    timestamptz not null default now(),
  primary key (session_id, token_id),
  -- A token is minted once: no two checkouts can claim it.
  constraint nfts_collection_token_key unique (collection_id, token_id)
);

alter table checkout.nfts enable row level security;
create policy nfts_select_owner on checkout.nfts
  for select to authenticated
  using (exists (select from checkout.sessions s where s.id = session_id));
grant select on checkout.nfts to authenticated;
grant select, insert, update, delete on checkout.nfts to service_role;

-- ============================================================================================
-- Webhook signing secrets: one per (owner, webhook URL), encrypted by the gateway
-- ============================================================================================
create table checkout.webhook_secrets (
  owner_id                   core.object_id not null default core.current_user_id()
                               references core.users (id) on delete cascade,
  webhook_url                text not null check (webhook_url ~ '^https?://' and char_length(webhook_url) <= 2048),
  secret_ciphertext          bytea not null,
  -- During a rotation's overlap both secrets sign (SPEC 6.1 receivers keep working).
  previous_secret_ciphertext bytea,
  previous_valid_until       timestamptz,
  created_at                 timestamptz not null default now(),
  rotated_at                 timestamptz,
  primary key (owner_id, webhook_url),
  constraint webhook_secrets_previous_together
    check ((previous_secret_ciphertext is null) = (previous_valid_until is null))
);

alter table checkout.webhook_secrets enable row level security;
create policy webhook_secrets_select_owner on checkout.webhook_secrets
  for select to authenticated
  using (owner_id = (select core.current_user_id()));
create policy webhook_secrets_insert_owner on checkout.webhook_secrets
  for insert to authenticated
  with check (owner_id = (select core.current_user_id()));
create policy webhook_secrets_update_owner on checkout.webhook_secrets
  for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));
grant select, insert (owner_id, webhook_url, secret_ciphertext) on checkout.webhook_secrets to authenticated;
grant update (secret_ciphertext, previous_secret_ciphertext, previous_valid_until, rotated_at)
  on checkout.webhook_secrets to authenticated;
grant select, insert, update, delete on checkout.webhook_secrets to service_role;

-- The secret of (caller, URL): the stored one, or p_new_ciphertext stored now. Concurrent first
-- calls agree on one secret (the primary key decides). Returns the ciphertext to decrypt.
create function checkout.ensure_webhook_secret(p_webhook_url text, p_new_ciphertext bytea) returns bytea
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
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

-- Replaces the secret of (caller, URL); the old one keeps signing until now() + p_overlap.
-- PT404 webhook_secret_not_found when there is none.
create function checkout.rotate_webhook_secret(p_webhook_url text, p_new_ciphertext bytea, p_overlap interval)
  returns timestamptz
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
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

-- ============================================================================================
-- Webhook outbox: one row per delivery of `checkout.completed`, and every attempt
-- ============================================================================================
create table checkout.webhook_deliveries (
  id               core.object_id primary key default core.new_object_id(),
  -- x-service-event-id: 'checkout-completed-<checkoutId>', the same for every re-delivery.
  event_id         text not null,
  session_id       core.object_id not null references checkout.sessions (id) on delete cascade,
  owner_id         core.object_id not null references core.users (id) on delete cascade,
  webhook_url      text not null,
  payload          jsonb not null,
  -- pending → delivered (2xx) | stopped (410) | failed (the dispatcher gave up, ~3 days)
  status           text not null default 'pending' check (status in ('pending', 'delivered', 'stopped', 'failed')),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  -- A claim is a lease: a dispatcher that crashed mid-delivery leaves it, and it comes back.
  claimed_until    timestamptz,
  last_status_code integer,
  last_error       text,
  delivered_at     timestamptz,
  created_at       timestamptz not null default now()
);
-- At most one delivery of a session waits at a time: a retry request while one waits joins it.
create unique index webhook_deliveries_one_pending_per_session
  on checkout.webhook_deliveries (session_id) where status = 'pending';
create index webhook_deliveries_due_idx on checkout.webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_session_id_idx on checkout.webhook_deliveries (session_id, created_at);

create table checkout.webhook_attempts (
  -- An identity column: inserting needs no grant on a sequence (service_jobs has none).
  id           bigint generated always as identity primary key,
  delivery_id  core.object_id not null references checkout.webhook_deliveries (id) on delete cascade,
  status_code  integer,
  error        text check (char_length(error) <= 2000),
  attempted_at timestamptz not null default now()
);
create index webhook_attempts_delivery_id_idx on checkout.webhook_attempts (delivery_id, id);

alter table checkout.webhook_deliveries enable row level security;
alter table checkout.webhook_attempts enable row level security;

-- The delivery log is the owner's to read; nobody writes it but the functions below.
create policy webhook_deliveries_select_owner on checkout.webhook_deliveries
  for select to authenticated
  using (owner_id = (select core.current_user_id()));
create policy webhook_attempts_select_owner on checkout.webhook_attempts
  for select to authenticated
  using (exists (select from checkout.webhook_deliveries d where d.id = delivery_id));
grant select on checkout.webhook_deliveries, checkout.webhook_attempts to authenticated;
grant select, insert, update, delete on checkout.webhook_deliveries, checkout.webhook_attempts to service_role;

-- ============================================================================================
-- The hosted page's functions: authenticated by the client secret
-- ============================================================================================
-- The session with this id and client-secret hash, locked when p_lock; raises PT404
-- checkout_not_found otherwise (a wrong secret answers exactly like an unknown id). Not executable
-- by any request role: only the definer functions below call it.
create function checkout.session_for_client_secret(p_session_id core.object_id, p_client_secret_hash bytea, p_lock boolean)
  returns checkout.sessions
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- GET /checkout/sessions/<id> with X-Checkout-Client-Secret: the client-safe session, or no row.
-- Never the webhook URL, the owner, the external order id or any secret. With the failure reason
-- and the payment token's symbol, which the page shows.
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

-- The hosted checkout page (GET /checkout/<id>) is served with
-- `Content-Security-Policy: frame-ancestors <allowedOrigin>`, so no other origin can embed it.
-- The page request carries no client secret (it is in the URL fragment, which browsers never send),
-- so the gateway needs the session's allowed origin by id alone. This function returns exactly that
-- origin and nothing else: the origin is not a secret (the storefront shows itself to every
-- visitor), and an unknown id answers null, which the gateway serves with `frame-ancestors 'none'`.
create function checkout.allowed_origin_of(p_session_id core.object_id)
  returns text
  language sql stable security definer
  set search_path = ''
  as $$ select s.request ->> 'allowedOrigin' from checkout.sessions s where s.id = p_session_id $$;

-- Records that the page prepared a payment for p_payer: only while the session reads PENDING
-- (SPEC 3: no new payment starts after expiry). PT409 checkout_not_payable with {"status": ...}.
-- The session row is locked, so an attempt and the expiry are ordered.
create function checkout.record_payment_attempt(p_session_id core.object_id, p_client_secret_hash bytea, p_payer text)
  returns checkout.payment_attempts
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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
create function checkout.complete_locked_session(
  p_session            checkout.sessions,
  p_tx_hash            text,
  p_payer              text,
  p_token_ids          numeric[],
  p_amount             numeric,
  p_payment_token      text,
  p_block_number       bigint
)
  returns checkout.sessions
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- The hosted page's confirmation: the session of this id and client secret (PT404
-- checkout_not_found otherwise), locked, then completed as above.
create function checkout.complete_session(
  p_session_id         core.object_id,
  p_client_secret_hash bytea,
  p_tx_hash            text,
  p_payer              text,
  p_token_ids          numeric[],
  p_amount             numeric,
  p_payment_token      text,
  p_block_number       bigint
)
  returns checkout.sessions
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    return checkout.complete_locked_session(
      checkout.session_for_client_secret(p_session_id, p_client_secret_hash, true),
      p_tx_hash, p_payer, p_token_ids, p_amount, p_payment_token, p_block_number);
  end
  $$;

-- The reconciler's completion (service_jobs): a customer paid and closed the page, and the job
-- found the mint (an attempt's reported hash, or the collection's logs carrying the checkout
-- reference) and verified its receipt like the page's confirmation does. Same rules; PT404
-- checkout_not_found for an unknown id. Security definer like the page's door: completing writes
-- the session, NFTs and outbox of any owner, which service_jobs holds no grant for.
create function checkout.complete_session_as_job(
  p_session_id         core.object_id,
  p_tx_hash            text,
  p_payer              text,
  p_token_ids          numeric[],
  p_amount             numeric,
  p_payment_token      text,
  p_block_number       bigint
)
  returns checkout.sessions
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- The page reports the hash of the transaction it broadcast for an attempt, before it waits for the
-- receipt: if the customer closes the page, the reconciler still knows where to look. Allowed
-- whatever the session's state (the transaction was prepared while it was payable). PT404
-- payment_attempt_not_found for another session's or an unknown attempt; PT409
-- attempt_has_another_transaction when the attempt already carries a different hash.
create function checkout.record_payment_transaction(
  p_session_id         core.object_id,
  p_client_secret_hash bytea,
  p_attempt_id         core.object_id,
  p_tx_hash            text
)
  returns checkout.payment_attempts
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- The reconciler (service_jobs): checkouts whose customer paid and closed the page
-- ============================================================================================
-- The reconciler's work list (service_jobs): payment attempts of sessions that are neither
-- COMPLETED nor FAILED, prepared before their session's expiry and in the last 3 days (about the
-- webhook's retry horizon; older ones are left to an operator). Attempts with a reported hash come
-- first, oldest first: every page that prepared a payment and was left leaves an attempt without one
-- for 3 days, and under the limit those must not crowd out the cheap receipt checks of customers
-- who paid and closed the page. With a hash: check its receipt; without: search the collection's
-- logs for the checkout reference from prepared_at on. Security definer: it reads every owner's
-- sessions, which service_jobs cannot.
create function checkout.payment_attempts_to_reconcile(p_limit integer)
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

-- The reconciler's second work list, for the CheckoutMinted log search (attempts whose page closed
-- before the wallet answered have no hash to check): one row per session that is neither COMPLETED
-- nor FAILED and has payment attempts prepared before its expiry and in the last 3 days (the same
-- horizon as payment_attempts_to_reconcile), with the payers of those attempts: a mint found for
-- the session's reference completes it only when minted to one of them (an EXPIRED session
-- completes only for such a payer anyway). Newest attempt first: the log search covers recent
-- blocks only, so under the limit recent checkouts come first.
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

-- The reconciler's terminal failure (see "When a session is FAILED" above): the session row locked,
-- PENDING or EXPIRED (stored or as read) → FAILED with p_reason, a stable code (lower-case letters,
-- digits and _). Already FAILED: returned unchanged (concurrent reconcilers); COMPLETED: PT409
-- checkout_not_open with {"status": ...}; unknown id: PT404 checkout_not_found; a reason that is no
-- code: PT400 validation_failed. Security definer: service_jobs holds no update of live sessions.
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

-- ============================================================================================
-- The store's retry: another delivery of the same event
-- ============================================================================================
-- POST .../webhook/retry. Security definer because request roles hold no insert on the outbox (an
-- owner must not write payloads); the owner check is explicit. Another owner's or an unknown
-- session: PT404 checkout_not_found; not COMPLETED (as read): PT409 checkout_not_completed. When a
-- delivery of the session is already waiting, returns that one (no duplicate queue).
create function checkout.requeue_webhook(p_session_id core.object_id) returns checkout.webhook_deliveries
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- Jobs (service_jobs, security invoker, under the policies below)
-- ============================================================================================
-- Materialises EXPIRED for PENDING sessions past expires_at; returns how many. Reads never wait for
-- it (checkout.session_status), it only keeps the stored state honest for the reconciler and reports.
create function checkout.expire_sessions() returns integer
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  declare
    v_expired integer;
  begin
    update checkout.sessions set status = 'EXPIRED'
      where status = 'PENDING' and expires_at <= now();
    get diagnostics v_expired = row_count;
    return v_expired;
  end
  $$;

-- The dispatcher's claim: up to p_limit due deliveries (1..1000), leased for p_lease_seconds so a
-- crashed dispatcher's claims come back; skip locked, so replicas never wait for each other nor
-- take the same row. Returns what a delivery needs, so the dispatcher needs no second statement per
-- claim: the signing secrets' ciphertexts (the previous one while its overlap lasts), the owner (it
-- names the signing secret's associated data) and created_at (the retry horizon runs from it).
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

-- One attempt's outcome. 2xx: delivered; 410: stopped; else pending again at p_next_attempt_at
-- (the dispatcher's backoff with jitter and Retry-After), or failed when it is null (gave up).
-- Every attempt is appended to webhook_attempts. Returns the delivery's new status; a delivery no
-- longer pending: PT409 delivery_not_pending.
create function checkout.record_webhook_attempt(
  p_delivery_id     core.object_id,
  p_status_code     integer,
  p_error           text,
  p_next_attempt_at timestamptz
)
  returns text
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
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

-- service_jobs: exactly what expire_sessions, claim_webhook_deliveries and record_webhook_attempt
-- touch, and policies that keep even a statement of its own to those rows.
grant select (id, status, expires_at), update (status) on checkout.sessions to service_jobs;
-- Select covers EXPIRED too: an UPDATE that reads columns must leave a row its role can still see.
create policy sessions_select_jobs on checkout.sessions
  for select to service_jobs
  using (status in ('PENDING', 'EXPIRED') and expires_at <= now());
create policy sessions_update_jobs on checkout.sessions
  for update to service_jobs
  using (status = 'PENDING' and expires_at <= now())
  with check (status = 'EXPIRED');

grant select, update (attempts, last_status_code, last_error, claimed_until, status, delivered_at, next_attempt_at)
  on checkout.webhook_deliveries to service_jobs;
-- The dispatcher sees every delivery (an update that reads columns must leave a row its role can
-- still see, and a delivered one is no longer pending); it changes pending ones only.
create policy webhook_deliveries_select_jobs on checkout.webhook_deliveries
  for select to service_jobs
  using (true);
create policy webhook_deliveries_update_jobs on checkout.webhook_deliveries
  for update to service_jobs
  using (status = 'pending')
  with check (true);

grant insert (delivery_id, status_code, error) on checkout.webhook_attempts to service_jobs;
create policy webhook_attempts_insert_jobs on checkout.webhook_attempts
  for insert to service_jobs
  with check (true);

grant select (owner_id, webhook_url, secret_ciphertext, previous_secret_ciphertext, previous_valid_until)
  on checkout.webhook_secrets to service_jobs;
create policy webhook_secrets_select_jobs on checkout.webhook_secrets
  for select to service_jobs
  using (true);

-- ============================================================================================
-- Deny by default, then the grants
-- ============================================================================================
revoke execute on all functions in schema checkout from public;

-- CHECK constraints and reads run with the caller's privileges.
grant execute on function checkout.is_evm_address(text) to authenticated, service_role;
grant execute on function checkout.status_as_read(text, timestamptz) to authenticated, service_role;
grant execute on function checkout.session_status(checkout.sessions) to authenticated, service_role;
-- The store backend (API key).
grant execute on function checkout.create_session(core.object_id, text, bytea, jsonb, bytea, bytea, timestamptz) to authenticated;
grant execute on function checkout.ensure_webhook_secret(text, bytea) to authenticated;
grant execute on function checkout.rotate_webhook_secret(text, bytea, interval) to authenticated;
grant execute on function checkout.requeue_webhook(core.object_id) to authenticated;
-- The hosted page (client secret, no user).
grant execute on function checkout.session_by_client_secret(core.object_id, bytea) to anon;
grant execute on function checkout.record_payment_attempt(core.object_id, bytea, text) to anon;
grant execute on function checkout.complete_session(core.object_id, bytea, text, text, numeric[], numeric, text, bigint) to anon;
grant execute on function checkout.record_payment_transaction(core.object_id, bytea, core.object_id, text) to anon;
grant execute on function checkout.payer_of_transaction(core.object_id, bytea, text) to anon;
grant execute on function checkout.allowed_origin_of(core.object_id) to anon;
-- The jobs.
grant execute on function checkout.expire_sessions() to service_jobs;
grant execute on function checkout.claim_webhook_deliveries(integer, integer) to service_jobs;
grant execute on function checkout.record_webhook_attempt(core.object_id, integer, text, timestamptz) to service_jobs;
grant execute on function checkout.payment_attempts_to_reconcile(integer) to service_jobs;
grant execute on function checkout.complete_session_as_job(core.object_id, text, text, numeric[], numeric, text, bigint) to service_jobs;
grant execute on function checkout.sessions_to_search_for_mints(integer) to service_jobs;
grant execute on function checkout.fail_session_as_job(core.object_id, text) to service_jobs;

-- Every minute (pg_cron's finest): the stored state lags the clock by at most a minute, reads never.
select core.schedule_job('expire_checkout_sessions', '* * * * *', 'checkout.expire_sessions');
