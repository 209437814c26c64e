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

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA sui;

GRANT USAGE ON SCHEMA sui TO authenticated;


CREATE DOMAIN sui.network AS text
	CONSTRAINT network_check CHECK ((VALUE = ANY (ARRAY['sui:mainnet'::text, 'sui:testnet'::text, 'sui:devnet'::text, 'sui:localnet'::text])));


CREATE DOMAIN sui.object_id AS text
	CONSTRAINT object_id_check CHECK ((VALUE ~ '^0x[0-9a-f]{64}$'::text));


CREATE TABLE sui.collections (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    owner_id core.object_id NOT NULL,
    client_reference text NOT NULL,
    request_hash bytea NOT NULL,
    network sui.network NOT NULL,
    package_id sui.object_id NOT NULL,
    organiser sui.object_id NOT NULL,
    name text NOT NULL,
    description text NOT NULL,
    image_url text NOT NULL,
    project_url text NOT NULL,
    max_supply bigint,
    transferable boolean NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    tx_bytes text,
    tx_signature text,
    digest text,
    gas_coin sui.object_id,
    collection_object_id sui.object_id,
    cap_object_id sui.object_id,
    pass_type text,
    failure_code text,
    failure_reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT collections_check CHECK ((((tx_bytes IS NULL) = (digest IS NULL)) AND ((tx_bytes IS NULL) = (tx_signature IS NULL)) AND ((tx_bytes IS NULL) = (gas_coin IS NULL)))),
    CONSTRAINT collections_check1 CHECK (((status <> 'published'::text) OR ((digest IS NOT NULL) AND (collection_object_id IS NOT NULL) AND (cap_object_id IS NOT NULL) AND (pass_type IS NOT NULL)))),
    CONSTRAINT collections_check2 CHECK (((status <> 'failed'::text) OR (failure_code IS NOT NULL))),
    CONSTRAINT collections_client_reference_check CHECK ((client_reference ~ '^[A-Za-z0-9._:-]{1,128}$'::text)),
    CONSTRAINT collections_description_check CHECK ((char_length(description) <= 2000)),
    CONSTRAINT collections_digest_check CHECK ((digest ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$'::text)),
    CONSTRAINT collections_failure_code_check CHECK ((failure_code ~ '^[a-z_]{1,64}$'::text)),
    CONSTRAINT collections_failure_reason_check CHECK ((char_length(failure_reason) <= 1000)),
    CONSTRAINT collections_image_url_check CHECK ((char_length(image_url) <= 2048)),
    CONSTRAINT collections_max_supply_check CHECK ((max_supply > 0)),
    CONSTRAINT collections_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 128))),
    CONSTRAINT collections_pass_type_check CHECK ((char_length(pass_type) <= 300)),
    CONSTRAINT collections_project_url_check CHECK ((char_length(project_url) <= 2048)),
    CONSTRAINT collections_request_hash_check CHECK ((octet_length(request_hash) = 32)),
    CONSTRAINT collections_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'published'::text, 'failed'::text]))),
    CONSTRAINT collections_tx_bytes_check CHECK ((char_length(tx_bytes) <= 65536)),
    CONSTRAINT collections_tx_signature_check CHECK ((char_length(tx_signature) <= 4096)),
    CONSTRAINT collections_digest_key UNIQUE (digest),
    CONSTRAINT collections_owner_id_client_reference_key UNIQUE (owner_id, client_reference),
    CONSTRAINT collections_pkey PRIMARY KEY (id),
    CONSTRAINT collections_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index collections_owner_listing on sui.collections (owner_id, created_at desc, id desc);

create index collections_unfinished_gas_coins on sui.collections (network, gas_coin) where status = 'pending' and gas_coin is not null;

ALTER TABLE sui.collections ENABLE ROW LEVEL SECURITY;

create policy collections_select_owner on sui.collections for select to authenticated
  using (owner_id = (select core.current_user_id()));

GRANT SELECT ON TABLE sui.collections TO authenticated;


