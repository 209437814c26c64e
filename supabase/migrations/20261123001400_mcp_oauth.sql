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
--   pg_cron (service_jobs): purge_expired_rows, hourly. Grants are the person's record of what they
--     approved and stay; dynamically registered clients have no expiry.
--
-- Outcomes that must commit (a wrong code counts as an attempt; a reused refresh token or
-- authorization code revokes its grant) are returned as an `error` column instead of raised, since
-- raising would roll the attempt or the revocation back. Refusals that change nothing raise PT4xx.

create schema mcp_oauth;
revoke all on schema mcp_oauth from public;
grant usage on schema mcp_oauth to api_gateway, authenticated;
-- The purge job's role: usage only, and execute on mcp_oauth.purge_expired_rows (no table privilege).
grant usage on schema mcp_oauth to service_jobs;
alter default privileges in schema mcp_oauth revoke all on tables from public;
alter default privileges in schema mcp_oauth revoke all on functions from public;

-- ============================================================================================
-- Clients: registered by Dynamic Client Registration, or cached Client ID Metadata Documents
-- ============================================================================================
-- Pre-registered clients live in the configuration (MCP_PRE_REGISTERED_CLIENTS), not here. Every
-- client is public (token_endpoint_auth_method none): PKCE protects its codes, so there is no
-- client secret to store.
create table mcp_oauth.clients (
  client_id     text primary key check (char_length(client_id) between 1 and 2048),
  kind          text not null check (kind in ('registered', 'metadata_document')),
  client_name   text not null check (char_length(client_name) between 1 and 200),
  client_uri    text check (char_length(client_uri) <= 2048),
  redirect_uris text[] not null check (cardinality(redirect_uris) between 1 and 20),
  -- A metadata document is fetched again once this passes (its cache lifetime, bounded).
  expires_at    timestamptz,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now()
);
alter table mcp_oauth.clients enable row level security;

-- ============================================================================================
-- Sign-in codes: one-time, short-lived, hashed, attempt-capped
-- ============================================================================================
create table mcp_oauth.sign_in_codes (
  id          core.object_id primary key default core.new_object_id(),
  email       text not null check (email ~ '^[^@\s]+@[^@\s]+$' and char_length(email) <= 320),
  code_hash   bytea not null check (octet_length(code_hash) = 32),
  attempts    integer not null default 0 check (attempts >= 0),
  expires_at  timestamptz not null,
  consumed_at timestamptz,
  created_at  timestamptz not null default now()
);
create index sign_in_codes_email_idx on mcp_oauth.sign_in_codes (lower(email), created_at);
alter table mcp_oauth.sign_in_codes enable row level security;

