-- Fixtures for the pgTAP suite (tests/db), loaded by scripts/pgtap.ts into its own database after
-- the migrations. Modelled on basejump's supabase-test-helpers: everything lives in a `tests`
-- schema that the RLS guard skips, and authentication is the gateway's own convention
-- (`set local role` plus `request.jwt.claims`), so the policies under test are the real ones.
--
-- Tests run inside `begin; ... rollback;`, so every fixture and every role switch is undone.

-- ============================================================================================
-- Schema: callable by the roles tests switch to, never by PUBLIC
-- ============================================================================================
create schema if not exists tests;
revoke all on schema tests from public;
grant usage on schema tests to anon, authenticated, service_role;

-- ============================================================================================
-- Users
-- ============================================================================================

-- A service user (and, through the trigger, its profile), inserted as the database owner.
create or replace function tests.create_user(p_email text default null)
  returns core.object_id
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into core.users (email) values (p_email) returning id
  $$;

-- The auth user (the JWT `sub`) behind a service user; raises when there is no such user.
create or replace function tests.auth_user_id_of(p_user_id core.object_id)
  returns uuid
  language plpgsql stable security definer
  set search_path = ''
  as $$
  declare
    v_auth_user_id uuid;
  begin
    select auth_user_id into v_auth_user_id from core.users where id = p_user_id;
    if v_auth_user_id is null then
      raise exception 'tests: no user with id %', p_user_id;
    end if;
    return v_auth_user_id;
  end
  $$;

