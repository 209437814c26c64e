-- Sui event-pass collections published by the service (POST /crypto/sui/collection/publish): the
-- service signs and pays for `<package>::collection::create_collection`, the organiser gets the
-- capability. One row per caller and client reference:
--   sui.begin_publish (as the caller): the organiser must be one of the caller's linked Sui
--     addresses on that network; the same reference with the same request returns the row as it
--     stands (a retry), with another request 409;
--   sui.record_prepared (as the caller): the signed transaction (bytes, signature, digest) is
--     committed BEFORE it is executed, once: a retry, or a concurrent twin, executes that very
--     transaction again, which Sui runs once (a digest executes once), so nothing is published twice;
--   sui.finish_publish (as the caller): the outcome read from the effects: published (collection,
--     capability and pass type) or failed (the reason), once; a finished row does not change.
-- One publish at a time per service key and network (sui.lease_signer): a transaction names the
-- versions of the gas coin it spends, and two different transactions signed over the same version
-- are an equivocation, which a real network punishes by locking the coin until the epoch ends. The
-- lease is a row, not a lock held through the node's round trip, so no connection waits on it; it
-- lapses on its own when its holder dies.
-- Everything is SECURITY DEFINER with an empty search_path; the tables grant nothing but SELECT of
-- one's own publishes (RLS).

create schema sui;
revoke all on schema sui from public;
grant usage on schema sui to authenticated;

create domain sui.network as text check (value in ('sui:mainnet', 'sui:testnet', 'sui:devnet', 'sui:localnet'));
create domain sui.object_id as text check (value ~ '^0x[0-9a-f]{64}$');

