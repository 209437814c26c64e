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

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA app_auth;

GRANT USAGE ON SCHEMA app_auth TO api_gateway;
GRANT USAGE ON SCHEMA app_auth TO service_role;
GRANT USAGE ON SCHEMA app_auth TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema app_auth revoke all on tables from public;
alter default privileges in schema app_auth revoke all on functions from public;


-- What every session function answers: why not (`error`), or the live session and its user, all
-- the gateway needs to sign an access token and describe the user.
CREATE TYPE app_auth.session_answer AS (
	error text,
	session_id uuid,
	user_id core.object_id,
	auth_user_id uuid,
	email text,
	method text,
	signed_in_at timestamp with time zone,
	user_created_at timestamp with time zone,
	last_sign_in_at timestamp with time zone
);


-- Supabase's `create_user: false`: a code is mailed only to an address that has a user. Asked after
-- the code was issued, so the question costs what a code costs (the limits per address and IP).
CREATE FUNCTION app_auth.address_has_user(p_email text) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$ select exists (select from core.users u where lower(u.email) = lower(btrim(p_email))) $$;

REVOKE ALL ON FUNCTION app_auth.address_has_user(p_email text) FROM PUBLIC;
GRANT ALL ON FUNCTION app_auth.address_has_user(p_email text) TO api_gateway;


-- Sign-out with a verified access token's session: 'local' ends that session, 'others' the user's
-- other sessions, 'global' all of them. A session that already ended ends nothing more (its access
-- token may still be unexpired). Returns the sessions ended.
CREATE FUNCTION app_auth.end_sessions(p_session_id uuid, p_scope text) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION app_auth.end_sessions(p_session_id uuid, p_scope text) FROM PUBLIC;
GRANT ALL ON FUNCTION app_auth.end_sessions(p_session_id uuid, p_scope text) TO api_gateway;


-- A live session (not ended), or error 'session_not_found'.
CREATE FUNCTION app_auth.live_session(p_session_id uuid) RETURNS app_auth.session_answer
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select coalesce(
      (select row(null, s.id, s.user_id, u.auth_user_id, u.email, s.method, s.created_at, u.created_at,
                  (select max(o.created_at) from app_auth.sessions o where o.user_id = s.user_id))::app_auth.session_answer
       from app_auth.sessions s join core.users u on u.id = s.user_id
       where s.id = p_session_id and s.ended_at is null),
      row('session_not_found', null, null, null, null, null, null, null, null)::app_auth.session_answer)
  $$;

