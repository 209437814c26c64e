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

-- Runs what follows as `authenticated` with the claims the gateway sets for a person over MCP:
-- app_user_id, and client_id when they act through an OAuth client (an assistant's tool call,
-- scopeOf(oauth principal)). Without a client: the person on a confirmation link's page
-- (personScope), whose claims name no client at all.
create or replace function tests.authenticate_as_person(p_user_id core.object_id, p_client_id text default null)
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  begin
    set local role authenticated;
    perform set_config(
      'request.jwt.claims',
      json_strip_nulls(json_build_object('role', 'authenticated', 'app_user_id', p_user_id, 'client_id', p_client_id))::text,
      true
    );
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
-- Sponsorship: a sponsor, holds on it and their approvals, arranged through the functions under
-- test as their callers would (the wallet's owner, the requester, the provider's verifier), each
-- helper returning to the database owner
-- ============================================================================================

-- A funded sponsor as its owner sets it up: the owner links the wallet on the chain, records a
-- deposit of p_deposit wei into it (transaction tests.tx_hash(1) in block 1, to the vault
-- 0x...f1: a test recording deposits of its own numbers them from 2) and saves settings that enable
-- p_operations for the targets in p_targets (empty: any target), with no limit.
create or replace function tests.create_sponsor(
  p_owner_id   core.object_id,
  p_wallet     text,
  p_deposit    numeric,
  p_operations sponsorship.operation_type[] default '{check_in}',
  p_targets    text[] default '{}',
  p_chain_id   bigint default 31337
)
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  begin
    perform tests.link_address(p_owner_id, p_wallet, p_chain_id::text);
    perform tests.authenticate_as(p_owner_id);
    perform sponsorship.record_deposit(p_chain_id, p_wallet, tests.tx_hash(1), p_deposit,
      '0x00000000000000000000000000000000000000f1', 1, 100);
    perform sponsorship.save_settings(p_chain_id, p_wallet, p_operations, null, null, null, null, p_targets, '{}', null, null);
    perform tests.clear_authentication();
  end
  $$;

-- A hold of 1000 wei as its requester takes one: sponsorship.check of the check_in call (client
-- 'client-1', a rate limit no fixture reaches) authenticated as p_requester, for the actor or, when
-- given, its smart account. Returns the reservation id; raises when the check is not eligible, so
-- a fixture cannot quietly hold nothing.
create or replace function tests.reserve(
  p_requester     core.object_id,
  p_chain_id      bigint,
  p_wallet        text,
  p_target        text,
  p_call_data     text,
  p_value         numeric,
  p_actor         text,
  p_smart_account text default null
)
  returns core.object_id
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_check record;
  begin
    perform tests.authenticate_as(p_requester);
    select c.eligible, c.reason, c.reservation_id into v_check
      from sponsorship.check(p_chain_id, p_wallet, 'check_in', 'client-1', p_target, p_call_data, p_value,
                             p_actor, p_smart_account, 1000, 100) c;
    perform tests.clear_authentication();
    if not v_check.eligible then
      raise exception 'tests: the check of % is not eligible: %', p_call_data, v_check.reason;
    end if;
    return v_check.reservation_id;
  end
  $$;

-- The provider's verifier (service_jobs) approves the reservation's own transaction (its client,
-- chain, sender, target, call data and value) for a gas cost of p_gas_cost wei, its whole hold
-- unless told otherwise. Raises unless that reservation is the one approved.
create or replace function tests.approve_reservation(p_reservation_id core.object_id, p_gas_cost numeric default null)
  returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_reservation sponsorship.reservations;
    v_chain_id bigint;
    v_answer record;
  begin
    -- Read as the database owner: service_jobs reads no reservation itself.
    perform tests.clear_authentication();
    select r.* into strict v_reservation from sponsorship.reservations r where r.id = p_reservation_id;
    select s.chain_id into strict v_chain_id from sponsorship.sponsors s where s.id = v_reservation.sponsor_id;
    set local role service_jobs;
    select v.reason, v.reservation_id into v_answer
      from sponsorship.provider_verify(v_reservation.client_id, v_chain_id,
        coalesce(v_reservation.smart_account_address, v_reservation.actor_address), v_reservation.target_address,
        v_reservation.call_data, v_reservation.native_value_wei, coalesce(p_gas_cost, v_reservation.max_cost)) v;
    set local role none;
    if v_answer.reason is distinct from 'approved' or v_answer.reservation_id is distinct from p_reservation_id then
      raise exception 'tests: reservation % was not approved: % %', p_reservation_id, v_answer.reason, v_answer.reservation_id;
    end if;
  end
  $$;

-- ============================================================================================
-- MCP: a person signed in on the OAuth pages and the grants they approve there
-- ============================================================================================

-- Signs the person in on the OAuth pages as the gateway does: a sign-in code (123456) mailed to the
-- address and entered from 192.0.2.1, which opens the browser session whose token is p_session
-- (stored as its hash). Returns the user's id; raises when the sign-in fails.
create or replace function tests.sign_in_to_oauth(p_email text, p_session text default 'session')
  returns core.object_id
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_code_id core.object_id;
    v_result record;
  begin
    v_code_id := mcp_oauth.issue_sign_in_code(p_email, '192.0.2.1', tests.sha256_of('123456'), 600, 5, 30, 900, 60, 50);
    select v.error, v.user_id into v_result from mcp_oauth.verify_sign_in_code(v_code_id, p_email,
      tests.sha256_of('123456'), '192.0.2.1', 5, 60, 900, 50, tests.sha256_of(p_session), 3600) v;
    if v_result.user_id is null then
      raise exception 'tests: % could not sign in: %', p_email, v_result.error;
    end if;
    return v_result.user_id;
  end
  $$;

