-- Core: users, profiles, linked crypto addresses, wallet-link nonces, API keys and the scope an
-- API-key request enters, what the service's login role may do, rate limits, and the way every
-- pg_cron job is scheduled.
--
-- Requests run as `authenticated` with the caller's claims, so the policies below are the access
-- rule. Anything that must see across owners (API-key authentication, wallet linking) is a small
-- `security definer` function with a pinned search_path.
--
-- The service logs in as `api_gateway` (sql/bootstrap.sql): a role with no table privileges and no
-- BYPASSRLS that can only switch to the request roles. A slip in a handler can then never read
-- across owners: without entering a scope, its statements see nothing at all. What the login role
-- itself may do is granted in this file, and nothing else:
--   * enter an API key's scope (core.enter_api_key_scope, and /me's one-statement read);
--   * find or provision the user of a verified session token (core.user_for_auth_user);
--   * read the applied migration versions, for /ready.
--
-- Jobs follow one pattern, which the SIWE nonce purge below sets:
--   * the job's work is one function in its domain's schema, run as the role `service_jobs`
--     (sql/bootstrap.sql), which gets exactly the grants and RLS policies that function needs;
--   * core.schedule_job installs the schedule where pg_cron exists and is a no-op elsewhere;
--   * pgTAP calls the function as `service_jobs`; correctness never waits for the schedule.

-- ============================================================================================
-- Schema and default privileges: deny by default
-- ============================================================================================
create schema core;
revoke all on schema core from public;
-- anon gets usage only so that policies of other schemas can call core.current_user_id(); it holds
-- no grant on any core table.
grant usage on schema core to anon, authenticated, service_role;
-- Usage only, so that names in core resolve: the login role and the jobs can call what is granted
-- to them below and read nothing else.
grant usage on schema core to api_gateway, service_jobs;

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

-- The caller's id, for tokens without the gateway's `app_user_id` claim (signed by Supabase Auth):
-- their auth user is looked up. Security definer so that policies on other tables need no grant on
-- users; plpgsql so the lookup's plan is cached.
create function core.user_id_of_auth_user() returns core.object_id
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    return (select id from core.users where auth_user_id = auth.uid());
  end
  $$;
grant execute on function core.user_id_of_auth_user() to anon, authenticated, service_role;

-- The caller's user id. Policies call it as `(select core.current_user_id())` so it runs once per
-- statement. It runs in nearly every policy, several times per request: as an inlinable SQL
-- function reading the id the gateway put in the claims (`app_user_id`) it costs a fraction of a
-- security definer function (which rebuilds the search path on every call); only tokens without
-- the claim take the security definer lookup of their auth user.
create function core.current_user_id() returns core.object_id
  language sql stable
  as $$
    select coalesce(
      (nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'app_user_id')::core.object_id,
      core.user_id_of_auth_user())
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

