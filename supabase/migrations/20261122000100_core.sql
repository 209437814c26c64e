-- Core: users, profiles, linked crypto addresses, wallet-link nonces and API keys.
--
-- Requests run as `authenticated` with the caller's claims, so the policies below are the access
-- rule. Anything that must see across owners (API-key authentication, wallet linking) is a small
-- `security definer` function with a pinned search_path.

-- ============================================================================================
-- Schema and default privileges: deny by default
-- ============================================================================================
create schema core;
revoke all on schema core from public;
-- anon gets usage only so that policies of other schemas can call core.current_user_id(); it holds
-- no grant on any core table.
grant usage on schema core to anon, authenticated, service_role;

-- A per-schema default cannot take away PUBLIC's global EXECUTE on functions; the end of this
-- file revokes it from every function in the schema, and grants stay explicit.
alter default privileges in schema core revoke all on tables from public;

-- ============================================================================================
-- ObjectIDs: 24 hex characters, MongoDB layout (4-byte seconds, 5 random bytes, 3-byte counter)
-- ============================================================================================
create domain core.object_id as text
  check (value ~ '^[0-9a-f]{24}$');

create sequence core.object_id_counter as bigint cycle maxvalue 16777215;
grant usage on sequence core.object_id_counter to authenticated, service_role;

create function core.new_object_id() returns core.object_id
  language sql volatile
  set search_path = ''
  as $$
    select (
      lpad(to_hex(floor(extract(epoch from clock_timestamp()))::bigint), 8, '0')
      -- the first 10 hex digits of a v4 uuid are all random
      || substr(replace(gen_random_uuid()::text, '-', ''), 1, 10)
      || lpad(to_hex(nextval('core.object_id_counter')), 6, '0')
    )::core.object_id
  $$;
grant execute on function core.new_object_id() to authenticated, service_role;

create function core.touch_updated_at() returns trigger
  language plpgsql
  set search_path = ''
  as $$
  begin
    new.updated_at := now();
    return new;
  end
  $$;

-- ============================================================================================
-- Users and profiles
-- ============================================================================================
create table core.users (
  id           core.object_id primary key default core.new_object_id(),
  -- The auth user (uuid) that session JWTs carry in `sub`. Users made by the admin CLI get a fresh
  -- one, so API-key requests and session requests share one RLS rule: auth.uid().
  auth_user_id uuid not null unique default gen_random_uuid(),
  email        text check (email is null or email ~ '^[^@\s]+@[^@\s]+$'),
  created_at   timestamptz not null default now()
);
create unique index users_email_key on core.users (lower(email));

create table core.profiles (
  user_id      core.object_id primary key references core.users (id) on delete cascade,
  username     text unique check (username ~ '^[a-z0-9_]{3,32}$'),
  display_name text check (char_length(display_name) <= 100),
  bio          text check (char_length(bio) <= 1000),
  avatar_url   text check (avatar_url ~ '^https://'),
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now()
);
create trigger profiles_touch_updated_at before update on core.profiles
  for each row execute function core.touch_updated_at();

-- Every user has a profile row, so /me never has to special-case its absence.
create function core.create_profile_for_user() returns trigger
  language plpgsql
  set search_path = ''
  as $$
  begin
    insert into core.profiles (user_id) values (new.id);
    return new;
  end
  $$;
create trigger users_create_profile after insert on core.users
  for each row execute function core.create_profile_for_user();

-- The caller's user id. Policies call it as `(select core.current_user_id())` so it runs once per
-- statement. The gateway puts the id it resolved in the claims (`app_user_id`), which spares a
-- lookup; tokens Supabase Auth signs carry no such top-level claim, so for them the auth user is
-- looked up. Security definer so that policies on other tables need no grant on users; plpgsql so
-- the lookup's plan is cached.
create function core.current_user_id() returns core.object_id
  language plpgsql stable security definer
  set search_path = ''
  as $$
  declare
    v_claims jsonb := nullif(current_setting('request.jwt.claims', true), '')::jsonb;
  begin
    if v_claims ? 'app_user_id' then
      return (v_claims ->> 'app_user_id')::core.object_id;
    end if;
    return (select id from core.users where auth_user_id = auth.uid());
  end
  $$;