-- The pages' own session after a code was accepted (a cookie holding a random token).
create table mcp_oauth.browser_sessions (
  token_hash bytea primary key check (octet_length(token_hash) = 32),
  user_id    core.object_id not null references core.users (id) on delete cascade,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
alter table mcp_oauth.browser_sessions enable row level security;

-- ============================================================================================
-- Grants and their tokens
-- ============================================================================================
-- A grant is one approval on the consent page: a person, a client, the scopes they chose and the
-- resource (RFC 8707) the tokens are for. Its refresh tokens are one rotating family; revoking the
-- grant ends them all, and every access token of it at its next use.
create table mcp_oauth.grants (
  id             core.object_id primary key default core.new_object_id(),
  user_id        core.object_id not null references core.users (id) on delete cascade,
  client_id      text not null check (char_length(client_id) between 1 and 2048),
  client_name    text not null check (char_length(client_name) between 1 and 200),
  redirect_uri   text not null check (char_length(redirect_uri) <= 2048),
  scopes         text[] not null check (cardinality(scopes) between 1 and 50),
  resource       text not null check (char_length(resource) <= 2048),
  created_at     timestamptz not null default now(),
  last_used_at   timestamptz,
  revoked_at     timestamptz,
  revoked_reason text check (revoked_reason in ('user', 'client', 'refresh_token_reuse', 'authorization_code_reuse')),
  check ((revoked_at is null) = (revoked_reason is null))
);
create index grants_user_id_idx on mcp_oauth.grants (user_id, created_at desc);
alter table mcp_oauth.grants enable row level security;

create policy grants_select_owner on mcp_oauth.grants
  for select to authenticated
  using (user_id = (select core.current_user_id()));
grant select (id, client_id, client_name, redirect_uri, scopes, resource, created_at, last_used_at, revoked_at, revoked_reason)
  on mcp_oauth.grants to authenticated;

create table mcp_oauth.authorization_codes (
  code_hash      bytea primary key check (octet_length(code_hash) = 32),
  grant_id       core.object_id not null references mcp_oauth.grants (id) on delete cascade,
  code_challenge text not null check (code_challenge ~ '^[A-Za-z0-9_-]{43}$'),
  expires_at     timestamptz not null,
  consumed_at    timestamptz
);
alter table mcp_oauth.authorization_codes enable row level security;

create table mcp_oauth.refresh_tokens (
  token_hash bytea primary key check (octet_length(token_hash) = 32),
  grant_id   core.object_id not null references mcp_oauth.grants (id) on delete cascade,
  expires_at timestamptz not null,
  -- Set when the token is exchanged: any later use of it is a reuse.
  rotated_at timestamptz,
  created_at timestamptz not null default now()
);
create index refresh_tokens_grant_id_idx on mcp_oauth.refresh_tokens (grant_id);
alter table mcp_oauth.refresh_tokens enable row level security;

-- Access tokens are JWTs checked by signature; one revoked on its own (RFC 7009) is listed here
-- until it would have expired anyway.
create table mcp_oauth.revoked_access_tokens (
  jti        uuid primary key,
  grant_id   core.object_id not null references mcp_oauth.grants (id) on delete cascade,
  expires_at timestamptz not null
);
alter table mcp_oauth.revoked_access_tokens enable row level security;

-- Rate limits are core.take_rate_limit's (fixed windows in core.rate_limit_windows, PT429 with
-- retryAfterSeconds), its action naming our own bucket: an address, an IP, a grant. The gateway
-- calls these functions without a user's claims, so every bucket's user part is 'anonymous'.

-- ============================================================================================
-- Sign-in by e-mail code
-- ============================================================================================
-- A new code for an address: counted per address and per IP (each p_limit per p_window_seconds);
-- the address's earlier live codes stop working, so at most one code per address can be guessed at.
create function mcp_oauth.issue_sign_in_code(p_email text, p_ip text, p_code_hash bytea, p_ttl_seconds integer,
    p_per_address integer, p_per_ip integer, p_window_seconds integer)
  returns core.object_id
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_email text := lower(btrim(p_email));
    v_id core.object_id;
  begin
    perform core.take_rate_limit('mcp_sign_in_code:address:' || v_email, p_per_address, p_window_seconds);
    perform core.take_rate_limit('mcp_sign_in_code:ip:' || coalesce(p_ip, 'unknown'), p_per_ip, p_window_seconds);
    update mcp_oauth.sign_in_codes set expires_at = least(expires_at, now())
      where lower(email) = v_email and consumed_at is null and expires_at > now();
    insert into mcp_oauth.sign_in_codes (email, code_hash, expires_at)
      values (v_email, p_code_hash, now() + make_interval(secs => p_ttl_seconds))
      returning id into v_id;
    return v_id;
  end
  $$;

-- Checks a code. Every try counts (under the code row's lock, so concurrent guesses count too);
-- after p_max_attempts the code is dead whatever is sent. On success the code is spent, the user
-- with that e-mail is found or created, and a browser session of p_session_ttl_seconds starts.
-- error: null, 'wrong_code', 'code_expired' (expired, spent, out of attempts or unknown).
create function mcp_oauth.verify_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text,
    p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_session_hash bytea, p_session_ttl_seconds integer,
    out error text, out user_id core.object_id)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_code record;
  begin
    perform core.take_rate_limit('mcp_sign_in_verify:ip:' || coalesce(p_ip, 'unknown'), p_per_ip, p_window_seconds);
    if p_id !~ '^[0-9a-f]{24}$' then
      error := 'code_expired';
      return;
    end if;
    select * into v_code from mcp_oauth.sign_in_codes c
      where c.id = p_id::core.object_id and lower(c.email) = lower(btrim(p_email))
      for update;
    if not found or v_code.consumed_at is not null or v_code.expires_at <= now() or v_code.attempts >= p_max_attempts then
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
    insert into mcp_oauth.browser_sessions (token_hash, user_id, expires_at)
      values (p_session_hash, user_id, now() + make_interval(secs => p_session_ttl_seconds));
  end
  $$;