-- A session JWT from Supabase Auth names an auth user that may not have a service user yet. The
-- login role provisions it when it verified such a token.
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
grant execute on function core.user_for_auth_user(uuid, text) to service_role, api_gateway;

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
-- SIWE nonces: issued to one user, spent once, short-lived, at most 10 live per user
-- ============================================================================================
create table core.siwe_nonces (
  nonce      text primary key check (nonce ~ '^[A-Za-z0-9]{8,128}$'),
  user_id    core.object_id not null references core.users (id) on delete cascade,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index siwe_nonces_expires_at_idx on core.siwe_nonces (expires_at);
-- The cap counts this user's live nonces, and the expired-row cleanup works on them too.
create index siwe_nonces_user_id_expires_at_idx on core.siwe_nonces (user_id, expires_at);
alter table core.siwe_nonces enable row level security;
-- No policies and no grants for authenticated: only the functions below touch nonces.
grant select, insert, delete on core.siwe_nonces to service_role;

create function core.issue_siwe_nonce(p_nonce text)
  returns timestamptz
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    c_live_limit constant integer := 10;
    v_user core.object_id := core.current_user_id();
    v_expires_at timestamptz := now() + interval '10 minutes';
    v_live integer;
    v_oldest_expiry timestamptz;
  begin
    if v_user is null then
      raise exception 'no authenticated user' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    -- One issue per user at a time: without the lock, concurrent requests would all count the same
    -- live nonces and all pass. NO KEY UPDATE leaves foreign-key checks on the user row unblocked.
    perform from core.users where id = v_user for no key update;
    -- Expired nonces of this user go now, so the user's rows stay few even where no job runs.
    delete from core.siwe_nonces where user_id = v_user and expires_at <= now();
    select count(*), min(expires_at) into v_live, v_oldest_expiry
      from core.siwe_nonces where user_id = v_user;
    if v_live >= c_live_limit then
      raise exception 'too many live SIWE nonces: at most % per user', c_live_limit
        using errcode = 'PT429', hint = 'rate_limited',
              detail = json_build_object(
                'retryAfterSeconds', ceil(extract(epoch from v_oldest_expiry - now()))::integer,
                'limit', c_live_limit)::text;
    end if;
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

-- The purge job's work: deletes every expired nonce; returns how many. With at most 10 live nonces
-- per user, and a user's expired ones deleted whenever that user asks again, what is left for the
-- job is at most 10 rows per user who stopped asking: one statement is enough.
create function core.purge_expired_siwe_nonces() returns integer
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  declare
    v_deleted integer;
  begin
    delete from core.siwe_nonces where expires_at <= now();
    get diagnostics v_deleted = row_count;
    return v_deleted;
  end
  $$;

-- SELECT because the DELETE reads expires_at; the policies let the job see and delete only
-- expired nonces, so the function cannot take a live one whatever it is changed to.
grant select, delete on core.siwe_nonces to service_jobs;
create policy siwe_nonces_select_jobs on core.siwe_nonces
  for select to service_jobs
  using (expires_at <= now());
create policy siwe_nonces_delete_jobs on core.siwe_nonces
  for delete to service_jobs
  using (expires_at <= now());

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

-- Last use is written at most once a minute, so a busy key costs one row update a minute rather
-- than one per request; SKIP LOCKED keeps concurrent requests of one key from queueing behind the
-- request that is recording it.
create function core.record_api_key_use(p_api_key_id core.object_id) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    update core.api_keys set last_used_at = now()
      where id = (select id from core.api_keys
                  where id = p_api_key_id and (last_used_at is null or last_used_at < now() - interval '1 minute')
                  for update skip locked);
  end
  $$;
grant execute on function core.record_api_key_use(core.object_id) to service_role;

-- ============================================================================================
-- The API-key scope: a security definer lookup, an invoker role switch
-- ============================================================================================
-- API-key requests authenticate inside their own transaction: the gateway pipelines BEGIN,
-- core.enter_api_key_scope and the request's statements in one round trip, so a key costs no trip
-- of its own. An unknown or revoked key, or a missing permission, raises, which aborts the
-- transaction before any of the request's statements can run. The hottest read (/me) is a single
-- function that enters the scope itself: one statement, no transaction block.
--
-- Postgres refuses a role change inside a security definer function, so entering the scope is two
-- steps: core.api_key_claims (definer: it reads core.api_keys, which the login role cannot) resolves
-- the key and checks permissions; core.enter_api_key_scope (invoker) sets the claims and the role.
--
-- Both run on every API-key request, so neither has a SET clause (it would cost each call a
-- search-path rebuild: /me fell from 56-64% to 50% of the `select 1` route with one). Instead every
-- name is schema-qualified, pg_catalog's too, so nothing on the caller's path can stand in for them;
-- and only api_gateway, which has no CREATE anywhere, may call them.
create function core.api_key_claims(p_key_hash bytea, p_required_permissions text[], out owner_id core.object_id, out claims text)
  language plpgsql volatile security definer
  as $$
  declare
    v_key record;
    v_missing text;
  begin
    select k.id, k.owner_id, k.permissions, k.last_used_at, u.auth_user_id into v_key
      from core.api_keys k join core.users u on u.id operator(pg_catalog.=) k.owner_id
      where k.key_hash operator(pg_catalog.=) p_key_hash and k.revoked_at is null;
    if not found then
      raise sqlstate 'PT401' using message = 'The API key is unknown or has been revoked.', hint = 'invalid_api_key';
    end if;
    -- A null list is a caller's bug; treating it as "nothing required" would skip the check.
    if p_required_permissions is null then
      raise exception 'core.api_key_claims: p_required_permissions must be an array, not null';
    end if;
    if pg_catalog.cardinality(p_required_permissions) operator(pg_catalog.>) 0 then
      select required into v_missing
        from pg_catalog.unnest(p_required_permissions) with ordinality as r(required, position)
        where not coalesce((v_key.permissions operator(pg_catalog.->) pg_catalog.split_part(required, ':', 1))
                           operator(pg_catalog.?) pg_catalog.split_part(required, ':', 2), false)
        order by position
        limit 1;
      if v_missing is not null then
        raise sqlstate 'PT403' using message = pg_catalog.format('This API key lacks the permission %s.', v_missing),
          hint = 'missing_permission', detail = pg_catalog.json_build_object('required', v_missing)::text;
      end if;
    end if;
    if v_key.last_used_at is null
       or v_key.last_used_at operator(pg_catalog.<) (pg_catalog.now() operator(pg_catalog.-) interval '1 minute') then
      perform core.record_api_key_use(v_key.id);
    end if;
    owner_id := v_key.owner_id;
    claims := pg_catalog.json_build_object(
      'sub', v_key.auth_user_id, 'role', 'authenticated', 'app_user_id', v_key.owner_id,
      'api_key_id', v_key.id, 'permissions', v_key.permissions)::text;
  end
  $$;
grant execute on function core.api_key_claims(bytea, text[]) to api_gateway;

-- Sets the claims RLS reads and switches to `authenticated` for the rest of the transaction.
create function core.enter_api_key_scope(p_key_hash bytea, p_required_permissions text[])
  returns core.object_id
  language plpgsql volatile
  as $$
  declare
    v_key record;
  begin
    v_key := core.api_key_claims(p_key_hash, p_required_permissions);
    perform pg_catalog.set_config('request.jwt.claims', v_key.claims, true);
    perform pg_catalog.set_config('role', 'authenticated', true);
    return v_key.owner_id;
  end
  $$;
grant execute on function core.enter_api_key_scope(bytea, text[]) to api_gateway;

-- GET /api/v3/me in one statement: enters the key's scope, then reads the owner's user and profile
-- as `authenticated`, so RLS decides what comes back (plpgsql plans its query at that point).
create function core.me_by_api_key(p_key_hash bytea, p_required_permissions text[])
  returns table (
    id core.object_id, email text, username text, display_name text, bio text, avatar_url text,
    created_at timestamptz, updated_at timestamptz
  )
  language plpgsql volatile
  as $$
  begin
    perform core.enter_api_key_scope(p_key_hash, p_required_permissions);
    return query
      select u.id, u.email, p.username, p.display_name, p.bio, p.avatar_url, u.created_at, p.updated_at
      from core.users u join core.profiles p on p.user_id = u.id
      where u.id = core.current_user_id();
  end
  $$;
grant execute on function core.me_by_api_key(bytea, text[]) to api_gateway;

-- /ready compares the applied migration versions with the newest one the code needs.
grant usage on schema supabase_migrations to api_gateway;
grant select on supabase_migrations.schema_migrations to api_gateway;

-- ============================================================================================
-- Rate limits: fixed windows counted in Postgres, so they hold across replicas
-- ============================================================================================
create table core.rate_limit_windows (
  bucket       text not null,
  window_start timestamptz not null,
  -- Each connection counts in a shard of its own (its backend pid modulo 64), so one busy user's
  -- concurrent requests do not queue behind a single counter row's lock until their commits.
  shard        smallint not null,
  hits         integer not null,
  primary key (bucket, window_start, shard)
);
alter table core.rate_limit_windows enable row level security; -- no policy: definer functions only

-- Counts one hit of the calling user on `p_action`; over `p_limit` hits in the current window of
-- `p_window_seconds`, raises PT429 with the seconds until the window ends. Called inside the
-- operation's own transaction, so a refused request leaves nothing behind but the count. The sum
-- reads the other shards' committed counts without waiting for them: under concurrency a user may
-- pass the limit by at most the requests in flight at that moment.
create function core.take_rate_limit(p_action text, p_limit integer, p_window_seconds integer) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_bucket text := p_action || ':' || coalesce(core.current_user_id(), 'anonymous');
    v_window_start timestamptz := to_timestamp(floor(extract(epoch from now()) / p_window_seconds) * p_window_seconds);
    v_hits integer;
  begin
    insert into core.rate_limit_windows as w (bucket, window_start, shard, hits)
      values (v_bucket, v_window_start, pg_backend_pid() % 64, 1)
      on conflict (bucket, window_start, shard) do update set hits = w.hits + 1;
    select sum(w.hits) into v_hits from core.rate_limit_windows w
      where w.bucket = v_bucket and w.window_start = v_window_start;
    if v_hits > p_limit then
      raise exception 'rate limit reached: at most % % requests per % s', p_limit, p_action, p_window_seconds
        using errcode = 'PT429', hint = 'rate_limited',
              detail = json_build_object(
                'retryAfterSeconds', ceil(extract(epoch from v_window_start + make_interval(secs => p_window_seconds) - now()))::integer,
                'limit', p_limit, 'windowSeconds', p_window_seconds)::text;
    end if;
  end
  $$;

-- The purge job's work: counters older than a day.
create function core.purge_rate_limit_windows() returns void
  language sql volatile security invoker
  set search_path = ''
  as $$ delete from core.rate_limit_windows where window_start < now() - interval '1 day' $$;
grant select, delete on core.rate_limit_windows to service_jobs;
create policy rate_limit_windows_purge_jobs on core.rate_limit_windows for delete to service_jobs using (true);
create policy rate_limit_windows_select_jobs on core.rate_limit_windows for select to service_jobs using (true);

-- ============================================================================================
-- Scheduling: core.schedule_job
-- ============================================================================================
-- Schedules `set role service_jobs; select <p_function>()` under the name p_name; scheduling the
-- same name again replaces the job (cron.schedule upserts by name). pg_cron exists only in the
-- database cron.database_name names (the local `postgres` database, a Supabase project's), not in
-- the test databases cloned from a template: there this returns null and schedules nothing. The
-- function name is resolved either way, so a misspelt job fails its migration everywhere.
--
-- pg_cron refuses to run jobs as a NOLOGIN role such as service_jobs, so the job belongs to the
-- migration's role (a member of service_jobs, see sql/bootstrap.sql) and switches role first.
create function core.schedule_job(p_name text, p_schedule text, p_function text) returns bigint
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  declare
    -- regprocedure output is schema-qualified and quoted: safe to splice into the command.
    v_function regprocedure := (p_function || '()')::regprocedure;
  begin
    if not exists (select from pg_catalog.pg_extension where extname = 'pg_cron') then
      raise notice 'pg_cron is not installed in this database: job % is not scheduled', p_name;
      return null;
    end if;
    return cron.schedule(p_name, p_schedule,
      format('set role service_jobs; select %s', v_function));
  end
  $$;

-- ============================================================================================
-- Deny by default: nothing in core is executable unless granted above or here
-- ============================================================================================
revoke execute on all functions in schema core from public;
-- CHECK constraints run with the writer's privileges.
grant execute on function core.is_valid_permissions(jsonb) to authenticated, service_role;
grant execute on function core.purge_expired_siwe_nonces(), core.purge_rate_limit_windows() to service_jobs;

-- ============================================================================================
-- Jobs
-- ============================================================================================
-- Every 10 minutes: nonces live 10 minutes, so none lingers much past twice that.
select core.schedule_job('purge_expired_siwe_nonces', '*/10 * * * *', 'core.purge_expired_siwe_nonces');
-- Hourly: the counters are a day old when they go.
select core.schedule_job('purge_rate_limit_windows', '17 * * * *', 'core.purge_rate_limit_windows');