REVOKE ALL ON FUNCTION app_auth.live_session(p_session_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION app_auth.live_session(p_session_id uuid) TO api_gateway;


-- Purge
-- A session goes 30 days after it ended, or, never ended, 30 days after its newest refresh token
-- expired (no token of it can be refreshed by then; access tokens live a day at most). Its tokens go
-- with it (on delete cascade). Within a live session, a rotated token is kept while it could still
-- be presented, and 30 days beyond, for reuse detection: 30 days after its own expiry.
CREATE FUNCTION app_auth.purge_expired_rows() RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION app_auth.purge_expired_rows() FROM PUBLIC;
GRANT ALL ON FUNCTION app_auth.purge_expired_rows() TO service_jobs;


-- Refresh and sign-out
-- The refresh token is exchanged for a new one. Its row is locked first, so of two concurrent uses
-- exactly one rotates and the other then finds it rotated: a reuse, which ends the session.
-- error: null, 'refresh_token_not_found' (unknown, expired, or its session ended),
-- 'refresh_token_already_used' (a reuse: the session is ended now).
CREATE FUNCTION app_auth.refresh_session(p_token_hash bytea, p_new_hash bytea, p_refresh_ttl_seconds integer) RETURNS app_auth.session_answer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION app_auth.refresh_session(p_token_hash bytea, p_new_hash bytea, p_refresh_ttl_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION app_auth.refresh_session(p_token_hash bytea, p_new_hash bytea, p_refresh_ttl_seconds integer) TO api_gateway;


-- A new session of a user and its first refresh token. The admin CLI calls it as service_role;
-- verify_otp calls it after a code was spent.
CREATE FUNCTION app_auth.start_session(p_user_id core.object_id, p_method text, p_refresh_hash bytea, p_refresh_ttl_seconds integer) RETURNS app_auth.session_answer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_session uuid;
  begin
    insert into app_auth.sessions (user_id, method) values (p_user_id, p_method) returning id into v_session;
    insert into app_auth.refresh_tokens (token_hash, session_id, expires_at)
      values (p_refresh_hash, v_session, now() + make_interval(secs => p_refresh_ttl_seconds));
    return app_auth.live_session(v_session);
  end
  $$;

REVOKE ALL ON FUNCTION app_auth.start_session(p_user_id core.object_id, p_method text, p_refresh_hash bytea, p_refresh_ttl_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION app_auth.start_session(p_user_id core.object_id, p_method text, p_refresh_hash bytea, p_refresh_ttl_seconds integer) TO service_role;


-- error: null, 'wrong_code', 'code_expired' (expired, spent, out of attempts, or no live code).
CREATE FUNCTION app_auth.verify_otp(p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer, p_refresh_hash bytea, p_refresh_ttl_seconds integer) RETURNS app_auth.session_answer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_code record;
    v_refused app_auth.session_answer;
  begin
    select * into v_code from mcp_oauth.spend_sign_in_code(null, p_email, p_code_hash, p_ip, p_max_attempts, p_per_ip,
                                                           p_window_seconds, p_wrong_guesses_per_day);
    if v_code.error is not null then
      v_refused.error := v_code.error;
      return v_refused;
    end if;
    return app_auth.start_session(v_code.user_id, 'otp', p_refresh_hash, p_refresh_ttl_seconds);
  end
  $$;

REVOKE ALL ON FUNCTION app_auth.verify_otp(p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer, p_refresh_hash bytea, p_refresh_ttl_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION app_auth.verify_otp(p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer, p_refresh_hash bytea, p_refresh_ttl_seconds integer) TO api_gateway;


CREATE TABLE app_auth.refresh_tokens (
    token_hash bytea NOT NULL,
    session_id uuid NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    rotated_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT refresh_tokens_token_hash_check CHECK ((octet_length(token_hash) = 32)),
    CONSTRAINT refresh_tokens_pkey PRIMARY KEY (token_hash)
);

create index refresh_tokens_session_id_idx on app_auth.refresh_tokens (session_id);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON app_auth.refresh_tokens AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE app_auth.refresh_tokens ENABLE ROW LEVEL SECURITY;


-- Sessions and their refresh tokens
-- The id is the access tokens' `session_id` claim.
CREATE TABLE app_auth.sessions (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id core.object_id NOT NULL,
    method text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    refreshed_at timestamp with time zone,
    ended_at timestamp with time zone,
    ended_reason text,
    CONSTRAINT sessions_check CHECK (((ended_at IS NULL) = (ended_reason IS NULL))),
    CONSTRAINT sessions_ended_reason_check CHECK ((ended_reason = ANY (ARRAY['sign_out'::text, 'refresh_token_reuse'::text]))),
    CONSTRAINT sessions_method_check CHECK ((method = ANY (ARRAY['otp'::text, 'admin'::text]))),
    CONSTRAINT sessions_pkey PRIMARY KEY (id),
    CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index sessions_user_id_idx on app_auth.sessions (user_id, created_at desc);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON app_auth.sessions AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE app_auth.sessions ENABLE ROW LEVEL SECURITY;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY app_auth.refresh_tokens
    ADD CONSTRAINT refresh_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES app_auth.sessions(id) ON DELETE CASCADE;


-- Background jobs, run by pg_cron as service_jobs (core.schedule_job: scheduling a job of the same
-- name again replaces it).
select core.schedule_job('purge_expired_app_auth_rows', '41 * * * *', 'app_auth.purge_expired_rows');