create table sui.collections (
  id                   core.object_id primary key default core.new_object_id(),
  owner_id             core.object_id not null references core.users (id) on delete cascade,
  client_reference     text not null check (client_reference ~ '^[A-Za-z0-9._:-]{1,128}$'),
  -- What was asked, to tell a retry (the same request) from a reused reference (another one).
  request_hash         bytea not null check (octet_length(request_hash) = 32),
  network              sui.network not null,
  package_id           sui.object_id not null,
  organiser            sui.object_id not null,
  name                 text not null check (char_length(name) between 1 and 128),
  description          text not null check (char_length(description) <= 2000),
  image_url            text not null check (char_length(image_url) <= 2048),
  project_url          text not null check (char_length(project_url) <= 2048),
  max_supply           bigint check (max_supply > 0),
  transferable         boolean not null,
  -- pending: not executed yet, or its outcome unknown (the node could not be reached); published
  -- and failed are final.
  status               text not null default 'pending' check (status in ('pending', 'published', 'failed')),
  tx_bytes             text check (char_length(tx_bytes) <= 65536),
  tx_signature         text check (char_length(tx_signature) <= 4096),
  digest               text unique check (digest ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$'),
  -- The coin the stored transaction pays with: no other transaction may spend it while this one
  -- is pending (sui.unfinished_gas_coins).
  gas_coin             sui.object_id,
  collection_object_id sui.object_id,
  cap_object_id        sui.object_id,
  pass_type            text check (char_length(pass_type) <= 300),
  failure_code         text check (failure_code ~ '^[a-z_]{1,64}$'),
  failure_reason       text check (char_length(failure_reason) <= 1000),
  created_at           timestamptz not null default now(),
  updated_at           timestamptz not null default now(),
  unique (owner_id, client_reference),
  check ((tx_bytes is null) = (digest is null) and (tx_bytes is null) = (tx_signature is null) and (tx_bytes is null) = (gas_coin is null)),
  check (status <> 'published' or (digest is not null and collection_object_id is not null and cap_object_id is not null and pass_type is not null)),
  check (status <> 'failed' or failure_code is not null)
);
create index collections_owner_listing on sui.collections (owner_id, created_at desc, id desc);
-- What sui.unfinished_gas_coins reads on every publish: the few signed transactions still pending.
create index collections_unfinished_gas_coins on sui.collections (network, gas_coin) where status = 'pending' and gas_coin is not null;

alter table sui.collections enable row level security;
create policy collections_select_owner on sui.collections for select to authenticated
  using (owner_id = core.current_user_id());
grant select on sui.collections to authenticated;

create table sui.signer_leases (
  network      sui.network not null,
  signer       sui.object_id not null,
  holder       uuid not null,
  leased_until timestamptz not null,
  primary key (network, signer)
);
alter table sui.signer_leases enable row level security; -- no policy: definer functions only

-- Takes the lease of (network, signer) for `p_holder` when free or lapsed; whether it was taken.
create function sui.lease_signer(p_network text, p_signer text, p_holder uuid, p_seconds integer) returns boolean
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into sui.signer_leases as l (network, signer, holder, leased_until)
      values (p_network, p_signer, p_holder, now() + make_interval(secs => p_seconds))
      on conflict (network, signer) do update set holder = excluded.holder, leased_until = excluded.leased_until
        where l.leased_until < now() or l.holder = excluded.holder
      returning true
  $$;

create function sui.release_signer(p_network text, p_signer text, p_holder uuid) returns void
  language sql volatile security definer
  set search_path = ''
  as $$ delete from sui.signer_leases where network = p_network and signer = p_signer and holder = p_holder $$;

-- The caller's row for `p_reference`, created when new. Refuses an organiser that is not one of the
-- caller's linked addresses on the network (403), and a reference already used for another request (409).
create function sui.begin_publish(
  p_reference text, p_request_hash bytea, p_network text, p_package_id text, p_organiser text,
  p_name text, p_description text, p_image_url text, p_project_url text, p_max_supply bigint, p_transferable boolean
) returns setof sui.collections
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
    v_row sui.collections;
  begin
    if v_user is null then
      raise exception 'no caller' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    if not exists (
      select from core.crypto_addresses a
      where a.user_id = v_user and a.chain_id = p_network and lower(a.address) = lower(p_organiser)
    ) then
      raise exception 'the organiser address is not one of your linked Sui addresses on %', p_network
        using errcode = 'PT403', hint = 'sui_address_not_linked';
    end if;
    insert into sui.collections (owner_id, client_reference, request_hash, network, package_id, organiser,
                                 name, description, image_url, project_url, max_supply, transferable)
      values (v_user, p_reference, p_request_hash, p_network, p_package_id, lower(p_organiser),
              p_name, p_description, p_image_url, p_project_url, p_max_supply, p_transferable)
      on conflict (owner_id, client_reference) do nothing
      returning * into v_row;
    if v_row.id is null then
      select * into v_row from sui.collections c where c.owner_id = v_user and c.client_reference = p_reference;
      if v_row.request_hash <> p_request_hash then
        raise exception 'this clientReference was used for another publish request'
          using errcode = 'PT409', hint = 'client_reference_reused';
      end if;
    end if;
    return next v_row;
  end
  $$;

-- Stores the signed transaction of a pending row unless one is stored already; returns the one that
-- counts (the first), which the caller executes.
create function sui.record_prepared(p_id text, p_bytes text, p_signature text, p_digest text, p_gas_coin text)
  returns table (tx_bytes text, tx_signature text, digest text)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    update sui.collections c set tx_bytes = p_bytes, tx_signature = p_signature, digest = p_digest, gas_coin = p_gas_coin, updated_at = now()
      where c.id = p_id and c.owner_id = core.current_user_id() and c.status = 'pending' and c.tx_bytes is null;
    return query
      select c.tx_bytes, c.tx_signature, c.digest from sui.collections c
      where c.id = p_id and c.owner_id = core.current_user_id();
    if not found then
      raise exception 'no such collection' using errcode = 'PT404', hint = 'not_found';
    end if;
  end
  $$;

-- The gas coins of transactions signed on `p_network` and not known to have executed (whoever's
-- publish they are): a new transaction pays with another coin, or it could be an equivocation.
create function sui.unfinished_gas_coins(p_network text) returns text[]
  language sql stable security definer
  set search_path = ''
  as $$
    select coalesce(array_agg(distinct c.gas_coin), '{}') from sui.collections c
    where c.network = p_network and c.status = 'pending' and c.gas_coin is not null
  $$;

-- The outcome of the stored transaction (p_digest must be its digest). A row already final stays as
-- it is; the row is returned either way.
create function sui.finish_publish(
  p_id text, p_digest text, p_published boolean,
  p_collection_object_id text, p_cap_object_id text, p_pass_type text, p_failure_code text, p_failure_reason text
) returns setof sui.collections
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    update sui.collections c set
        status = case when p_published then 'published' else 'failed' end,
        collection_object_id = case when p_published then p_collection_object_id end,
        cap_object_id = case when p_published then p_cap_object_id end,
        pass_type = case when p_published then p_pass_type end,
        failure_code = case when p_published then null else p_failure_code end,
        failure_reason = case when p_published then null else left(p_failure_reason, 1000) end,
        updated_at = now()
      where c.id = p_id and c.owner_id = core.current_user_id() and c.status = 'pending' and c.digest = p_digest;
    return query select * from sui.collections c where c.id = p_id and c.owner_id = core.current_user_id();
  end
  $$;

-- Functions are executable by PUBLIC when created (a per-schema default cannot take that away).
revoke execute on all functions in schema sui from public;
grant execute on function
  sui.begin_publish(text, bytea, text, text, text, text, text, text, text, bigint, boolean),
  sui.record_prepared(text, text, text, text, text),
  sui.unfinished_gas_coins(text),
  sui.finish_publish(text, text, boolean, text, text, text, text, text),
  sui.lease_signer(text, text, uuid, integer),
  sui.release_signer(text, text, uuid)
  to authenticated;