-- The caller's row for `p_reference`, created when new. Refuses an organiser that is not one of the
-- caller's linked addresses on the network (403), and a reference already used for another request (409).
CREATE FUNCTION sui.begin_publish(p_reference text, p_request_hash bytea, p_network text, p_package_id text, p_organiser text, p_name text, p_description text, p_image_url text, p_project_url text, p_max_supply bigint, p_transferable boolean) RETURNS SETOF sui.collections
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION sui.begin_publish(p_reference text, p_request_hash bytea, p_network text, p_package_id text, p_organiser text, p_name text, p_description text, p_image_url text, p_project_url text, p_max_supply bigint, p_transferable boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION sui.begin_publish(p_reference text, p_request_hash bytea, p_network text, p_package_id text, p_organiser text, p_name text, p_description text, p_image_url text, p_project_url text, p_max_supply bigint, p_transferable boolean) TO authenticated;


-- The outcome of the stored transaction (p_digest must be its digest). A row already final stays as
-- it is; the row is returned either way.
CREATE FUNCTION sui.finish_publish(p_id text, p_digest text, p_published boolean, p_collection_object_id text, p_cap_object_id text, p_pass_type text, p_failure_code text, p_failure_reason text) RETURNS SETOF sui.collections
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION sui.finish_publish(p_id text, p_digest text, p_published boolean, p_collection_object_id text, p_cap_object_id text, p_pass_type text, p_failure_code text, p_failure_reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION sui.finish_publish(p_id text, p_digest text, p_published boolean, p_collection_object_id text, p_cap_object_id text, p_pass_type text, p_failure_code text, p_failure_reason text) TO authenticated;


-- Takes the lease of (network, signer) for `p_holder` when free or lapsed; whether it was taken.
CREATE FUNCTION sui.lease_signer(p_network text, p_signer text, p_holder uuid, p_seconds integer) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    insert into sui.signer_leases as l (network, signer, holder, leased_until)
      values (p_network, p_signer, p_holder, now() + make_interval(secs => p_seconds))
      on conflict (network, signer) do update set holder = excluded.holder, leased_until = excluded.leased_until
        where l.leased_until < now() or l.holder = excluded.holder
      returning true
  $$;

REVOKE ALL ON FUNCTION sui.lease_signer(p_network text, p_signer text, p_holder uuid, p_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION sui.lease_signer(p_network text, p_signer text, p_holder uuid, p_seconds integer) TO authenticated;


-- Stores the signed transaction of a pending row unless one is stored already; returns the one that
-- counts (the first), which the caller executes.
CREATE FUNCTION sui.record_prepared(p_id text, p_bytes text, p_signature text, p_digest text, p_gas_coin text) RETURNS TABLE(tx_bytes text, tx_signature text, digest text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION sui.record_prepared(p_id text, p_bytes text, p_signature text, p_digest text, p_gas_coin text) FROM PUBLIC;
GRANT ALL ON FUNCTION sui.record_prepared(p_id text, p_bytes text, p_signature text, p_digest text, p_gas_coin text) TO authenticated;


CREATE FUNCTION sui.release_signer(p_network text, p_signer text, p_holder uuid) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$ delete from sui.signer_leases where network = p_network and signer = p_signer and holder = p_holder $$;

REVOKE ALL ON FUNCTION sui.release_signer(p_network text, p_signer text, p_holder uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION sui.release_signer(p_network text, p_signer text, p_holder uuid) TO authenticated;


-- The gas coins of transactions signed on `p_network` and not known to have executed (whoever's
-- publish they are): a new transaction pays with another coin, or it could be an equivocation.
CREATE FUNCTION sui.unfinished_gas_coins(p_network text) RETURNS text[]
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select coalesce(array_agg(distinct c.gas_coin), '{}') from sui.collections c
    where c.network = p_network and c.status = 'pending' and c.gas_coin is not null
  $$;

REVOKE ALL ON FUNCTION sui.unfinished_gas_coins(p_network text) FROM PUBLIC;
GRANT ALL ON FUNCTION sui.unfinished_gas_coins(p_network text) TO authenticated;


CREATE TABLE sui.signer_leases (
    network sui.network NOT NULL,
    signer sui.object_id NOT NULL,
    holder uuid NOT NULL,
    leased_until timestamp with time zone NOT NULL,
    CONSTRAINT signer_leases_pkey PRIMARY KEY (network, signer)
);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON sui.signer_leases AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE sui.signer_leases ENABLE ROW LEVEL SECURITY;