grant execute on function core.current_user_id() to anon, authenticated, service_role;

alter table core.users enable row level security;
alter table core.profiles enable row level security;

create policy users_select_self on core.users
  for select to authenticated
  using (auth_user_id = (select auth.uid()));

create policy profiles_select_self on core.profiles
  for select to authenticated
  using (user_id = (select core.current_user_id()));

create policy profiles_update_self on core.profiles
  for update to authenticated
  using (user_id = (select core.current_user_id()))
  with check (user_id = (select core.current_user_id()));

grant select on core.users to authenticated;
grant select on core.profiles to authenticated;
grant update (username, display_name, bio, avatar_url) on core.profiles to authenticated;
grant select, insert, update, delete on core.users, core.profiles to service_role;

-- A session JWT from Supabase Auth names an auth user that may not have a service user yet.
create function core.user_for_auth_user(p_auth_user_id uuid, p_email text default null)
  returns core.object_id
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_id core.object_id;
  begin
    select id into v_id from core.users where auth_user_id = p_auth_user_id;
    if v_id is null then
      insert into core.users (auth_user_id, email) values (p_auth_user_id, p_email)
      on conflict (auth_user_id) do update set auth_user_id = excluded.auth_user_id
      returning id into v_id;
    end if;
    return v_id;
  end
  $$;
grant execute on function core.user_for_auth_user(uuid, text) to service_role;

-- ============================================================================================
-- Linked crypto addresses
-- ============================================================================================
create table core.crypto_addresses (
  id          core.object_id primary key default core.new_object_id(),
  user_id     core.object_id not null references core.users (id) on delete cascade,
  address     text not null check (char_length(address) between 3 and 128),
  -- EVM chain ids are decimal strings ('1', '8453'); other chains use a CAIP-2 style name.
  chain_id    text not null check (chain_id ~ '^([0-9]{1,20}|[a-z0-9]{3,8}:[a-zA-Z0-9-]{1,32})$'),
  connector   text not null check (char_length(connector) between 1 and 64),
  verified_by text not null check (verified_by in ('siwe', 'operator')),
  created_at  timestamptz not null default now()
);
-- A wallet belongs to one user on a chain; EVM addresses compare case-insensitively.
create unique index crypto_addresses_chain_address_key on core.crypto_addresses (chain_id, lower(address));
create index crypto_addresses_user_id_idx on core.crypto_addresses (user_id, created_at);

alter table core.crypto_addresses enable row level security;

create policy crypto_addresses_select_owner on core.crypto_addresses
  for select to authenticated
  using (user_id = (select core.current_user_id()));

create policy crypto_addresses_delete_owner on core.crypto_addresses
  for delete to authenticated
  using (user_id = (select core.current_user_id()));

-- No insert grant: linking goes through core.link_crypto_address, which spends a SIWE nonce.
grant select, delete on core.crypto_addresses to authenticated;
grant select, insert, update, delete on core.crypto_addresses to service_role;