-- ============================================================================================
-- Authentication: what the gateway does per request. Not security definer: `set role` is not
-- allowed inside one, and the role must outlive the call (until the test's rollback).
-- ============================================================================================

-- Runs what follows as `authenticated` with the claims of a session for that user.
create or replace function tests.authenticate_as(p_user_id core.object_id)
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    -- Looked up before switching: as `authenticated` only one's own user row is visible.
    v_sub uuid := tests.auth_user_id_of(p_user_id);
  begin
    set local role authenticated;
    perform set_config(
      'request.jwt.claims',
      json_build_object('sub', v_sub, 'role', 'authenticated', 'aud', 'authenticated')::text,
      true
    );
  end
  $$;

-- Runs what follows as `anon`: a request without credentials.
create or replace function tests.authenticate_as_anon()
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  begin
    set local role anon;
    perform set_config('request.jwt.claims', json_build_object('role', 'anon')::text, true);
  end
  $$;

-- Runs what follows as `service_role`: privileged jobs and the operator CLI.
create or replace function tests.authenticate_as_service_role()
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  begin
    set local role service_role;
    perform set_config('request.jwt.claims', json_build_object('role', 'service_role')::text, true);
  end
  $$;

-- Back to the database owner with no claims, for arranging and inspecting state.
create or replace function tests.clear_authentication()
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  begin
    set local role none;
    perform set_config('request.jwt.claims', '', true);
  end
  $$;

-- ============================================================================================
-- API keys and addresses, arranged as the operator would (the admin CLI runs as service_role)
-- ============================================================================================

-- SHA-256 of a text's UTF-8 bytes: how the gateway hashes keys, client secrets and requests.
create or replace function tests.sha256_of(p_text text)
  returns bytea
  language sql immutable
  set search_path = ''
  as $$
    select pg_catalog.sha256(pg_catalog.convert_to(p_text, 'UTF8'))
  $$;

-- What the gateway looks a presented key up by.
create or replace function tests.api_key_hash(p_key text)
  returns bytea
  language sql immutable
  set search_path = ''
  as $$ select tests.sha256_of(p_key) $$;

-- Stores a key given in full (`sk_<8 chars>_<secret>`); returns its id.
create or replace function tests.create_api_key(
  p_owner_id    core.object_id,
  p_key         text,
  p_name        text default 'test key',
  p_permissions jsonb default '{}'
)
  returns core.object_id
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into core.api_keys (owner_id, name, prefix, key_hash, permissions)
    values (p_owner_id, p_name, substr(p_key, 1, 11), tests.api_key_hash(p_key), p_permissions)
    returning id
  $$;

-- Links an address the way an operator does (no SIWE nonce); returns its id.
create or replace function tests.link_address(
  p_user_id  core.object_id,
  p_address  text,
  p_chain_id text default '1'
)
  returns core.object_id
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
    values (p_user_id, p_address, p_chain_id, 'injected', 'operator')
    returning id
  $$;

-- ============================================================================================
-- Community: events, hubs, members and connections, arranged as the database owner (no RLS), so
-- a test states what exists and then asks what each caller sees or may change.
-- ============================================================================================

-- An event of that owner, tomorrow for an hour in UTC; returns its id. Published and public unless
-- told otherwise. The slug is made from the id, so one owner can have any number of them.
create or replace function tests.create_event(
  p_owner_id   core.object_id,
  p_status     community.publication_status default 'PUBLISHED',
  p_visibility community.event_visibility default 'public',
  p_name       text default 'test event'
)
  returns core.object_id
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_id core.object_id := core.new_object_id();
  begin
    insert into community.events (id, owner_id, name, slug, starts_at, ends_at, time_zone, visibility, status)
    values (v_id, p_owner_id, p_name, 'event-' || v_id, now() + interval '1 day',
            now() + interval '1 day 1 hour', 'UTC', p_visibility, p_status);
    return v_id;
  end
  $$;

-- A hub (a group unless told otherwise) of that owner; returns its id. Published and not private
-- unless told otherwise.
create or replace function tests.create_hub(
  p_owner_id   core.object_id,
  p_status     community.publication_status default 'PUBLISHED',
  p_is_private boolean default false,
  p_hub_type   community.hub_type default 'group'
)
  returns core.object_id
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_id core.object_id := core.new_object_id();
  begin
    insert into community.hubs (id, owner_id, hub_type, status, name, slug, is_private)
    values (v_id, p_owner_id, p_hub_type, p_status, 'test hub', 'hub-' || v_id, p_is_private);
    return v_id;
  end
  $$;

-- Makes the user a member of the hub, whatever the hub's status or privacy.
create or replace function tests.add_member(p_hub_id core.object_id, p_user_id core.object_id)
  returns void
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into community.hub_members (hub_id, user_id) values (p_hub_id, p_user_id)
  $$;

-- Connects the event to the hub, whoever may see either (for example an event that became
-- private after it was connected).
create or replace function tests.connect_event(p_hub_id core.object_id, p_event_id core.object_id)
  returns void
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into community.hub_events (hub_id, event_id) values (p_hub_id, p_event_id)
  $$;

-- The event ids connected to the hub, sorted, whoever may see them: what is really stored.
create or replace function tests.connected_event_ids(p_hub_id core.object_id)
  returns text[]
  language sql stable security definer
  set search_path = ''
  as $$
    select coalesce(array_agg(event_id::text order by event_id), '{}')
    from community.hub_events where hub_id = p_hub_id
  $$;

-- Who may run `p_function`, among the roles a job function must be kept from and service_jobs
-- itself ('PUBLIC' when granted to everyone), sorted: a job function must answer {service_jobs}.
create or replace function tests.roles_executing(p_function regprocedure) returns text[]
  language sql stable
  set search_path = ''
  as $$
    select coalesce(pg_catalog.array_agg(name order by name), '{}')
    from (
      select r.rolname::text as name from pg_catalog.pg_roles r
      where r.rolname in ('service_jobs', 'anon', 'authenticated', 'api_gateway', 'service_role')
        and pg_catalog.has_function_privilege(r.oid, p_function, 'execute')
      union all
      select 'PUBLIC' from pg_catalog.pg_proc p, pg_catalog.aclexplode(coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
      where p.oid = p_function and a.grantee = 0 and a.privilege_type = 'EXECUTE'
    ) roles
  $$;

revoke execute on all functions in schema tests from public;
grant execute on all functions in schema tests to anon, authenticated, service_role;

-- ============================================================================================
-- Checkout: collections, canonical requests and client secrets, arranged as the database owner
-- ============================================================================================

-- A collection of that owner on anvil's chain (31337), static at 1000 wei unless told otherwise;
-- returns its id. The address is made from the id, so an owner can have any number of them; the
-- verified owner address is recorded as given (the insert policy is tested on its own).
create or replace function tests.create_collection(
  p_owner_id                core.object_id,
  p_pricing                 text default 'static',
  p_mint_price              numeric default 1000,
  p_chain_id                bigint default 31337,
  p_provider_card_chain_ids bigint[] default '{}',
  p_payment_token           text default null
)
  returns core.object_id
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_id core.object_id := core.new_object_id();
  begin
    insert into checkout.collections (id, owner_id, chain_id, address, pricing, mint_price, payment_token,
                                      token_decimals, provider_card_chain_ids, verified_owner_address)
    values (v_id, p_owner_id, p_chain_id, '0x' || lpad(v_id, 40, '0'), p_pricing,
            case when p_pricing = 'static' then p_mint_price end, p_payment_token, 18,
            p_provider_card_chain_ids, '0x00000000000000000000000000000000000000aa');
    return v_id;
  end
  $$;

-- A canonical checkout request as the gateway would build it (price in the smallest unit).
create or replace function tests.checkout_request(
  p_price      text default '1000',
  p_webhook    text default 'https://store.example/webhooks',
  p_item_name  text default 'Ticket #1'
)
  returns jsonb
  language sql immutable
  set search_path = ''
  as $$
    select pg_catalog.jsonb_build_object(
      'items', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
        'name', p_item_name, 'description', 'One ticket', 'mintPrice', p_price,
        'image', 'https://store.example/ticket.png', 'externalProductRef', 'sku-1', 'quantity', 1)),
      'paymentMethods', pg_catalog.jsonb_build_array('crypto_wallet'),
      'allowedOrigin', 'https://store.example',
      'webhookUrl', p_webhook,
      'expiresInSeconds', 3600,
      'price', p_price)
  $$;

