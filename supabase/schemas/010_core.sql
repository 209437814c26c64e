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
--   * core.schedule_job installs the schedule (where pg_cron is missing it says how to enable it);
--   * pgTAP calls the function as `service_jobs`; correctness never waits for the schedule.

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA core;

GRANT USAGE ON SCHEMA core TO anon;
GRANT USAGE ON SCHEMA core TO authenticated;
GRANT USAGE ON SCHEMA core TO service_role;
GRANT USAGE ON SCHEMA core TO api_gateway;
GRANT USAGE ON SCHEMA core TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema core revoke all on tables from public;


-- ObjectIDs: 24 hex characters, MongoDB layout (4-byte seconds, 5 random bytes, 3-byte counter)
CREATE DOMAIN core.object_id AS text
	CONSTRAINT object_id_check CHECK ((VALUE ~ '^[0-9a-f]{24}$'::text));


-- The API-key scope: a security definer lookup, an invoker role switch
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
CREATE FUNCTION core.api_key_claims(p_key_hash bytea, p_required_permissions text[], OUT owner_id core.object_id, OUT claims text) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    AS $$
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

REVOKE ALL ON FUNCTION core.api_key_claims(p_key_hash bytea, p_required_permissions text[], OUT owner_id core.object_id, OUT claims text) FROM PUBLIC;
GRANT ALL ON FUNCTION core.api_key_claims(p_key_hash bytea, p_required_permissions text[], OUT owner_id core.object_id, OUT claims text) TO api_gateway;


-- Every user has a profile row, so /me never has to special-case its absence.
CREATE FUNCTION core.create_profile_for_user() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  begin
    insert into core.profiles (user_id) values (new.id);
    return new;
  end
  $$;

REVOKE ALL ON FUNCTION core.create_profile_for_user() FROM PUBLIC;


-- The caller's user id. Policies call it as `(select core.current_user_id())` so it runs once per
-- statement. It runs in nearly every policy, several times per request: as an inlinable SQL
-- function reading the id the gateway put in the claims (`app_user_id`) it costs a fraction of a
-- security definer function (which rebuilds the search path on every call); only tokens without
-- the claim take the security definer lookup of their auth user.
CREATE FUNCTION core.current_user_id() RETURNS core.object_id
    LANGUAGE sql STABLE
    AS $$
    select coalesce(
      (nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'app_user_id')::core.object_id,
      core.user_id_of_auth_user())
  $$;

REVOKE ALL ON FUNCTION core.current_user_id() FROM PUBLIC;
GRANT ALL ON FUNCTION core.current_user_id() TO anon;
GRANT ALL ON FUNCTION core.current_user_id() TO authenticated;
GRANT ALL ON FUNCTION core.current_user_id() TO service_role;


-- Sets the claims RLS reads and switches to `authenticated` for the rest of the transaction.
CREATE FUNCTION core.enter_api_key_scope(p_key_hash bytea, p_required_permissions text[]) RETURNS core.object_id
    LANGUAGE plpgsql
    AS $$
  declare
    v_key record;
  begin
    v_key := core.api_key_claims(p_key_hash, p_required_permissions);
    perform pg_catalog.set_config('request.jwt.claims', v_key.claims, true);
    perform pg_catalog.set_config('role', 'authenticated', true);
    return v_key.owner_id;
  end
  $$;