-- The user (and e-mail) of a live browser session; no row when there is none.
create function mcp_oauth.browser_session_user(p_session_hash bytea) returns table (user_id core.object_id, email text)
  language sql stable security definer
  set search_path = ''
  as $$
    select s.user_id, u.email from mcp_oauth.browser_sessions s join core.users u on u.id = s.user_id
      where s.token_hash = p_session_hash and s.expires_at > now()
  $$;

create function mcp_oauth.end_browser_session(p_session_hash bytea) returns void
  language sql volatile security definer
  set search_path = ''
  as $$ delete from mcp_oauth.browser_sessions where token_hash = p_session_hash $$;

-- ============================================================================================
-- Clients
-- ============================================================================================
create function mcp_oauth.client(p_client_id text)
  returns table (kind text, client_name text, client_uri text, redirect_uris text[], expires_at timestamptz)
  language sql stable security definer
  set search_path = ''
  as $$
    select c.kind, c.client_name, c.client_uri, c.redirect_uris, c.expires_at from mcp_oauth.clients c where c.client_id = p_client_id
  $$;

-- Dynamic Client Registration (RFC 7591), rate-limited per IP; the gateway makes the client id.
create function mcp_oauth.register_client(p_client_id text, p_client_name text, p_client_uri text, p_redirect_uris text[],
    p_ip text, p_per_ip integer, p_window_seconds integer)
  returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    perform core.take_rate_limit('mcp_register:ip:' || coalesce(p_ip, 'unknown'), p_per_ip, p_window_seconds);
    insert into mcp_oauth.clients (client_id, kind, client_name, client_uri, redirect_uris)
      values (p_client_id, 'registered', p_client_name, p_client_uri, p_redirect_uris);
  end
  $$;

-- A fetched Client ID Metadata Document, cached until p_expires_at.
create function mcp_oauth.cache_metadata_document(p_client_id text, p_client_name text, p_client_uri text,
    p_redirect_uris text[], p_expires_at timestamptz)
  returns void
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into mcp_oauth.clients as c (client_id, kind, client_name, client_uri, redirect_uris, expires_at)
      values (p_client_id, 'metadata_document', p_client_name, p_client_uri, p_redirect_uris, p_expires_at)
      on conflict (client_id) do update
        set client_name = excluded.client_name, client_uri = excluded.client_uri, redirect_uris = excluded.redirect_uris,
            expires_at = excluded.expires_at, updated_at = now()
        where c.kind = 'metadata_document'
  $$;

-- ============================================================================================
-- Approval, codes, refresh tokens
-- ============================================================================================
-- A code or refresh token used again: its grant is revoked (unless it already was), ending every
-- token of it. The caller returns an error instead of raising, so the revocation commits. Not
-- granted to anyone: only the two token functions below call it.
create function mcp_oauth.revoke_for_reuse(p_grant_id core.object_id, p_reason text) returns void
  language sql volatile
  set search_path = ''
  as $$
    update mcp_oauth.grants g set revoked_at = now(), revoked_reason = p_reason
      where g.id = p_grant_id and g.revoked_at is null
  $$;