-- ============================================================================================
-- SIWE nonces: issued to one user, spent once, short-lived
-- ============================================================================================
create table core.siwe_nonces (
  nonce      text primary key check (nonce ~ '^[A-Za-z0-9]{8,128}$'),
  user_id    core.object_id not null references core.users (id) on delete cascade,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index siwe_nonces_expires_at_idx on core.siwe_nonces (expires_at);
alter table core.siwe_nonces enable row level security;
-- No policies and no grants for authenticated: only the functions below touch nonces.
grant select, insert, delete on core.siwe_nonces to service_role;

create function core.issue_siwe_nonce(p_nonce text)
  returns timestamptz
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
    v_expires_at timestamptz := now() + interval '10 minutes';
  begin
    if v_user is null then
      raise exception 'no authenticated user' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    -- Expired nonces of this user are garbage; clearing them here keeps the table small.
    delete from core.siwe_nonces where user_id = v_user and expires_at < now();
    insert into core.siwe_nonces (nonce, user_id, expires_at) values (p_nonce, v_user, v_expires_at);
    return v_expires_at;
  end
  $$;
grant execute on function core.issue_siwe_nonce(text) to authenticated;

-- Spends the nonce and links the address in one statement, after the gateway verified the
-- signature: a nonce that is unknown, expired, spent or another user's links nothing.
create function core.link_crypto_address(p_nonce text, p_address text, p_chain_id text, p_connector text)
  returns setof core.crypto_addresses
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
  begin
    delete from core.siwe_nonces
      where nonce = p_nonce and user_id = v_user and expires_at > now();
    if not found then
      raise exception 'the SIWE nonce is unknown, expired or already used'
        using errcode = 'PT400', hint = 'siwe_nonce_invalid';
    end if;
    return query
      insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
      values (v_user, p_address, p_chain_id, p_connector, 'siwe')
      returning *;
  exception
    when unique_violation then
      raise exception 'this address is already linked on this chain'
        using errcode = 'PT409', hint = 'address_already_linked';
  end
  $$;
grant execute on function core.link_crypto_address(text, text, text, text) to authenticated;

-- ============================================================================================
-- API keys: only a SHA-256 of the key is stored; the prefix is what people see
-- ============================================================================================
-- Permissions in the spec's shape: {"checkout": ["create", "retry"], "sponsorship": ["write"]}.
create function core.is_valid_permissions(p jsonb) returns boolean
  language sql immutable
  set search_path = ''
  as $$
    select jsonb_typeof(p) = 'object'
      and not exists (
        select from jsonb_each(p) as e(resource, actions)
        where e.resource !~ '^[a-z][a-z_]{0,31}$'
           or jsonb_typeof(e.actions) <> 'array'
           or exists (
             select from jsonb_array_elements(e.actions) as a(action)
             where jsonb_typeof(a.action) <> 'string' or a.action #>> '{}' !~ '^[a-z][a-z_]{0,31}$'
           )
      )
  $$;

create table core.api_keys (
  id           core.object_id primary key default core.new_object_id(),
  owner_id     core.object_id not null references core.users (id) on delete cascade,
  name         text not null check (char_length(name) between 1 and 100),
  prefix       text not null unique check (prefix ~ '^sk_[a-z0-9]{8}$'),
  key_hash     bytea not null unique check (octet_length(key_hash) = 32),
  permissions  jsonb not null default '{}' check (core.is_valid_permissions(permissions)),
  created_at   timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at   timestamptz
);
create index api_keys_owner_id_idx on core.api_keys (owner_id, created_at);

alter table core.api_keys enable row level security;

create policy api_keys_select_owner on core.api_keys
  for select to authenticated
  using (owner_id = (select core.current_user_id()));

-- Owners see their keys' metadata, never the hash.
grant select (id, owner_id, name, prefix, permissions, created_at, last_used_at, revoked_at)
  on core.api_keys to authenticated;
grant select, insert, update, delete on core.api_keys to service_role;

-- Resolves a key hash to its owner: the one statement of API-key authentication. plpgsql, so its
-- plan is cached per connection (a SQL-language security definer function is planned every call).
create function core.authenticate_api_key(p_key_hash bytea)
  returns table (
    api_key_id   core.object_id,
    user_id      core.object_id,
    auth_user_id uuid,
    permissions  jsonb,
    prefix       text,
    last_used_at timestamptz
  )
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    return query
      select k.id, u.id, u.auth_user_id, k.permissions, k.prefix, k.last_used_at
      from core.api_keys k
      join core.users u on u.id = k.owner_id
      where k.key_hash = p_key_hash and k.revoked_at is null;
  end
  $$;
grant execute on function core.authenticate_api_key(bytea) to service_role;

-- Last use is written at most once a minute, so a busy key costs one row update a minute rather
-- than one per request. The gateway calls it when authentication returned a stale last_used_at.
create function core.record_api_key_use(p_api_key_id core.object_id) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    update core.api_keys set last_used_at = now()
      where id = p_api_key_id and (last_used_at is null or last_used_at < now() - interval '1 minute');
  end
  $$;
grant execute on function core.record_api_key_use(core.object_id) to service_role;

-- ============================================================================================
-- Deny by default: nothing in core is executable unless granted above
-- ============================================================================================
revoke execute on all functions in schema core from public;
-- CHECK constraints run with the writer's privileges.
grant execute on function core.is_valid_permissions(jsonb) to authenticated, service_role;