-- The request's fingerprint: the hash of its canonical text (the gateway computes its own).
create or replace function tests.checkout_fingerprint(p_request jsonb)
  returns bytea
  language sql immutable
  set search_path = ''
  as $$ select tests.sha256_of(p_request::text) $$;

-- What the gateway stores of a client secret: its hash.
create or replace function tests.client_secret_hash(p_secret text)
  returns bytea
  language sql immutable
  set search_path = ''
  as $$ select tests.sha256_of(p_secret) $$;

-- Creates a session through checkout.create_session as its owner would (authenticated), then
-- returns to the database owner; returns the session id. The secret's "ciphertext" is its text.
create or replace function tests.create_checkout_session(
  p_owner_id      core.object_id,
  p_collection_id core.object_id,
  p_order_id      text,
  p_secret        text,
  p_expires_at    timestamptz default now() + interval '1 hour',
  p_request       jsonb default tests.checkout_request()
)
  returns core.object_id
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_id core.object_id;
  begin
    perform tests.authenticate_as(p_owner_id);
    select s.id into v_id from checkout.create_session(
      p_collection_id, p_order_id, tests.checkout_fingerprint(p_request), p_request,
      tests.client_secret_hash(p_secret), pg_catalog.convert_to(p_secret, 'UTF8'), p_expires_at) s;
    perform tests.clear_authentication();
    return v_id;
  end
  $$;

-- A transaction hash made from a number: '0x' and 64 hex digits.
create or replace function tests.tx_hash(p_n integer)
  returns text
  language sql immutable
  set search_path = ''
  as $$
    select '0x' || pg_catalog.lpad(pg_catalog.to_hex(p_n), 64, '0')
  $$;