-- The signed-in person approves a client: a grant and its authorization code (p_code_ttl_seconds).
create function mcp_oauth.approve(p_session_hash bytea, p_client_id text, p_client_name text, p_redirect_uri text,
    p_scopes text[], p_resource text, p_code_hash bytea, p_code_challenge text, p_code_ttl_seconds integer)
  returns core.object_id
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- The token endpoint's authorization_code grant. The code row is locked, so of two concurrent
-- redemptions one wins and the other is a reuse; a reused code revokes its grant (RFC 6749 4.1.2),
-- which kills the tokens the first redemption got. p_challenge is S256(code_verifier), computed by
-- the gateway. error: null, 'invalid_grant' (unknown, expired, reused, other client or redirect
-- URI, wrong verifier), 'invalid_target' (another resource).
create function mcp_oauth.redeem_authorization_code(p_code_hash bytea, p_client_id text, p_redirect_uri text,
    p_challenge text, p_resource text, p_refresh_hash bytea, p_refresh_ttl_seconds integer,
    out error text, out grant_id core.object_id, out user_id core.object_id, out scopes text[], out resource text)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- The token endpoint's refresh_token grant: the token is exchanged for a new one (rotation). Its row
-- is locked first, so of two concurrent uses exactly one rotates and the other, waiting on the lock,
-- then finds it rotated: a reuse, which revokes the whole grant (the thief's and the owner's tokens
-- alike; the person signs in again). An optional p_scopes narrows the grant's scopes for this
-- access token. error: null, 'invalid_grant', 'invalid_target', 'invalid_scope'.
create function mcp_oauth.rotate_refresh_token(p_token_hash bytea, p_client_id text, p_resource text, p_scopes text[],
    p_new_hash bytea, p_refresh_ttl_seconds integer,
    out error text, out grant_id core.object_id, out user_id core.object_id, out scopes text[], out resource text)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- Revocation endpoint (RFC 7009) for a refresh token: ends its grant. Another client's token, or an
-- unknown one, changes nothing (the endpoint answers 200 either way).
create function mcp_oauth.revoke_refresh_token(p_token_hash bytea, p_client_id text) returns boolean
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    update mcp_oauth.grants g set revoked_at = now(), revoked_reason = 'client'
      from mcp_oauth.refresh_tokens t
      where t.token_hash = p_token_hash and g.id = t.grant_id and g.client_id = p_client_id and g.revoked_at is null;
    return found;
  end
  $$;

-- Revocation endpoint for an access token (verified by the gateway): listed until it expires.
create function mcp_oauth.revoke_access_token(p_jti uuid, p_grant_id text, p_client_id text, p_expires_at timestamptz) returns void
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into mcp_oauth.revoked_access_tokens (jti, grant_id, expires_at)
      select p_jti, g.id, p_expires_at from mcp_oauth.grants g where g.id = p_grant_id and g.client_id = p_client_id
      on conflict (jti) do nothing
  $$;

-- ============================================================================================
-- Every /mcp request: is the token's grant alive, and within its rate limit?
-- ============================================================================================
-- One statement on two primary keys; the signature, audience and expiry were checked by the gateway.
-- The rate limit counts per grant (all access tokens a client refreshes into share it).
create function mcp_oauth.access_allowed(p_grant_id text, p_jti uuid, p_per_minute integer) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_grant record;
  begin
    select g.revoked_at, g.last_used_at into v_grant from mcp_oauth.grants g where g.id = p_grant_id;
    if not found or v_grant.revoked_at is not null
       or exists (select from mcp_oauth.revoked_access_tokens r where r.jti = p_jti) then
      raise exception 'the access token has been revoked' using errcode = 'PT401', hint = 'invalid_token';
    end if;
    perform core.take_rate_limit('mcp_grant:' || p_grant_id, p_per_minute, 60);
    if v_grant.last_used_at is null or v_grant.last_used_at < now() - interval '1 minute' then
      update mcp_oauth.grants g set last_used_at = now() where g.id = p_grant_id;
    end if;
  end
  $$;

-- ============================================================================================
-- A person's own grants (REST with their API key, or the grants page): read under RLS, revoke here
-- ============================================================================================
create function mcp_oauth.revoke_my_grant(p_grant_id text) returns boolean
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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
  $$;