REVOKE ALL ON FUNCTION core.enter_api_key_scope(p_key_hash bytea, p_required_permissions text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION core.enter_api_key_scope(p_key_hash bytea, p_required_permissions text[]) TO api_gateway;


-- API keys: only a SHA-256 of the key is stored; the prefix is what people see
-- Permissions in the spec's shape: {"checkout": ["create", "retry"], "sponsorship": ["write"]}.
CREATE FUNCTION core.is_valid_permissions(p jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $_$
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
  $_$;

REVOKE ALL ON FUNCTION core.is_valid_permissions(p jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION core.is_valid_permissions(p jsonb) TO authenticated;
GRANT ALL ON FUNCTION core.is_valid_permissions(p jsonb) TO service_role;


CREATE FUNCTION core.issue_siwe_nonce(p_nonce text) RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION core.issue_siwe_nonce(p_nonce text) FROM PUBLIC;
GRANT ALL ON FUNCTION core.issue_siwe_nonce(p_nonce text) TO authenticated;


CREATE FUNCTION core.new_object_id() RETURNS core.object_id
    LANGUAGE sql
    SET search_path TO ''
    AS $$
    select (
      lpad(to_hex(floor(extract(epoch from clock_timestamp()))::bigint), 8, '0')
      -- the first 10 hex digits of a v4 uuid are all random
      || substr(replace(gen_random_uuid()::text, '-', ''), 1, 10)
      || lpad(to_hex(nextval('core.object_id_counter')), 6, '0')
    )::core.object_id
  $$;

REVOKE ALL ON FUNCTION core.new_object_id() FROM PUBLIC;
GRANT ALL ON FUNCTION core.new_object_id() TO authenticated;
GRANT ALL ON FUNCTION core.new_object_id() TO service_role;


-- Linked crypto addresses
CREATE TABLE core.crypto_addresses (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    user_id core.object_id NOT NULL,
    address text NOT NULL,
    chain_id text NOT NULL,
    connector text NOT NULL,
    verified_by text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT crypto_addresses_address_check CHECK (((char_length(address) >= 3) AND (char_length(address) <= 128))),
    CONSTRAINT crypto_addresses_chain_id_check CHECK ((chain_id ~ '^([0-9]{1,20}|[a-z0-9]{3,8}:[a-zA-Z0-9-]{1,32})$'::text)),
    CONSTRAINT crypto_addresses_connector_check CHECK (((char_length(connector) >= 1) AND (char_length(connector) <= 64))),
    CONSTRAINT crypto_addresses_verified_by_check CHECK ((verified_by = ANY (ARRAY['siwe'::text, 'operator'::text]))),
    CONSTRAINT crypto_addresses_pkey PRIMARY KEY (id)
);

create unique index crypto_addresses_chain_address_key on core.crypto_addresses (chain_id, lower(address));

create index crypto_addresses_user_id_idx on core.crypto_addresses (user_id, created_at);

ALTER TABLE core.crypto_addresses ENABLE ROW LEVEL SECURITY;

create policy crypto_addresses_delete_owner on core.crypto_addresses
  for delete to authenticated
  using (user_id = (select core.current_user_id()));

create policy crypto_addresses_select_owner on core.crypto_addresses
  for select to authenticated
  using (user_id = (select core.current_user_id()));

GRANT SELECT,DELETE ON TABLE core.crypto_addresses TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE core.crypto_addresses TO service_role;


-- Spends the nonce and links the address in one statement, after the gateway verified the
-- signature: a nonce that is unknown, expired, spent or another user's links nothing.
CREATE FUNCTION core.link_crypto_address(p_nonce text, p_address text, p_chain_id text, p_connector text) RETURNS SETOF core.crypto_addresses
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION core.link_crypto_address(p_nonce text, p_address text, p_chain_id text, p_connector text) FROM PUBLIC;
GRANT ALL ON FUNCTION core.link_crypto_address(p_nonce text, p_address text, p_chain_id text, p_connector text) TO authenticated;


CREATE FUNCTION core.mcp_record_tool_call(p_key_hash bytea, p_required_permissions text[], p_endpoint text, p_tool text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text) RETURNS core.object_id
    LANGUAGE plpgsql
    AS $$
  declare
    v_owner core.object_id := core.enter_api_key_scope(p_key_hash, p_required_permissions);
  begin
    perform mcp.record_tool_call(p_endpoint, p_tool, p_arguments, p_outcome, p_error_code, p_http_status, p_duration_ms,
                                 p_request_id, null, null, '{}'::text[]);
    return v_owner;
  end
  $$;

REVOKE ALL ON FUNCTION core.mcp_record_tool_call(p_key_hash bytea, p_required_permissions text[], p_endpoint text, p_tool text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION core.mcp_record_tool_call(p_key_hash bytea, p_required_permissions text[], p_endpoint text, p_tool text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text) TO api_gateway;


-- The backend endpoint's two writes, each one statement for an API key
-- The same two functions as the key's owner, after core.enter_api_key_scope (the key checked, its
-- claims and role authenticated set), in a single statement: the gateway sends it without a
-- transaction block and without a connection of its own, pipelined with other requests' statements
-- (as core.me_by_api_key). Invoker rights like enter_api_key_scope, so only the login role is
-- granted them; no search_path clause (it costs a plan per call), every name is qualified.
CREATE FUNCTION core.mcp_take_rate_limit(p_key_hash bytea, p_required_permissions text[], p_endpoint text, p_limit integer) RETURNS core.object_id
    LANGUAGE plpgsql
    AS $$
  declare
    v_owner core.object_id := core.enter_api_key_scope(p_key_hash, p_required_permissions);
  begin
    perform mcp.take_rate_limit(p_endpoint, null, p_limit);
    return v_owner;
  end
  $$;

REVOKE ALL ON FUNCTION core.mcp_take_rate_limit(p_key_hash bytea, p_required_permissions text[], p_endpoint text, p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION core.mcp_take_rate_limit(p_key_hash bytea, p_required_permissions text[], p_endpoint text, p_limit integer) TO api_gateway;


-- GET /api/v3/me in one statement: enters the key's scope, then reads the owner's user and profile
-- as `authenticated`, so RLS decides what comes back (plpgsql plans its query at that point).
CREATE FUNCTION core.me_by_api_key(p_key_hash bytea, p_required_permissions text[]) RETURNS TABLE(id core.object_id, email text, username text, display_name text, bio text, avatar_url text, created_at timestamp with time zone, updated_at timestamp with time zone)
    LANGUAGE plpgsql
    AS $$
  begin
    perform core.enter_api_key_scope(p_key_hash, p_required_permissions);
    return query
      select u.id, u.email, p.username, p.display_name, p.bio, p.avatar_url, u.created_at, p.updated_at
      from core.users u join core.profiles p on p.user_id = u.id
      where u.id = core.current_user_id();
  end
  $$;

REVOKE ALL ON FUNCTION core.me_by_api_key(p_key_hash bytea, p_required_permissions text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION core.me_by_api_key(p_key_hash bytea, p_required_permissions text[]) TO api_gateway;

-- POST /api/v3/checkout/sessions in one statement, as GET /me is (core.me_by_api_key): the function
-- enters the API key's scope itself, then creates the session and ensures the webhook secret as
-- `authenticated`, so RLS and the insert policies decide as before. One statement is one
-- transaction: no BEGIN, setup and COMMIT of their own, no reserved connection. Like every function
-- that enters a key's scope, it is the gateway's own role's alone (core, invoker rights).
create function core.create_checkout_session_by_api_key(
  p_key_hash                    bytea,
  p_required_permissions        text[],
  p_collection_id               core.object_id,
  p_external_order_id           text,
  p_fingerprint                 bytea,
  p_request                     jsonb,
  p_client_secret_hash          bytea,
  p_client_secret_ciphertext    bytea,
  p_expires_in_seconds          integer,
  p_webhook_url                 text,
  p_webhook_secret_ciphertext   bytea
)
  returns table (
    id                        core.object_id,
    owner_id                  core.object_id,
    client_secret_ciphertext  bytea,
    status                    text,
    expires_at                timestamptz,
    created                   boolean,
    webhook_secret_ciphertext bytea
  )
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  begin
    perform core.enter_api_key_scope(p_key_hash, p_required_permissions);
    -- create_session runs first: a conflict aborts the statement before the webhook secret is stored.
    return query
      select s.id, s.owner_id, s.client_secret_ciphertext, s.status, s.expires_at, s.created,
             checkout.ensure_webhook_secret(p_webhook_url, p_webhook_secret_ciphertext)
      from checkout.create_session(p_collection_id, p_external_order_id, p_fingerprint, p_request,
                                   p_client_secret_hash, p_client_secret_ciphertext,
                                   now() + make_interval(secs => p_expires_in_seconds)) s;
  end
  $$;
revoke execute on function core.create_checkout_session_by_api_key(bytea, text[], core.object_id, text, bytea, jsonb, bytea, bytea, integer, text, bytea) from public;
grant execute on function core.create_checkout_session_by_api_key(bytea, text[], core.object_id, text, bytea, jsonb, bytea, bytea, integer, text, bytea) to api_gateway;


-- The purge job's work: deletes every expired nonce; returns how many. With at most 10 live nonces
-- per user, and a user's expired ones deleted whenever that user asks again, what is left for the
-- job is at most 10 rows per user who stopped asking: one statement is enough.
CREATE FUNCTION core.purge_expired_siwe_nonces() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_deleted integer;
  begin
    delete from core.siwe_nonces where expires_at <= now();
    get diagnostics v_deleted = row_count;
    return v_deleted;
  end
  $$;

REVOKE ALL ON FUNCTION core.purge_expired_siwe_nonces() FROM PUBLIC;
GRANT ALL ON FUNCTION core.purge_expired_siwe_nonces() TO service_jobs;


-- The purge job's work: counters older than a day.
CREATE FUNCTION core.purge_rate_limit_windows() RETURNS void
    LANGUAGE sql
    SET search_path TO ''
    AS $$ delete from core.rate_limit_windows where window_start < now() - interval '1 day' $$;

REVOKE ALL ON FUNCTION core.purge_rate_limit_windows() FROM PUBLIC;
GRANT ALL ON FUNCTION core.purge_rate_limit_windows() TO service_jobs;


-- Last use is written at most once a minute, so a busy key costs one row update a minute rather
-- than one per request; SKIP LOCKED keeps concurrent requests of one key from queueing behind the
-- request that is recording it.
CREATE FUNCTION core.record_api_key_use(p_api_key_id core.object_id) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    update core.api_keys set last_used_at = now()
      where id = (select id from core.api_keys
                  where id = p_api_key_id and (last_used_at is null or last_used_at < now() - interval '1 minute')
                  for update skip locked);
  end
  $$;

REVOKE ALL ON FUNCTION core.record_api_key_use(p_api_key_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION core.record_api_key_use(p_api_key_id core.object_id) TO service_role;


-- Scheduling: core.schedule_job
-- Schedules `set role service_jobs; select <p_function>()` under the name p_name; scheduling the
-- same name again replaces the job (cron.schedule upserts by name). Where pg_cron is missing it
-- raises, saying how to enable it, unless the database says its jobs run elsewhere
-- (service.jobs_without_pg_cron = on, the test databases: there it returns null). The function name
-- is resolved either way, so a misspelt job fails everywhere.
--
-- pg_cron refuses to run jobs as a NOLOGIN role such as service_jobs, so the job belongs to the
-- migration's role (a member of service_jobs, see sql/bootstrap.sql) and switches role first.
CREATE FUNCTION core.schedule_job(p_name text, p_schedule text, p_function text) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    -- regprocedure output is schema-qualified and quoted: safe to splice into the command.
    v_function regprocedure := (p_function || '()')::regprocedure;
  begin
    if not exists (select from pg_catalog.pg_extension where extname = 'pg_cron') then
      if coalesce(current_setting('service.jobs_without_pg_cron', true), '') = 'on' then
        raise notice 'service.jobs_without_pg_cron is on: job % is not scheduled', p_name;
        return null;
      end if;
      raise exception using
        errcode = 'object_not_in_prerequisite_state',
        message = format(
          'pg_cron is not installed in database %s, so the background job %s cannot be scheduled. '
          'Enable pg_cron first (Supabase: Dashboard, Database, Extensions, pg_cron; PostgreSQL: '
          'shared_preload_libraries = ''pg_cron'' and cron.database_name = ''%s'' in postgresql.conf, a restart, '
          'then create extension pg_cron), then apply the migrations again: they schedule every job then. '
          'Only a database whose jobs run elsewhere sets service.jobs_without_pg_cron = on instead.',
          pg_catalog.current_database(), p_name, pg_catalog.current_database());
    end if;
    return cron.schedule(p_name, p_schedule,
      format('set role service_jobs; select %s', v_function));
  end
  $$;

REVOKE ALL ON FUNCTION core.schedule_job(p_name text, p_schedule text, p_function text) FROM PUBLIC;


CREATE FUNCTION core.take_api_key_rate_limit(p_key_hash bytea, p_required_permissions text[], p_action text, p_limit integer, p_window_seconds integer) RETURNS core.object_id
    LANGUAGE plpgsql
    AS $$
  declare
    v_owner core.object_id := core.enter_api_key_scope(p_key_hash, p_required_permissions);
  begin
    perform core.take_rate_limit(p_action, p_limit, p_window_seconds);
    return v_owner;
  end
  $$;

REVOKE ALL ON FUNCTION core.take_api_key_rate_limit(p_key_hash bytea, p_required_permissions text[], p_action text, p_limit integer, p_window_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION core.take_api_key_rate_limit(p_key_hash bytea, p_required_permissions text[], p_action text, p_limit integer, p_window_seconds integer) TO api_gateway;


-- Counts one hit of the calling user on `p_action`; over `p_limit` hits in the current window of
-- `p_window_seconds`, raises PT429 with the seconds until the window ends. A refused hit rolls back
-- with its transaction, so it leaves the count as it was. A null p_limit counts nothing: the caller
-- took that limit already, in a statement of its own (take_api_key_rate_limit, or this function as
-- authenticated), as the gateway does for the hot operations.
CREATE FUNCTION core.take_rate_limit(p_action text, p_limit integer, p_window_seconds integer) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_bucket text := p_action || ':' || coalesce(core.current_user_id(), 'anonymous');
    v_window_start timestamptz := to_timestamp(floor(extract(epoch from now()) / p_window_seconds) * p_window_seconds);
    v_hits integer;
  begin
    if p_limit is null then
      return;
    end if;
    insert into core.rate_limit_windows as w (bucket, window_start, hits)
      values (v_bucket, v_window_start, 1)
      on conflict (bucket, window_start) do update set hits = w.hits + 1
      returning w.hits into v_hits;
    if v_hits > p_limit then
      raise exception 'rate limit reached: at most % % requests per % s', p_limit, p_action, p_window_seconds
        using errcode = 'PT429', hint = 'rate_limited',
              detail = json_build_object(
                'retryAfterSeconds', ceil(extract(epoch from v_window_start + make_interval(secs => p_window_seconds) - now()))::integer,
                'limit', p_limit, 'windowSeconds', p_window_seconds)::text;
    end if;
  end
  $$;

REVOKE ALL ON FUNCTION core.take_rate_limit(p_action text, p_limit integer, p_window_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION core.take_rate_limit(p_action text, p_limit integer, p_window_seconds integer) TO authenticated;


CREATE FUNCTION core.touch_updated_at() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  begin
    new.updated_at := now();
    return new;
  end
  $$;

REVOKE ALL ON FUNCTION core.touch_updated_at() FROM PUBLIC;


-- A session JWT from Supabase Auth names an auth user that may not have a service user yet. The
-- login role provisions it when it verified such a token.
CREATE FUNCTION core.user_for_auth_user(p_auth_user_id uuid, p_email text DEFAULT NULL::text) RETURNS core.object_id
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION core.user_for_auth_user(p_auth_user_id uuid, p_email text) FROM PUBLIC;
GRANT ALL ON FUNCTION core.user_for_auth_user(p_auth_user_id uuid, p_email text) TO service_role;
GRANT ALL ON FUNCTION core.user_for_auth_user(p_auth_user_id uuid, p_email text) TO api_gateway;


-- The caller's id, for tokens without the gateway's `app_user_id` claim (signed by Supabase Auth):
-- their auth user is looked up. Security definer so that policies on other tables need no grant on
-- users; plpgsql so the lookup's plan is cached.
CREATE FUNCTION core.user_id_of_auth_user() RETURNS core.object_id
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    return (select id from core.users where auth_user_id = auth.uid());
  end
  $$;

REVOKE ALL ON FUNCTION core.user_id_of_auth_user() FROM PUBLIC;
GRANT ALL ON FUNCTION core.user_id_of_auth_user() TO anon;
GRANT ALL ON FUNCTION core.user_id_of_auth_user() TO authenticated;
GRANT ALL ON FUNCTION core.user_id_of_auth_user() TO service_role;


CREATE TABLE core.api_keys (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    owner_id core.object_id NOT NULL,
    name text NOT NULL,
    prefix text NOT NULL,
    key_hash bytea NOT NULL,
    permissions jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    CONSTRAINT api_keys_key_hash_check CHECK ((octet_length(key_hash) = 32)),
    CONSTRAINT api_keys_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100))),
    CONSTRAINT api_keys_permissions_check CHECK (core.is_valid_permissions(permissions)),
    CONSTRAINT api_keys_prefix_check CHECK ((prefix ~ '^sk_[a-z0-9]{8}$'::text)),
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash),
    CONSTRAINT api_keys_pkey PRIMARY KEY (id),
    CONSTRAINT api_keys_prefix_key UNIQUE (prefix)
);

create index api_keys_owner_id_idx on core.api_keys (owner_id, created_at);

ALTER TABLE core.api_keys ENABLE ROW LEVEL SECURITY;

create policy api_keys_select_owner on core.api_keys
  for select to authenticated
  using (owner_id = (select core.current_user_id()));

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE core.api_keys TO service_role;

GRANT SELECT(id) ON TABLE core.api_keys TO authenticated;

GRANT SELECT(owner_id) ON TABLE core.api_keys TO authenticated;

GRANT SELECT(name) ON TABLE core.api_keys TO authenticated;

GRANT SELECT(prefix) ON TABLE core.api_keys TO authenticated;

GRANT SELECT(permissions) ON TABLE core.api_keys TO authenticated;

GRANT SELECT(created_at) ON TABLE core.api_keys TO authenticated;

GRANT SELECT(last_used_at) ON TABLE core.api_keys TO authenticated;

GRANT SELECT(revoked_at) ON TABLE core.api_keys TO authenticated;


CREATE SEQUENCE core.object_id_counter
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    MAXVALUE 16777215
    CACHE 1
    CYCLE;

GRANT USAGE ON SEQUENCE core.object_id_counter TO authenticated;
GRANT USAGE ON SEQUENCE core.object_id_counter TO service_role;


CREATE TABLE core.profiles (
    user_id core.object_id NOT NULL,
    username text,
    display_name text,
    bio text,
    avatar_url text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT profiles_avatar_url_check CHECK ((avatar_url ~ '^https://'::text)),
    CONSTRAINT profiles_bio_check CHECK ((char_length(bio) <= 1000)),
    CONSTRAINT profiles_display_name_check CHECK ((char_length(display_name) <= 100)),
    CONSTRAINT profiles_username_check CHECK ((username ~ '^[a-z0-9_]{3,32}$'::text)),
    CONSTRAINT profiles_pkey PRIMARY KEY (user_id),
    CONSTRAINT profiles_username_key UNIQUE (username)
);

CREATE TRIGGER profiles_touch_updated_at BEFORE UPDATE ON core.profiles FOR EACH ROW EXECUTE FUNCTION core.touch_updated_at();

ALTER TABLE core.profiles ENABLE ROW LEVEL SECURITY;

create policy profiles_select_self on core.profiles
  for select to authenticated
  using (user_id = (select core.current_user_id()));

create policy profiles_update_self on core.profiles
  for update to authenticated
  using (user_id = (select core.current_user_id()))
  with check (user_id = (select core.current_user_id()));

GRANT SELECT ON TABLE core.profiles TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE core.profiles TO service_role;

GRANT UPDATE(username) ON TABLE core.profiles TO authenticated;

GRANT UPDATE(display_name) ON TABLE core.profiles TO authenticated;

GRANT UPDATE(bio) ON TABLE core.profiles TO authenticated;

GRANT UPDATE(avatar_url) ON TABLE core.profiles TO authenticated;


-- Rate limits: fixed windows counted in Postgres, so they hold across replicas
CREATE TABLE core.rate_limit_windows (
    bucket text NOT NULL,
    window_start timestamp with time zone NOT NULL,
    hits integer NOT NULL,
    CONSTRAINT rate_limit_windows_pkey PRIMARY KEY (bucket, window_start)
);

ALTER TABLE core.rate_limit_windows ENABLE ROW LEVEL SECURITY;

create policy rate_limit_windows_purge_jobs on core.rate_limit_windows for delete to service_jobs using (true);

create policy rate_limit_windows_select_jobs on core.rate_limit_windows for select to service_jobs using (true);

GRANT SELECT,DELETE ON TABLE core.rate_limit_windows TO service_jobs;


-- SIWE nonces: issued to one user, spent once, short-lived, at most 10 live per user
CREATE TABLE core.siwe_nonces (
    nonce text NOT NULL,
    user_id core.object_id NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT siwe_nonces_nonce_check CHECK ((nonce ~ '^[A-Za-z0-9]{8,128}$'::text)),
    CONSTRAINT siwe_nonces_pkey PRIMARY KEY (nonce)
);

create index siwe_nonces_expires_at_idx on core.siwe_nonces (expires_at);

create index siwe_nonces_user_id_expires_at_idx on core.siwe_nonces (user_id, expires_at);

ALTER TABLE core.siwe_nonces ENABLE ROW LEVEL SECURITY;

create policy siwe_nonces_delete_jobs on core.siwe_nonces
  for delete to service_jobs
  using (expires_at <= now());

create policy siwe_nonces_select_jobs on core.siwe_nonces
  for select to service_jobs
  using (expires_at <= now());

GRANT SELECT,INSERT,DELETE ON TABLE core.siwe_nonces TO service_role;
GRANT SELECT,DELETE ON TABLE core.siwe_nonces TO service_jobs;


-- Users and profiles
CREATE TABLE core.users (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    auth_user_id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT users_email_check CHECK (((email IS NULL) OR (email ~ '^[^@\s]+@[^@\s]+$'::text))),
    CONSTRAINT users_auth_user_id_key UNIQUE (auth_user_id),
    CONSTRAINT users_pkey PRIMARY KEY (id)
);

create unique index users_email_key on core.users (lower(email));

CREATE TRIGGER users_create_profile AFTER INSERT ON core.users FOR EACH ROW EXECUTE FUNCTION core.create_profile_for_user();

ALTER TABLE core.users ENABLE ROW LEVEL SECURITY;

create policy users_select_self on core.users
  for select to authenticated
  using (auth_user_id = (select auth.uid()));

GRANT SELECT ON TABLE core.users TO authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE core.users TO service_role;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY core.crypto_addresses
    ADD CONSTRAINT crypto_addresses_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY core.api_keys
    ADD CONSTRAINT api_keys_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY core.profiles
    ADD CONSTRAINT profiles_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY core.siwe_nonces
    ADD CONSTRAINT siwe_nonces_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE;


-- /ready compares the applied migration versions with the newest one the code needs (the migration
-- log is the Supabase CLI's; scripts/lib/migrations.ts creates it where the CLI does not run).
grant usage on schema supabase_migrations to api_gateway;
grant select on supabase_migrations.schema_migrations to api_gateway;


-- Background jobs, run by pg_cron as service_jobs (core.schedule_job: scheduling a job of the same
-- name again replaces it).
select core.schedule_job('purge_expired_siwe_nonces', '*/10 * * * *', 'core.purge_expired_siwe_nonces');
select core.schedule_job('purge_rate_limit_windows', '17 * * * *', 'core.purge_rate_limit_windows');