-- Completes the session of that owner's order as the hosted page would (anon with the client
-- secret 'secret-<n>' for order 'order-<n>'), with transaction tests.tx_hash(n) minting token n to
-- a fixed payer for the default price; back to the database owner. Returns the session id.
create or replace function tests.complete_checkout_order(p_owner_id core.object_id, p_n integer)
  returns core.object_id
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_id core.object_id;
  begin
    select s.id into v_id from checkout.sessions s
      where s.owner_id = p_owner_id and s.external_order_id = 'order-' || p_n;
    perform tests.authenticate_as_anon();
    perform checkout.complete_session(v_id, tests.client_secret_hash('secret-' || p_n), tests.tx_hash(p_n),
      '0x00000000000000000000000000000000000000b1', array[p_n::numeric], 1000, null, 10);
    perform tests.clear_authentication();
    return v_id;
  end
  $$;

-- ============================================================================================
-- Grants: which functions a role may execute, for the deny-by-default tests of each schema
-- ============================================================================================

-- Whether PUBLIC holds EXECUTE on the function, explicitly or by the default a function gets when
-- nobody revoked it (a null proacl).
create or replace function tests.is_executable_by_public(p_function regprocedure)
  returns boolean
  language sql stable
  set search_path = ''
  as $$
    select exists (
      select from pg_catalog.pg_proc p
      cross join pg_catalog.aclexplode(coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
      where p.oid = p_function and a.grantee = 0 and a.privilege_type = 'EXECUTE'
    )
  $$;

-- The functions of the schema that PUBLIC may execute, as sorted regprocedure texts. Raises when
-- there is no such schema, so a misspelt name cannot pass for an empty list.
create or replace function tests.functions_executable_by_public(p_schema text)
  returns setof text
  language sql stable
  set search_path = ''
  as $$
    select p.oid::pg_catalog.regprocedure::text
    from pg_catalog.pg_proc p
    where p.pronamespace = p_schema::pg_catalog.regnamespace and tests.is_executable_by_public(p.oid)
    order by 1
  $$;

-- The functions of the schema that the role may execute (granted to it, to a role it belongs to or
-- to PUBLIC), as sorted regprocedure texts. Raises when there is no such role or schema.
create or replace function tests.functions_executable_by(p_role text, p_schema text)
  returns setof text
  language sql stable
  set search_path = ''
  as $$
    select p.oid::pg_catalog.regprocedure::text
    from pg_catalog.pg_proc p
    where p.pronamespace = p_schema::pg_catalog.regnamespace
      and pg_catalog.has_function_privilege(p_role::pg_catalog.regrole, p.oid, 'execute')
    order by 1
  $$;

-- What a statement raises, as {code, hint, detail (when JSON)}; null when it succeeds. For asserting
-- the PostgREST-style errors of the SQL functions (PTnnn, the hint as the API's code, JSON details).
create or replace function tests.error_of(p_sql text) returns jsonb
  language plpgsql
  as $f$
  declare v_state text; v_hint text; v_detail text;
  begin
    execute p_sql;
    return null;
  exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_hint = pg_exception_hint, v_detail = pg_exception_detail;
    return jsonb_strip_nulls(jsonb_build_object('code', v_state, 'hint', nullif(v_hint, ''),
      'detail', case when v_detail like '{%' then v_detail::jsonb end));
  end $f$;

-- Who may run `p_function`, among the roles a job function must be kept from and service_jobs
-- itself ('PUBLIC' when granted to everyone), sorted: a job function must answer {service_jobs}.
create or replace function tests.roles_executing(p_function regprocedure) returns text[]
  language sql stable
  set search_path = ''
  as $$
    select coalesce(pg_catalog.array_agg(name order by name), '{}')
    from (
      select r.rolname::text as name from pg_catalog.pg_roles r
      where r.rolname in ('service_jobs', 'anon', 'authenticated', 'api_gateway', 'service_role')
        and pg_catalog.has_function_privilege(r.oid, p_function, 'execute')
      union all
      select 'PUBLIC' from pg_catalog.pg_proc p, pg_catalog.aclexplode(coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
      where p.oid = p_function and a.grantee = 0 and a.privilege_type = 'EXECUTE'
    ) roles
  $$;

revoke execute on all functions in schema tests from public;
grant execute on all functions in schema tests to anon, authenticated, service_role;