-- ============================================================================================
-- Purge: codes, sessions, tokens and cached client documents after they expired
-- ============================================================================================
-- (The rate limits above are counted in core.rate_limit_windows, which core's own job purges.)
-- Margins after expiry:
--   * sign-in codes, browser sessions, authorization codes: every check refuses them once
--     expires_at has passed (an expired authorization code is refused before its reuse is looked
--     at, so a consumed code needs no row after expiry either); a day's margin keeps them for an
--     incident's first look and leaves clock skew and in-flight requests far behind.
--   * revoked access tokens: listed so access_allowed refuses the token until its `exp`, which the
--     gateway checks first (jose, no clock tolerance); after that the row protects nothing. A day.
--   * cached Client ID Metadata Documents (kind metadata_document): once expires_at passes the
--     gateway fetches the document again and cache_metadata_document upserts it, so an expired row
--     is never used. A day. Registered clients (expires_at null) are never purged.
--   * refresh tokens: see below.
create function mcp_oauth.purge_expired_rows() returns integer
  language sql volatile security definer
  set search_path = ''
  as $$
    with
      codes as (delete from mcp_oauth.sign_in_codes c where c.expires_at < now() - interval '1 day' returning 1),
      sessions as (delete from mcp_oauth.browser_sessions s where s.expires_at < now() - interval '1 day' returning 1),
      authorizations as (delete from mcp_oauth.authorization_codes a where a.expires_at < now() - interval '1 day' returning 1),
      revocations as (delete from mcp_oauth.revoked_access_tokens r where r.expires_at < now() - interval '1 day' returning 1),
      documents as (delete from mcp_oauth.clients c
                    where c.kind = 'metadata_document' and c.expires_at < now() - interval '1 day' returning 1),
      -- Reuse detection (rotate_refresh_token) finds a rotated token's row and revokes its grant,
      -- whatever that token's own expires_at says: a stolen old token replayed while the grant's
      -- newest token still works must still end the grant (the thief's tokens and the owner's). So a
      -- rotated token is kept as long as any token of its grant is, and no row of a grant goes while
      -- the grant's newest token (the only one that can still rotate) has not expired. After that the
      -- grant can never issue a token again (rotation refuses an expired token; an authorization code
      -- makes a new grant), so revoking it changes nothing a client could use: the rows go 30 days
      -- later, the margin in which a replayed old token still marks the grant refresh_token_reuse for
      -- the person to see on the grants page. Only the rotation of a live token adds to a family
      -- (redemption makes the first token of a new grant), so nothing can join a family this deletes.
      refresh as (delete from mcp_oauth.refresh_tokens t
                  where t.expires_at < now() - interval '30 days'
                    and not exists (select from mcp_oauth.refresh_tokens n
                                    where n.grant_id = t.grant_id and n.expires_at >= now() - interval '30 days')
                  returning 1)
    select ((select count(*) from codes) + (select count(*) from sessions) + (select count(*) from authorizations)
          + (select count(*) from revocations) + (select count(*) from documents) + (select count(*) from refresh))::integer
  $$;

-- ============================================================================================
-- Privileges
-- ============================================================================================
revoke execute on all functions in schema mcp_oauth from public;
grant execute on function
  mcp_oauth.issue_sign_in_code(text, text, bytea, integer, integer, integer, integer),
  mcp_oauth.verify_sign_in_code(text, text, bytea, text, integer, integer, integer, bytea, integer),
  mcp_oauth.browser_session_user(bytea),
  mcp_oauth.end_browser_session(bytea),
  mcp_oauth.client(text),
  mcp_oauth.register_client(text, text, text, text[], text, integer, integer),
  mcp_oauth.cache_metadata_document(text, text, text, text[], timestamptz),
  mcp_oauth.approve(bytea, text, text, text, text[], text, bytea, text, integer),
  mcp_oauth.redeem_authorization_code(bytea, text, text, text, text, bytea, integer),
  mcp_oauth.rotate_refresh_token(bytea, text, text, text[], bytea, integer),
  mcp_oauth.revoke_refresh_token(bytea, text),
  mcp_oauth.revoke_access_token(uuid, text, text, timestamptz),
  mcp_oauth.access_allowed(text, uuid, integer)
  to api_gateway;
grant execute on function mcp_oauth.revoke_my_grant(text) to authenticated;
grant execute on function mcp_oauth.purge_expired_rows() to service_jobs;

-- Hourly: the rows have a day's margin, so none lingers much past it.
select core.schedule_job('purge_expired_mcp_oauth_rows', '23 * * * *', 'mcp_oauth.purge_expired_rows');
