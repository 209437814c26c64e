-- MCP OAuth: the public MCP endpoint's own OAuth 2.1 authorization server. Clients, e-mail sign-in
-- codes, browser sessions of the sign-in pages, grants, authorization codes, refresh tokens and
-- revoked access tokens.
--
-- Every secret is stored as a hash computed by the gateway (SHA-256 of a 256-bit random token; an
-- HMAC-SHA256 keyed with MCP_TOKEN_SECRET for the short e-mail codes, which are too small to be
-- safe behind a plain hash): codes, refresh tokens, authorization codes, browser sessions.
--
-- Who calls what (deny by default; every write is a SECURITY DEFINER function with an empty
-- search_path that checks its caller's input itself):
--   api_gateway (the service's login, before any principal exists): the authorization-server
--     functions (sign-in codes, sessions, clients, approve, redeem, rotate, revoke) and
--     access_allowed, which every /mcp request calls;
--   authenticated (an API key's owner, or the signed-in person on the grants page): reads their own
--     grants under RLS and revokes them with revoke_my_grant;
--   pg_cron (service_jobs): purge_expired_rows, hourly (its comment says what goes when).
--
-- Outcomes that must commit (a wrong code counts as an attempt; a reused refresh token or
-- authorization code revokes its grant) are returned as an `error` column instead of raised, since
-- raising would roll the attempt or the revocation back. Refusals that change nothing raise PT4xx.

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA mcp_oauth;

GRANT USAGE ON SCHEMA mcp_oauth TO api_gateway;
GRANT USAGE ON SCHEMA mcp_oauth TO authenticated;
GRANT USAGE ON SCHEMA mcp_oauth TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema mcp_oauth revoke all on tables from public;
alter default privileges in schema mcp_oauth revoke all on functions from public;


-- Every /mcp request: is the token's grant alive, and within its rate limit?
-- One statement on two primary keys; the signature, audience and expiry were checked by the gateway.
-- The token is also checked against its grant: the token's person and client must be the grant's,
-- and its scopes within the grant's, so a token forged with a leaked signing secret still reaches no
-- other person's data and no scope the person did not grant. The rate limit counts per grant (all
-- access tokens a client refreshes into share it).
CREATE FUNCTION mcp_oauth.access_allowed(p_grant_id text, p_jti uuid, p_per_minute integer, p_user_id text, p_client_id text, p_scopes text[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_grant record;
  begin
    select g.revoked_at, g.last_used_at, g.user_id, g.client_id, g.scopes into v_grant from mcp_oauth.grants g where g.id = p_grant_id;
    if not found or v_grant.revoked_at is not null
       or exists (select from mcp_oauth.revoked_access_tokens r where r.jti = p_jti) then
      raise exception 'the access token has been revoked' using errcode = 'PT401', hint = 'invalid_token';
    end if;
    if v_grant.user_id::text is distinct from p_user_id or v_grant.client_id is distinct from p_client_id
       or p_scopes is null or not (p_scopes <@ v_grant.scopes) then
      raise exception 'the access token does not match its grant' using errcode = 'PT401', hint = 'invalid_token';
    end if;
    perform core.take_rate_limit('mcp_grant:' || p_grant_id, p_per_minute, 60);
    if v_grant.last_used_at is null or v_grant.last_used_at < now() - interval '1 minute' then
      update mcp_oauth.grants g set last_used_at = now() where g.id = p_grant_id;
    end if;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.access_allowed(p_grant_id text, p_jti uuid, p_per_minute integer, p_user_id text, p_client_id text, p_scopes text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.access_allowed(p_grant_id text, p_jti uuid, p_per_minute integer, p_user_id text, p_client_id text, p_scopes text[]) TO api_gateway;


-- The signed-in person approves a client: a grant and its authorization code (p_code_ttl_seconds).
CREATE FUNCTION mcp_oauth.approve(p_session_hash bytea, p_client_id text, p_client_name text, p_redirect_uri text, p_scopes text[], p_resource text, p_code_hash bytea, p_code_challenge text, p_code_ttl_seconds integer) RETURNS core.object_id
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_user core.object_id := (select b.user_id from mcp_oauth.browser_session_user(p_session_hash) b);
    v_grant core.object_id;
  begin
    if v_user is null then
      raise exception 'sign in again' using errcode = 'PT401', hint = 'session_expired';
    end if;
    insert into mcp_oauth.grants (user_id, client_id, client_name, redirect_uri, scopes, resource)
      values (v_user, p_client_id, p_client_name, p_redirect_uri, p_scopes, p_resource)
      returning id into v_grant;
    insert into mcp_oauth.authorization_codes (code_hash, grant_id, code_challenge, expires_at)
      values (p_code_hash, v_grant, p_code_challenge, now() + make_interval(secs => p_code_ttl_seconds));
    return v_grant;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.approve(p_session_hash bytea, p_client_id text, p_client_name text, p_redirect_uri text, p_scopes text[], p_resource text, p_code_hash bytea, p_code_challenge text, p_code_ttl_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.approve(p_session_hash bytea, p_client_id text, p_client_name text, p_redirect_uri text, p_scopes text[], p_resource text, p_code_hash bytea, p_code_challenge text, p_code_ttl_seconds integer) TO api_gateway;


-- The user (and e-mail) of a live browser session; no row when there is none.
CREATE FUNCTION mcp_oauth.browser_session_user(p_session_hash bytea) RETURNS TABLE(user_id core.object_id, email text)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select s.user_id, u.email from mcp_oauth.browser_sessions s join core.users u on u.id = s.user_id
      where s.token_hash = p_session_hash and s.expires_at > now()
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.browser_session_user(p_session_hash bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.browser_session_user(p_session_hash bytea) TO api_gateway;


-- A fetched Client ID Metadata Document, cached until p_expires_at.
CREATE FUNCTION mcp_oauth.cache_metadata_document(p_client_id text, p_client_name text, p_client_uri text, p_redirect_uris text[], p_expires_at timestamp with time zone) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    insert into mcp_oauth.clients as c (client_id, kind, client_name, client_uri, redirect_uris, expires_at)
      values (p_client_id, 'metadata_document', p_client_name, p_client_uri, p_redirect_uris, p_expires_at)
      on conflict (client_id) do update
        set client_name = excluded.client_name, client_uri = excluded.client_uri, redirect_uris = excluded.redirect_uris,
            expires_at = excluded.expires_at, updated_at = now()
        where c.kind = 'metadata_document'
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.cache_metadata_document(p_client_id text, p_client_name text, p_client_uri text, p_redirect_uris text[], p_expires_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.cache_metadata_document(p_client_id text, p_client_name text, p_client_uri text, p_redirect_uris text[], p_expires_at timestamp with time zone) TO api_gateway;


-- Clients
CREATE FUNCTION mcp_oauth.client(p_client_id text) RETURNS TABLE(kind text, client_name text, client_uri text, redirect_uris text[], expires_at timestamp with time zone)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select c.kind, c.client_name, c.client_uri, c.redirect_uris, c.expires_at from mcp_oauth.clients c where c.client_id = p_client_id
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.client(p_client_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.client(p_client_id text) TO api_gateway;


CREATE FUNCTION mcp_oauth.end_browser_session(p_session_hash bytea) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$ delete from mcp_oauth.browser_sessions where token_hash = p_session_hash $$;

REVOKE ALL ON FUNCTION mcp_oauth.end_browser_session(p_session_hash bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.end_browser_session(p_session_hash bytea) TO api_gateway;


-- Sign-in by e-mail code
-- A new code for an address. Sends are counted per requester and per (address, requester), never
-- per address alone, so one client's requests do not consume another's; an address gets at most one
-- code per p_resend_seconds (sooner is 429 with the seconds left), and none once it took its daily
-- cap of wrong guesses (mcp_oauth.lock_sign_in_address, whose lock it holds). The code ends only the
-- earlier live codes its own requester asked for, so another client's request never ends the owner's
-- pending code.
CREATE FUNCTION mcp_oauth.issue_sign_in_code(p_email text, p_ip text, p_code_hash bytea, p_ttl_seconds integer, p_per_address_and_ip integer, p_per_ip integer, p_window_seconds integer, p_resend_seconds integer, p_wrong_guesses_per_day integer) RETURNS core.object_id
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_email text := lower(btrim(p_email));
    v_ip text := coalesce(p_ip, 'unknown');
    v_last timestamptz;
    v_id core.object_id;
  begin
    perform core.take_rate_limit('mcp_sign_in_code:ip:' || v_ip, p_per_ip, p_window_seconds);
    perform core.take_rate_limit('mcp_sign_in_code:address_ip:' || v_email || ' ' || v_ip, p_per_address_and_ip, p_window_seconds);
    -- A code the address could not use is not mailed.
    perform mcp_oauth.lock_sign_in_address(v_email, p_wrong_guesses_per_day);
    select max(c.created_at) into v_last from mcp_oauth.sign_in_codes c where lower(c.email) = v_email;
    if v_last > now() - make_interval(secs => p_resend_seconds) then
      raise exception 'a sign-in code was sent to this address moments ago'
        using errcode = 'PT429', hint = 'rate_limited',
              detail = pg_catalog.json_build_object('retryAfterSeconds',
                greatest(1, ceil(extract(epoch from v_last + make_interval(secs => p_resend_seconds) - now()))))::text;
    end if;
    update mcp_oauth.sign_in_codes c set expires_at = least(c.expires_at, now())
      where lower(c.email) = v_email and c.requested_by = v_ip and c.consumed_at is null and c.expires_at > now();
    insert into mcp_oauth.sign_in_codes (email, code_hash, expires_at, requested_by)
      values (v_email, p_code_hash, now() + make_interval(secs => p_ttl_seconds), v_ip)
      returning id into v_id;
    return v_id;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.issue_sign_in_code(p_email text, p_ip text, p_code_hash bytea, p_ttl_seconds integer, p_per_address_and_ip integer, p_per_ip integer, p_window_seconds integer, p_resend_seconds integer, p_wrong_guesses_per_day integer) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.issue_sign_in_code(p_email text, p_ip text, p_code_hash bytea, p_ttl_seconds integer, p_per_address_and_ip integer, p_per_ip integer, p_window_seconds integer, p_resend_seconds integer, p_wrong_guesses_per_day integer) TO api_gateway;


-- The address's lock and its daily cap on wrong guesses
-- Takes the address's lock until the transaction ends (issuing and checking codes of one address
-- queue on it) and raises PT429 once the address took p_wrong_guesses_per_day wrong guesses in a
-- day. A guess is made before its code's expires_at, and a code is kept until a day after it (the
-- purge), so counting the codes that expired less than a day ago counts every guess of the last day.
CREATE FUNCTION mcp_oauth.lock_sign_in_address(p_email text, p_wrong_guesses_per_day integer) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_wrong integer;
    v_oldest timestamptz;
  begin
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('mcp_sign_in_code:' || p_email, 0));
    select coalesce(sum(c.attempts - (c.consumed_at is not null)::integer), 0), min(c.expires_at)
        filter (where c.attempts > (c.consumed_at is not null)::integer)
      into v_wrong, v_oldest
      from mcp_oauth.sign_in_codes c
      where lower(c.email) = p_email and c.expires_at > now() - interval '1 day';
    if v_wrong >= p_wrong_guesses_per_day then
      -- Again once the oldest counted guesses are a day old.
      raise exception 'too many wrong sign-in codes for this address today'
        using errcode = 'PT429', hint = 'rate_limited',
              detail = pg_catalog.json_build_object('retryAfterSeconds',
                greatest(1, ceil(extract(epoch from v_oldest + interval '1 day' - now()))))::text;
    end if;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.lock_sign_in_address(p_email text, p_wrong_guesses_per_day integer) FROM PUBLIC;


-- Purge
-- Margins (every cutoff is now() minus the margin):
--   * sign-in codes, browser sessions, authorization codes, revoked access tokens, cached Client ID
--     Metadata Documents: a day after expires_at. Every check refuses them once expired (an expired
--     authorization code before its reuse is looked at; a revoked access token is also past the
--     `exp` the gateway checks first; an expired metadata document is fetched again); the day keeps
--     them for an incident's first look and leaves clock skew and in-flight requests far behind.
--   * refresh tokens: each 30 days after its own expires_at, rotated or not. A rotated token is kept
--     for reuse detection (rotate_refresh_token revokes the grant when one is presented again), which
--     matters while the token could still be presented: until it expires, and 30 days beyond, which
--     covers an owner whose client slept past the token's expiry and whose copy was rotated by a
--     thief. A rotated token replayed after that is refused (invalid_grant) without revoking the
--     grant; an active grant thus keeps about TTL + 30 days of rotations, not all of them for ever.
--   * grants: 30 days after they were revoked (long enough to see on the grants page, reason
--     included), or, never revoked, 30 days after their last refresh token expired (or, never
--     redeemed, 30 days after their creation): no token of them can be refreshed or presented by
--     then (access tokens live an hour at most). Their codes, tokens and revoked-token marks go with
--     them (on delete cascade).
--   * registered clients (Dynamic Client Registration, kind registered): once no grant names them
--     and they registered over 90 days ago. With the grants' margin, such a client has used no token
--     for at least 30 days; registrations that were never approved go after 90 days. A client that
--     comes back after that registers again (its old client_id is unknown at /oauth/authorize).
-- Leaves first, then grants (cascading to their rows), then the clients the grants named, so one run
-- leaves nothing that the next would delete. Returns the rows deleted, cascades not counted.
CREATE FUNCTION mcp_oauth.purge_expired_rows() RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_total integer;
    v_rows integer;
  begin
    with
      codes as (delete from mcp_oauth.sign_in_codes c where c.expires_at < now() - interval '1 day' returning 1),
      sessions as (delete from mcp_oauth.browser_sessions s where s.expires_at < now() - interval '1 day' returning 1),
      authorizations as (delete from mcp_oauth.authorization_codes a where a.expires_at < now() - interval '1 day' returning 1),
      revocations as (delete from mcp_oauth.revoked_access_tokens r where r.expires_at < now() - interval '1 day' returning 1),
      documents as (delete from mcp_oauth.clients c
                    where c.kind = 'metadata_document' and c.expires_at < now() - interval '1 day' returning 1),
      refresh as (delete from mcp_oauth.refresh_tokens t where t.expires_at < now() - interval '30 days' returning 1)
    select (select count(*) from codes) + (select count(*) from sessions) + (select count(*) from authorizations)
         + (select count(*) from revocations) + (select count(*) from documents) + (select count(*) from refresh)
      into v_total;

    delete from mcp_oauth.grants g
      where (g.revoked_at < now() - interval '30 days'
             or (g.revoked_at is null and g.created_at < now() - interval '30 days'
                 and not exists (select from mcp_oauth.refresh_tokens t where t.grant_id = g.id)
                 and not exists (select from mcp_oauth.authorization_codes a where a.grant_id = g.id)))
        and not exists (select from mcp_confirmations.confirmations l where l.grant_id = g.id);
    get diagnostics v_rows = row_count;
    v_total := v_total + v_rows;

    delete from mcp_oauth.clients c
      where c.kind = 'registered' and c.created_at < now() - interval '90 days'
        and not exists (select from mcp_oauth.grants g where g.client_id = c.client_id);
    get diagnostics v_rows = row_count;
    return v_total + v_rows;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.purge_expired_rows() FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.purge_expired_rows() TO service_jobs;


-- The token endpoint's authorization_code grant. The code row is locked, so of two concurrent
-- redemptions one wins and the other is a reuse; a reused code revokes its grant (RFC 6749 4.1.2),
-- which kills the tokens the first redemption got. p_challenge is S256(code_verifier), computed by
-- the gateway. error: null, 'invalid_grant' (unknown, expired, reused, other client or redirect
-- URI, wrong verifier), 'invalid_target' (another resource).
CREATE FUNCTION mcp_oauth.redeem_authorization_code(p_code_hash bytea, p_client_id text, p_redirect_uri text, p_challenge text, p_resource text, p_refresh_hash bytea, p_refresh_ttl_seconds integer, OUT error text, OUT grant_id core.object_id, OUT user_id core.object_id, OUT scopes text[], OUT resource text) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_code record;
  begin
    select c.*, g.user_id, g.client_id, g.redirect_uri, g.scopes, g.resource, g.revoked_at into v_code
      from mcp_oauth.authorization_codes c join mcp_oauth.grants g on g.id = c.grant_id
      where c.code_hash = p_code_hash
      for update of c;
    if not found or v_code.expires_at <= now() or v_code.revoked_at is not null then
      error := 'invalid_grant';
      return;
    end if;
    if v_code.consumed_at is not null then
      perform mcp_oauth.revoke_for_reuse(v_code.grant_id, 'authorization_code_reuse');
      error := 'invalid_grant';
      return;
    end if;
    if v_code.client_id <> p_client_id or v_code.redirect_uri <> p_redirect_uri or v_code.code_challenge <> p_challenge then
      error := 'invalid_grant';
      return;
    end if;
    if p_resource is not null and p_resource <> v_code.resource then
      error := 'invalid_target';
      return;
    end if;
    update mcp_oauth.authorization_codes c set consumed_at = now() where c.code_hash = p_code_hash;
    insert into mcp_oauth.refresh_tokens (token_hash, grant_id, expires_at)
      values (p_refresh_hash, v_code.grant_id, now() + make_interval(secs => p_refresh_ttl_seconds));
    grant_id := v_code.grant_id;
    user_id := v_code.user_id;
    scopes := v_code.scopes;
    resource := v_code.resource;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.redeem_authorization_code(p_code_hash bytea, p_client_id text, p_redirect_uri text, p_challenge text, p_resource text, p_refresh_hash bytea, p_refresh_ttl_seconds integer, OUT error text, OUT grant_id core.object_id, OUT user_id core.object_id, OUT scopes text[], OUT resource text) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.redeem_authorization_code(p_code_hash bytea, p_client_id text, p_redirect_uri text, p_challenge text, p_resource text, p_refresh_hash bytea, p_refresh_ttl_seconds integer, OUT error text, OUT grant_id core.object_id, OUT user_id core.object_id, OUT scopes text[], OUT resource text) TO api_gateway;


-- Dynamic Client Registration (RFC 7591), rate-limited per IP; the gateway makes the client id.
CREATE FUNCTION mcp_oauth.register_client(p_client_id text, p_client_name text, p_client_uri text, p_redirect_uris text[], p_ip text, p_per_ip integer, p_window_seconds integer) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    perform core.take_rate_limit('mcp_register:ip:' || coalesce(p_ip, 'unknown'), p_per_ip, p_window_seconds);
    insert into mcp_oauth.clients (client_id, kind, client_name, client_uri, redirect_uris)
      values (p_client_id, 'registered', p_client_name, p_client_uri, p_redirect_uris);
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.register_client(p_client_id text, p_client_name text, p_client_uri text, p_redirect_uris text[], p_ip text, p_per_ip integer, p_window_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.register_client(p_client_id text, p_client_name text, p_client_uri text, p_redirect_uris text[], p_ip text, p_per_ip integer, p_window_seconds integer) TO api_gateway;


-- Revocation endpoint for an access token (verified by the gateway): listed until it expires.
CREATE FUNCTION mcp_oauth.revoke_access_token(p_jti uuid, p_grant_id text, p_client_id text, p_expires_at timestamp with time zone) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    insert into mcp_oauth.revoked_access_tokens (jti, grant_id, expires_at)
      select p_jti, g.id, p_expires_at from mcp_oauth.grants g where g.id = p_grant_id and g.client_id = p_client_id
      on conflict (jti) do nothing
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.revoke_access_token(p_jti uuid, p_grant_id text, p_client_id text, p_expires_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.revoke_access_token(p_jti uuid, p_grant_id text, p_client_id text, p_expires_at timestamp with time zone) TO api_gateway;


-- Approval, codes, refresh tokens
-- A code or refresh token used again: its grant is revoked (unless it already was), ending every
-- token of it. The caller returns an error instead of raising, so the revocation commits. Not
-- granted to anyone: only the two token functions below call it.
CREATE FUNCTION mcp_oauth.revoke_for_reuse(p_grant_id core.object_id, p_reason text) RETURNS void
    LANGUAGE sql
    SET search_path TO ''
    AS $$
    update mcp_oauth.grants g set revoked_at = now(), revoked_reason = p_reason
      where g.id = p_grant_id and g.revoked_at is null
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.revoke_for_reuse(p_grant_id core.object_id, p_reason text) FROM PUBLIC;


-- A person's own grants (REST with their API key, or the grants page): read under RLS, revoke here
CREATE FUNCTION mcp_oauth.revoke_my_grant(p_grant_id text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $_$
  declare
    v_user core.object_id := core.current_user_id();
  begin
    if v_user is null or p_grant_id !~ '^[0-9a-f]{24}$' then
      return false;
    end if;
    update mcp_oauth.grants g set revoked_at = coalesce(g.revoked_at, now()), revoked_reason = coalesce(g.revoked_reason, 'user')
      where g.id = p_grant_id::core.object_id and g.user_id = v_user;
    return found;
  end
  $_$;

REVOKE ALL ON FUNCTION mcp_oauth.revoke_my_grant(p_grant_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.revoke_my_grant(p_grant_id text) TO authenticated;


-- Revocation endpoint (RFC 7009) for a refresh token: ends its grant. Another client's token, or an
-- unknown one, changes nothing (the endpoint answers 200 either way).
CREATE FUNCTION mcp_oauth.revoke_refresh_token(p_token_hash bytea, p_client_id text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    update mcp_oauth.grants g set revoked_at = now(), revoked_reason = 'client'
      from mcp_oauth.refresh_tokens t
      where t.token_hash = p_token_hash and g.id = t.grant_id and g.client_id = p_client_id and g.revoked_at is null;
    return found;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.revoke_refresh_token(p_token_hash bytea, p_client_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.revoke_refresh_token(p_token_hash bytea, p_client_id text) TO api_gateway;


-- The token endpoint's refresh_token grant: the token is exchanged for a new one (rotation). Its row
-- is locked first, so of two concurrent uses exactly one rotates and the other, waiting on the lock,
-- then finds it rotated: a reuse, which revokes the whole grant (the thief's and the owner's tokens
-- alike; the person signs in again). An optional p_scopes narrows the grant's scopes for this
-- access token. error: null, 'invalid_grant', 'invalid_target', 'invalid_scope'.
CREATE FUNCTION mcp_oauth.rotate_refresh_token(p_token_hash bytea, p_client_id text, p_resource text, p_scopes text[], p_new_hash bytea, p_refresh_ttl_seconds integer, OUT error text, OUT grant_id core.object_id, OUT user_id core.object_id, OUT scopes text[], OUT resource text) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_token record;
  begin
    select t.*, g.user_id, g.client_id, g.scopes, g.resource, g.revoked_at as grant_revoked_at into v_token
      from mcp_oauth.refresh_tokens t join mcp_oauth.grants g on g.id = t.grant_id
      where t.token_hash = p_token_hash
      for update of t;
    if not found or v_token.client_id <> p_client_id then
      error := 'invalid_grant';
      return;
    end if;
    if v_token.rotated_at is not null then
      perform mcp_oauth.revoke_for_reuse(v_token.grant_id, 'refresh_token_reuse');
      error := 'invalid_grant';
      return;
    end if;
    if v_token.grant_revoked_at is not null or v_token.expires_at <= now() then
      error := 'invalid_grant';
      return;
    end if;
    if p_resource is not null and p_resource <> v_token.resource then
      error := 'invalid_target';
      return;
    end if;
    if p_scopes is not null and not (p_scopes <@ v_token.scopes and cardinality(p_scopes) > 0) then
      error := 'invalid_scope';
      return;
    end if;
    update mcp_oauth.refresh_tokens t set rotated_at = now() where t.token_hash = p_token_hash;
    insert into mcp_oauth.refresh_tokens (token_hash, grant_id, expires_at)
      values (p_new_hash, v_token.grant_id, now() + make_interval(secs => p_refresh_ttl_seconds));
    grant_id := v_token.grant_id;
    user_id := v_token.user_id;
    scopes := coalesce(p_scopes, v_token.scopes);
    resource := v_token.resource;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.rotate_refresh_token(p_token_hash bytea, p_client_id text, p_resource text, p_scopes text[], p_new_hash bytea, p_refresh_ttl_seconds integer, OUT error text, OUT grant_id core.object_id, OUT user_id core.object_id, OUT scopes text[], OUT resource text) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.rotate_refresh_token(p_token_hash bytea, p_client_id text, p_resource text, p_scopes text[], p_new_hash bytea, p_refresh_ttl_seconds integer, OUT error text, OUT grant_id core.object_id, OUT user_id core.object_id, OUT scopes text[], OUT resource text) TO api_gateway;


-- Sign-in by e-mail code: the check behind both doors' verify functions (the OAuth pages start a
-- browser session, the local auth server an app session). Every try counts, under the address's lock
-- (mcp_oauth.lock_sign_in_address, with its daily cap on wrong guesses); after p_max_attempts the
-- code is dead whatever is sent; per-IP limit; on success the code is spent and the user with that
-- e-mail is found or created. With a sign-in id (the OAuth pages) the code checked is that one.
-- Without one (the local auth server: Supabase's verify names only the address and the code), it is
-- the requester's own newest live code, else the address's newest: another client's later request
-- does not displace it, and every guess is still compared with one code.
CREATE FUNCTION mcp_oauth.spend_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer, OUT error text, OUT user_id core.object_id) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $_$
  declare
    v_email text := lower(btrim(p_email));
    v_ip text := coalesce(p_ip, 'unknown');
    v_code mcp_oauth.sign_in_codes%rowtype;
  begin
    perform core.take_rate_limit('mcp_sign_in_verify:ip:' || v_ip, p_per_ip, p_window_seconds);
    perform mcp_oauth.lock_sign_in_address(v_email, p_wrong_guesses_per_day);
    if p_id is null then
      select * into v_code from mcp_oauth.sign_in_codes c
        where lower(c.email) = v_email and c.consumed_at is null and c.expires_at > now()
        order by c.requested_by is not distinct from v_ip desc, c.created_at desc limit 1
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
  $_$;

REVOKE ALL ON FUNCTION mcp_oauth.spend_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer, OUT error text, OUT user_id core.object_id) FROM PUBLIC;


-- Checks the code of sign-in `p_id` (mcp_oauth.spend_sign_in_code: every try counts, and a code
-- is dead after p_max_attempts whatever is sent); on success a browser session of
-- p_session_ttl_seconds starts. error: null, 'wrong_code', 'code_expired' (expired, spent, out of
-- attempts or unknown).
CREATE FUNCTION mcp_oauth.verify_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer, p_session_hash bytea, p_session_ttl_seconds integer, OUT error text, OUT user_id core.object_id) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    if p_id is null then
      error := 'code_expired';
      return;
    end if;
    select s.error, s.user_id into error, user_id
      from mcp_oauth.spend_sign_in_code(p_id, p_email, p_code_hash, p_ip, p_max_attempts, p_per_ip, p_window_seconds,
                                        p_wrong_guesses_per_day) s;
    if error is null then
      insert into mcp_oauth.browser_sessions (token_hash, user_id, expires_at)
        values (p_session_hash, user_id, now() + make_interval(secs => p_session_ttl_seconds));
    end if;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_oauth.verify_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer, p_session_hash bytea, p_session_ttl_seconds integer, OUT error text, OUT user_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_oauth.verify_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer, p_session_hash bytea, p_session_ttl_seconds integer, OUT error text, OUT user_id core.object_id) TO api_gateway;


CREATE TABLE mcp_oauth.authorization_codes (
    code_hash bytea NOT NULL,
    grant_id core.object_id NOT NULL,
    code_challenge text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    consumed_at timestamp with time zone,
    CONSTRAINT authorization_codes_code_challenge_check CHECK ((code_challenge ~ '^[A-Za-z0-9_-]{43}$'::text)),
    CONSTRAINT authorization_codes_code_hash_check CHECK ((octet_length(code_hash) = 32)),
    CONSTRAINT authorization_codes_pkey PRIMARY KEY (code_hash)
);

create index authorization_codes_grant_id_idx on mcp_oauth.authorization_codes (grant_id);

ALTER TABLE mcp_oauth.authorization_codes ENABLE ROW LEVEL SECURITY;

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON mcp_oauth.authorization_codes AS RESTRICTIVE USING (false) WITH CHECK (false);


-- The pages' own session after a code was accepted (a cookie holding a random token).
CREATE TABLE mcp_oauth.browser_sessions (
    token_hash bytea NOT NULL,
    user_id core.object_id NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT browser_sessions_token_hash_check CHECK ((octet_length(token_hash) = 32)),
    CONSTRAINT browser_sessions_pkey PRIMARY KEY (token_hash),
    CONSTRAINT browser_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index browser_sessions_user_id_idx on mcp_oauth.browser_sessions (user_id);

ALTER TABLE mcp_oauth.browser_sessions ENABLE ROW LEVEL SECURITY;

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON mcp_oauth.browser_sessions AS RESTRICTIVE USING (false) WITH CHECK (false);


-- Clients: registered by Dynamic Client Registration, or cached Client ID Metadata Documents
-- Pre-registered clients live in the configuration (MCP_PRE_REGISTERED_CLIENTS), not here. Every
-- client is public (token_endpoint_auth_method none): PKCE protects its codes, so there is no
-- client secret to store.
CREATE TABLE mcp_oauth.clients (
    client_id text NOT NULL,
    kind text NOT NULL,
    client_name text NOT NULL,
    client_uri text,
    redirect_uris text[] NOT NULL,
    expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT clients_client_id_check CHECK (((char_length(client_id) >= 1) AND (char_length(client_id) <= 2048))),
    CONSTRAINT clients_client_name_check CHECK (((char_length(client_name) >= 1) AND (char_length(client_name) <= 200))),
    CONSTRAINT clients_client_uri_check CHECK ((char_length(client_uri) <= 2048)),
    CONSTRAINT clients_kind_check CHECK ((kind = ANY (ARRAY['registered'::text, 'metadata_document'::text]))),
    CONSTRAINT clients_redirect_uris_check CHECK (((cardinality(redirect_uris) >= 1) AND (cardinality(redirect_uris) <= 20))),
    CONSTRAINT clients_pkey PRIMARY KEY (client_id)
);

ALTER TABLE mcp_oauth.clients ENABLE ROW LEVEL SECURITY;

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON mcp_oauth.clients AS RESTRICTIVE USING (false) WITH CHECK (false);


-- Grants and their tokens
-- A grant is one approval on the consent page: a person, a client, the scopes they chose and the
-- resource (RFC 8707) the tokens are for. Its refresh tokens are one rotating family; revoking the
-- grant ends them all, and every access token of it at its next use.
CREATE TABLE mcp_oauth.grants (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    user_id core.object_id NOT NULL,
    client_id text NOT NULL,
    client_name text NOT NULL,
    redirect_uri text NOT NULL,
    scopes text[] NOT NULL,
    resource text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    revoked_reason text,
    CONSTRAINT grants_check CHECK (((revoked_at IS NULL) = (revoked_reason IS NULL))),
    CONSTRAINT grants_client_id_check CHECK (((char_length(client_id) >= 1) AND (char_length(client_id) <= 2048))),
    CONSTRAINT grants_client_name_check CHECK (((char_length(client_name) >= 1) AND (char_length(client_name) <= 200))),
    CONSTRAINT grants_redirect_uri_check CHECK ((char_length(redirect_uri) <= 2048)),
    CONSTRAINT grants_resource_check CHECK ((char_length(resource) <= 2048)),
    CONSTRAINT grants_revoked_reason_check CHECK ((revoked_reason = ANY (ARRAY['user'::text, 'client'::text, 'refresh_token_reuse'::text, 'authorization_code_reuse'::text]))),
    CONSTRAINT grants_scopes_check CHECK (((cardinality(scopes) >= 1) AND (cardinality(scopes) <= 50))),
    CONSTRAINT grants_pkey PRIMARY KEY (id),
    CONSTRAINT grants_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index grants_user_id_idx on mcp_oauth.grants (user_id, created_at desc);

ALTER TABLE mcp_oauth.grants ENABLE ROW LEVEL SECURITY;

create policy grants_select_owner on mcp_oauth.grants
  for select to authenticated
  using (user_id = (select core.current_user_id()));

GRANT SELECT(id) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(client_id) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(client_name) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(redirect_uri) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(scopes) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(resource) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(created_at) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(last_used_at) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(revoked_at) ON TABLE mcp_oauth.grants TO authenticated;

GRANT SELECT(revoked_reason) ON TABLE mcp_oauth.grants TO authenticated;


CREATE TABLE mcp_oauth.refresh_tokens (
    token_hash bytea NOT NULL,
    grant_id core.object_id NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    rotated_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT refresh_tokens_token_hash_check CHECK ((octet_length(token_hash) = 32)),
    CONSTRAINT refresh_tokens_pkey PRIMARY KEY (token_hash),
    CONSTRAINT refresh_tokens_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES mcp_oauth.grants(id) ON DELETE CASCADE
);

create index refresh_tokens_grant_id_idx on mcp_oauth.refresh_tokens (grant_id);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON mcp_oauth.refresh_tokens AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE mcp_oauth.refresh_tokens ENABLE ROW LEVEL SECURITY;


-- Access tokens are JWTs checked by signature; one revoked on its own (RFC 7009) is listed here
-- until it would have expired anyway.
CREATE TABLE mcp_oauth.revoked_access_tokens (
    jti uuid NOT NULL,
    grant_id core.object_id NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT revoked_access_tokens_pkey PRIMARY KEY (jti),
    CONSTRAINT revoked_access_tokens_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES mcp_oauth.grants(id) ON DELETE CASCADE
);

create index revoked_access_tokens_grant_id_idx on mcp_oauth.revoked_access_tokens (grant_id);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON mcp_oauth.revoked_access_tokens AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE mcp_oauth.revoked_access_tokens ENABLE ROW LEVEL SECURITY;


-- Sign-in codes: one-time, short-lived, hashed, attempt-capped
CREATE TABLE mcp_oauth.sign_in_codes (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    email text NOT NULL,
    code_hash bytea NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    consumed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    requested_by text,
    CONSTRAINT sign_in_codes_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT sign_in_codes_code_hash_check CHECK ((octet_length(code_hash) = 32)),
    CONSTRAINT sign_in_codes_email_check CHECK (((email ~ '^[^@\s]+@[^@\s]+$'::text) AND (char_length(email) <= 320))),
    CONSTRAINT sign_in_codes_pkey PRIMARY KEY (id)
);

create index sign_in_codes_email_idx on mcp_oauth.sign_in_codes (lower(email), created_at);

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON mcp_oauth.sign_in_codes AS RESTRICTIVE USING (false) WITH CHECK (false);

ALTER TABLE mcp_oauth.sign_in_codes ENABLE ROW LEVEL SECURITY;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY mcp_oauth.authorization_codes
    ADD CONSTRAINT authorization_codes_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES mcp_oauth.grants(id) ON DELETE CASCADE;


-- Background jobs, run by pg_cron as service_jobs (core.schedule_job: scheduling a job of the same
-- name again replaces it).
select core.schedule_job('purge_expired_mcp_oauth_rows', '23 * * * *', 'mcp_oauth.purge_expired_rows');
