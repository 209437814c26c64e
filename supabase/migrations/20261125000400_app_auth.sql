-- App sessions of the local auth server: the stand-in for Supabase Auth that the gateway serves on
-- /auth/v1 when LOCAL_AUTH_ENABLED is set (npm start), so that the check-in app's supabase-js signs
-- in by e-mail code where no Supabase Auth runs. On a Supabase project these tables stay empty:
-- Supabase Auth keeps its own sessions, and the gateway only verifies its tokens.
--
-- A session starts when an e-mail code is spent (the sign-in codes of mcp_oauth: one table, one set
-- of limits for both doors) or when an operator mints one (npm run admin -- session). Its access
-- tokens are ES256 JWTs signed by the gateway and checked by signature alone until they expire;
-- its refresh tokens are stored here as SHA-256 hashes and rotated on every use. A rotated token
-- presented again ends the session (a thief's copy and the owner's alike); sign-out ends it too.
--
-- Who calls what (deny by default; every function is SECURITY DEFINER with an empty search_path):
--   api_gateway: verify_otp, refresh_session, live_session, end_sessions, address_has_user;
--   service_role (the admin CLI): start_session;
--   service_jobs (pg_cron): purge_expired_rows, hourly.
-- Nobody holds a privilege on the tables. Outcomes that must commit (a wrong code counts as an
-- attempt; a reused refresh token ends its session) are returned in an `error` column, not raised.

create schema app_auth;
revoke all on schema app_auth from public;
grant usage on schema app_auth to api_gateway, service_role, service_jobs;
alter default privileges in schema app_auth revoke all on tables from public;
alter default privileges in schema app_auth revoke all on functions from public;

-- ============================================================================================
-- Sessions and their refresh tokens
-- ============================================================================================
-- The id is the access tokens' `session_id` claim.
create table app_auth.sessions (
  id           uuid primary key default gen_random_uuid(),
  user_id      core.object_id not null references core.users (id) on delete cascade,
  -- How the person got it: an e-mail code, or an operator's admin CLI.
  method       text not null check (method in ('otp', 'admin')),
  created_at   timestamptz not null default now(),
  refreshed_at timestamptz,
  ended_at     timestamptz,
  ended_reason text check (ended_reason in ('sign_out', 'refresh_token_reuse')),
  check ((ended_at is null) = (ended_reason is null))
);
create index sessions_user_id_idx on app_auth.sessions (user_id, created_at desc);
alter table app_auth.sessions enable row level security;

create table app_auth.refresh_tokens (
  token_hash bytea primary key check (octet_length(token_hash) = 32),
  session_id uuid not null references app_auth.sessions (id) on delete cascade,
  expires_at timestamptz not null,
  -- Set when the token is exchanged: any later use of it is a reuse.
  rotated_at timestamptz,
  created_at timestamptz not null default now()
);
create index refresh_tokens_session_id_idx on app_auth.refresh_tokens (session_id);
alter table app_auth.refresh_tokens enable row level security;

-- What every session function answers: why not (`error`), or the live session and its user, all
-- the gateway needs to sign an access token and describe the user.
create type app_auth.session_answer as (
  error           text,
  session_id      uuid,
  user_id         core.object_id,
  auth_user_id    uuid,
  email           text,
  method          text,
  signed_in_at    timestamptz,
  user_created_at timestamptz,
  last_sign_in_at timestamptz
);

-- A live session (not ended), or error 'session_not_found'.
create function app_auth.live_session(p_session_id uuid) returns app_auth.session_answer
  language sql stable security definer
  set search_path = ''
  as $$
    select coalesce(
      (select row(null, s.id, s.user_id, u.auth_user_id, u.email, s.method, s.created_at, u.created_at,
                  (select max(o.created_at) from app_auth.sessions o where o.user_id = s.user_id))::app_auth.session_answer
       from app_auth.sessions s join core.users u on u.id = s.user_id
       where s.id = p_session_id and s.ended_at is null),
      row('session_not_found', null, null, null, null, null, null, null, null)::app_auth.session_answer)
  $$;

-- A new session of a user and its first refresh token. The admin CLI calls it as service_role;
-- verify_otp calls it after a code was spent.
create function app_auth.start_session(p_user_id core.object_id, p_method text, p_refresh_hash bytea, p_refresh_ttl_seconds integer)
  returns app_auth.session_answer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_session uuid;
  begin
    insert into app_auth.sessions (user_id, method) values (p_user_id, p_method) returning id into v_session;
    insert into app_auth.refresh_tokens (token_hash, session_id, expires_at)
      values (p_refresh_hash, v_session, now() + make_interval(secs => p_refresh_ttl_seconds));
    return app_auth.live_session(v_session);
  end
  $$;