-- The person signed in with session p_session approves the client ("Client A" for client-a) for the
-- scopes on the consent page: redirect http://127.0.0.1:1234/cb, resource http://api.test/mcp,
-- authorization code p_code with the PKCE challenge repeat('a', 43). Returns the grant's id.
create or replace function tests.approve_client(
  p_client_id text,
  p_scopes    text[],
  p_code      text default 'code-1',
  p_session   text default 'session'
)
  returns core.object_id
  language sql volatile
  set search_path = ''
  as $$
    select mcp_oauth.approve(tests.sha256_of(p_session), p_client_id,
      pg_catalog.initcap(pg_catalog.replace(p_client_id, '-', ' ')), 'http://127.0.0.1:1234/cb', p_scopes,
      'http://api.test/mcp', tests.sha256_of(p_code), pg_catalog.repeat('a', 43), 60)
  $$;

-- ============================================================================================
-- Grants: which functions a role may execute, for the deny-by-default tests of each schema, and
-- everything a role holds, for the inventory tests of service_jobs
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

-- Who may run `p_function`, among the roles a job function must be kept from and service_jobs
-- itself ('PUBLIC' when granted to everyone), sorted: a job function must answer {service_jobs}.
create or replace function tests.roles_executing(p_function regprocedure)
  returns text[]
  language sql stable
  set search_path = ''
  as $$
    select coalesce(pg_catalog.array_agg(name order by name), '{}')
    from (
      select r.rolname::text as name from pg_catalog.pg_roles r
      where r.rolname in ('service_jobs', 'anon', 'authenticated', 'api_gateway', 'service_role')
        and pg_catalog.has_function_privilege(r.oid, p_function, 'execute')
      union all
      select 'PUBLIC' where tests.is_executable_by_public(p_function)
    ) roles
  $$;

-- Who may write the table, among the API and job roles ('<role>: <privilege>' for insert, update,
-- delete and truncate), sorted: an append-only table must answer {}.
create or replace function tests.roles_writing(p_table regclass)
  returns text[]
  language sql stable
  set search_path = ''
  as $$
    select coalesce(pg_catalog.array_agg(r.rolname || ': ' || p.privilege order by r.rolname, p.privilege), '{}')
    from pg_catalog.pg_roles r
    cross join pg_catalog.unnest(array['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) p(privilege)
    where r.rolname in ('anon', 'authenticated', 'service_role', 'service_jobs', 'api_gateway')
      and pg_catalog.has_table_privilege(r.oid, p_table, p.privilege)
  $$;

-- Everything the role holds in the schemas, one line a privilege, sorted: `schema s: USAGE`, then
-- `table s.t: SELECT` (`view`, `sequence` likewise), `column s.t.c: UPDATE`, `function
-- s.f(args): EXECUTE` and `policy s.t.p: SELECT` for each RLS policy naming the role. Schemas,
-- relations and columns count the grants made to the role itself; a function counts whenever the
-- role may run it, as `function s.f(args): EXECUTE (PUBLIC)` when it may only because everyone may.
-- Raises when there is no such role or schema, so a misspelt name cannot pass for an empty list.
-- An inventory test compares the whole list with what the role's jobs need.
create or replace function tests.privileges_of(p_role text, p_schemas text[])
  returns setof text
  language sql stable
  set search_path = ''
  as $$
    with role as (
      select p_role::pg_catalog.regrole::pg_catalog.oid as oid
    ), schemas as (
      select s::pg_catalog.regnamespace::pg_catalog.oid as oid from pg_catalog.unnest(p_schemas) s
    )
    select line from (
      select 1 as kind, pg_catalog.format('schema %I: %s', n.nspname, a.privilege_type) as line
      from pg_catalog.pg_namespace n
      cross join pg_catalog.aclexplode(n.nspacl) a
      where n.oid in (select oid from schemas) and a.grantee = (select oid from role)
      union all
      select 2, pg_catalog.format('%s %I.%I: %s',
               case c.relkind when 'S' then 'sequence' when 'v' then 'view' when 'm' then 'materialized view' else 'table' end,
               n.nspname, c.relname, a.privilege_type)
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      cross join pg_catalog.aclexplode(c.relacl) a
      where n.oid in (select oid from schemas) and a.grantee = (select oid from role)
      union all
      select 3, pg_catalog.format('column %I.%I.%I: %s', n.nspname, c.relname, t.attname, a.privilege_type)
      from pg_catalog.pg_attribute t
      join pg_catalog.pg_class c on c.oid = t.attrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      cross join pg_catalog.aclexplode(t.attacl) a
      where n.oid in (select oid from schemas) and a.grantee = (select oid from role)
      union all
      select 4, 'function ' || p.oid::pg_catalog.regprocedure::text || ': EXECUTE' || case when exists (
               -- granted to the role, to a role it belongs to, or it owns the function
               select from pg_catalog.aclexplode(coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
               where a.privilege_type = 'EXECUTE' and a.grantee <> 0
                 and pg_catalog.pg_has_role((select oid from role), a.grantee, 'USAGE')
             ) then '' else ' (PUBLIC)' end
      from pg_catalog.pg_proc p
      where p.pronamespace in (select oid from schemas)
        and pg_catalog.has_function_privilege((select oid from role), p.oid, 'execute')
      union all
      select 5, pg_catalog.format('policy %I.%I.%I: %s', pol.schemaname, pol.tablename, pol.policyname, pol.cmd)
      from pg_catalog.pg_policies pol
      where pol.schemaname::text = any (p_schemas) and p_role::pg_catalog.name = any (pol.roles)
    ) lines
    order by kind, line collate "C"
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

revoke execute on all functions in schema tests from public;
grant execute on all functions in schema tests to anon, authenticated, service_role;