-- ============================================================================================
-- Sign-in by e-mail code, without a sign-in id
-- ============================================================================================
-- Supabase's verify names only the address and the code, so the code checked is the address's one
-- live code (issuing a code ends the earlier ones). The check itself is mcp_oauth's, shared with the
-- OAuth pages: the same attempt cap per code, per-IP limit, and user found or created by e-mail.
-- The verify functions of both doors are now this check plus what each starts: a browser session
-- there, an app session here.
create function mcp_oauth.spend_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text,
    p_max_attempts integer, p_per_ip integer, p_window_seconds integer,
    out error text, out user_id core.object_id)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_email text := lower(btrim(p_email));
    v_code mcp_oauth.sign_in_codes%rowtype;
  begin
    perform core.take_rate_limit('mcp_sign_in_verify:ip:' || coalesce(p_ip, 'unknown'), p_per_ip, p_window_seconds);
    if p_id is null then
      select * into v_code from mcp_oauth.sign_in_codes c
        where lower(c.email) = v_email and c.consumed_at is null and c.expires_at > now()
        order by c.created_at desc limit 1
        for update;
    elsif p_id ~ '^[0-9a-f]{24}$' then
      select * into v_code from mcp_oauth.sign_in_codes c
        where c.id = p_id::core.object_id and lower(c.email) = v_email
        for update;
    end if;
    if v_code.id is null or v_code.consumed_at is not null or v_code.expires_at <= now() or v_code.attempts >= p_max_attempts then
      error := 'code_expired';
      return;
    end if;
    update mcp_oauth.sign_in_codes c set attempts = c.attempts + 1 where c.id = v_code.id;
    if v_code.code_hash <> p_code_hash then
      error := 'wrong_code';
      return;
    end if;
    update mcp_oauth.sign_in_codes c set consumed_at = now() where c.id = v_code.id;
    -- The person proved they read this address's mail: they are the user with that e-mail
    -- (compared case-insensitively, as core.users' unique index does), created on first sign-in.
    select u.id into user_id from core.users u where lower(u.email) = lower(v_code.email);
    if user_id is null then
      insert into core.users (email) values (v_code.email)
        on conflict ((lower(email))) do nothing
        returning id into user_id;
      if user_id is null then
        select u.id into user_id from core.users u where lower(u.email) = lower(v_code.email);
      end if;
    end if;
  end
  $$;

create or replace function mcp_oauth.verify_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text,
    p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_session_hash bytea, p_session_ttl_seconds integer,
    out error text, out user_id core.object_id)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    if p_id is null then
      error := 'code_expired';
      return;
    end if;
    select s.error, s.user_id into error, user_id
      from mcp_oauth.spend_sign_in_code(p_id, p_email, p_code_hash, p_ip, p_max_attempts, p_per_ip, p_window_seconds) s;
    if error is null then
      insert into mcp_oauth.browser_sessions (token_hash, user_id, expires_at)
        values (p_session_hash, user_id, now() + make_interval(secs => p_session_ttl_seconds));
    end if;
  end
  $$;

-- error: null, 'wrong_code', 'code_expired' (expired, spent, out of attempts, or no live code).
create function app_auth.verify_otp(p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer,
    p_window_seconds integer, p_refresh_hash bytea, p_refresh_ttl_seconds integer)
  returns app_auth.session_answer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_code record;
    v_refused app_auth.session_answer;
  begin
    select * into v_code from mcp_oauth.spend_sign_in_code(null, p_email, p_code_hash, p_ip, p_max_attempts, p_per_ip, p_window_seconds);
    if v_code.error is not null then
      v_refused.error := v_code.error;
      return v_refused;
    end if;
    return app_auth.start_session(v_code.user_id, 'otp', p_refresh_hash, p_refresh_ttl_seconds);
  end
  $$;

-- Supabase's `create_user: false`: a code is mailed only to an address that has a user. Asked after
-- the code was issued, so the question costs what a code costs (the limits per address and IP).
create function app_auth.address_has_user(p_email text) returns boolean
  language sql stable security definer
  set search_path = ''
  as $$ select exists (select from core.users u where lower(u.email) = lower(btrim(p_email))) $$;

-- ============================================================================================
-- Refresh and sign-out
-- ============================================================================================
-- The refresh token is exchanged for a new one. Its row is locked first, so of two concurrent uses
-- exactly one rotates and the other then finds it rotated: a reuse, which ends the session.
-- error: null, 'refresh_token_not_found' (unknown, expired, or its session ended),
-- 'refresh_token_already_used' (a reuse: the session is ended now).
create function app_auth.refresh_session(p_token_hash bytea, p_new_hash bytea, p_refresh_ttl_seconds integer)
  returns app_auth.session_answer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_token record;
    v_refused app_auth.session_answer;
  begin
    select t.session_id, t.expires_at, t.rotated_at, s.ended_at into v_token
      from app_auth.refresh_tokens t join app_auth.sessions s on s.id = t.session_id
      where t.token_hash = p_token_hash
      for update of t;
    if not found then
      v_refused.error := 'refresh_token_not_found';
      return v_refused;
    end if;
    if v_token.rotated_at is not null then
      update app_auth.sessions s set ended_at = now(), ended_reason = 'refresh_token_reuse'
        where s.id = v_token.session_id and s.ended_at is null;
      v_refused.error := 'refresh_token_already_used';
      return v_refused;
    end if;
    if v_token.ended_at is not null or v_token.expires_at <= now() then
      v_refused.error := 'refresh_token_not_found';
      return v_refused;
    end if;
    update app_auth.refresh_tokens t set rotated_at = now() where t.token_hash = p_token_hash;
    insert into app_auth.refresh_tokens (token_hash, session_id, expires_at)
      values (p_new_hash, v_token.session_id, now() + make_interval(secs => p_refresh_ttl_seconds));
    update app_auth.sessions s set refreshed_at = now() where s.id = v_token.session_id;
    return app_auth.live_session(v_token.session_id);
  end
  $$;

-- Sign-out with a verified access token's session: 'local' ends that session, 'others' the user's
-- other sessions, 'global' all of them. A session that already ended ends nothing more (its access
-- token may still be unexpired). Returns the sessions ended.
create function app_auth.end_sessions(p_session_id uuid, p_scope text) returns integer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id;
    v_ended integer;
  begin
    if p_scope not in ('global', 'local', 'others') then
      raise exception 'unknown sign-out scope %', p_scope using errcode = 'PT400', hint = 'validation_failed';
    end if;
    select s.user_id into v_user from app_auth.sessions s where s.id = p_session_id and s.ended_at is null;
    update app_auth.sessions s set ended_at = now(), ended_reason = 'sign_out'
      where s.user_id = v_user and s.ended_at is null
        and case p_scope when 'global' then true when 'local' then s.id = p_session_id else s.id <> p_session_id end;
    get diagnostics v_ended = row_count;
    return v_ended;
  end
  $$;

-- ============================================================================================
-- Purge
-- ============================================================================================
-- A session goes 30 days after it ended, or, never ended, 30 days after its newest refresh token
-- expired (no token of it can be refreshed by then; access tokens live a day at most). Its tokens go
-- with it (on delete cascade). Within a live session, a rotated token is kept while it could still
-- be presented, and 30 days beyond, for reuse detection: 30 days after its own expiry.
create function app_auth.purge_expired_rows() returns integer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_sessions integer;
    v_tokens integer;
  begin
    delete from app_auth.sessions s
      where s.ended_at < now() - interval '30 days'
         or (s.ended_at is null and not exists (
               select from app_auth.refresh_tokens t where t.session_id = s.id and t.expires_at >= now() - interval '30 days'));
    get diagnostics v_sessions = row_count;
    delete from app_auth.refresh_tokens t where t.rotated_at is not null and t.expires_at < now() - interval '30 days';
    get diagnostics v_tokens = row_count;
    return v_sessions + v_tokens;
  end
  $$;

-- ============================================================================================
-- Privileges
-- ============================================================================================
revoke execute on all functions in schema app_auth from public;
revoke execute on function mcp_oauth.spend_sign_in_code(text, text, bytea, text, integer, integer, integer) from public;
grant execute on function
  app_auth.verify_otp(text, bytea, text, integer, integer, integer, bytea, integer),
  app_auth.address_has_user(text),
  app_auth.refresh_session(bytea, bytea, integer),
  app_auth.live_session(uuid),
  app_auth.end_sessions(uuid, text)
  to api_gateway;
grant execute on function app_auth.start_session(core.object_id, text, bytea, integer) to service_role;
grant execute on function app_auth.purge_expired_rows() to service_jobs;

-- Hourly: the rows have a 30-day margin, so none lingers much past it.
select core.schedule_job('purge_expired_app_auth_rows', '41 * * * *', 'app_auth.purge_expired_rows');
