-- MCP confirmation links (issue 10, item 4): a public-MCP tool that would link a wallet, change
-- sponsorship settings or move money does not do it. It creates a confirmation: a single-use,
-- expiring link bound to the person, the OAuth client (and its grant) and the exact action. The
-- person opens the link in a browser, signed in with the sign-in pages' session, sees the action and
-- approves it with their wallet, or refuses; the client polls the status.
--
-- Stored as hashes computed by the gateway:
--   token_hash   SHA-256 of the link's 256-bit random token (the token itself is only in the URL's
--                fragment, which browsers never send to a server);
--   action_hash  SHA-256 of the canonical JSON (keys sorted) of { kind, action };
--   binding      HMAC-SHA256 keyed with MCP_TOKEN_SECRET over user, client, grant, kind,
--                action_hash, token_hash and expiry: a row edited behind the service's back (another
--                action, another user, a later expiry) no longer matches and is refused.
--
-- Deny by default: RLS on, no policy, no table privilege. Everything goes through the SECURITY
-- DEFINER functions below, which the role `authenticated` may call and which act only for
-- core.current_user_id() (the OAuth principal's user, or the signed-in person on the page).
-- Single use is decided by a conditional update (pending -> approving) under the row's lock: of two
-- concurrent approvals the second waits, re-reads the row, finds it no longer pending and is refused.

create schema mcp_confirmations;
revoke all on schema mcp_confirmations from public;
grant usage on schema mcp_confirmations to authenticated;
alter default privileges in schema mcp_confirmations revoke all on tables from public;
alter default privileges in schema mcp_confirmations revoke all on functions from public;

create table mcp_confirmations.confirmations (
  id          core.object_id primary key default core.new_object_id(),
  user_id     core.object_id not null references core.users (id) on delete cascade,
  client_id   text not null check (char_length(client_id) between 1 and 2048),
  grant_id    core.object_id not null references mcp_oauth.grants (id) on delete cascade,
  kind        text not null check (kind in ('wallet_link', 'sponsorship_settings', 'sponsored_deposit')),
  action      jsonb not null check (jsonb_typeof(action) = 'object' and octet_length(action::text) <= 16384),
  action_hash bytea not null check (octet_length(action_hash) = 32),
  binding     bytea not null check (octet_length(binding) = 32),
  token_hash  bytea not null unique check (octet_length(token_hash) = 32),
  -- pending -> approving (claimed by one approval) -> approved | failed; pending -> refused.
  -- Expiry is read from expires_at (a pending row past it reads as expired), never stored.
  status      text not null default 'pending' check (status in ('pending', 'approving', 'approved', 'refused', 'failed')),
  outcome     jsonb check (outcome is null or octet_length(outcome::text) <= 16384),
  expires_at  timestamptz not null,
  decided_at  timestamptz,
  created_at  timestamptz not null default now(),
  check (expires_at > created_at)
);
create index confirmations_user_idx on mcp_confirmations.confirmations (user_id, created_at);
alter table mcp_confirmations.confirmations enable row level security;

-- The status a caller sees: a pending (or abandoned approving) row past its expiry is expired.
create function mcp_confirmations.effective_status(p_status text, p_expires_at timestamptz) returns text
  language sql stable
  set search_path = ''
  as $$ select case when p_status in ('pending', 'approving') and p_expires_at <= now() then 'expired' else p_status end $$;

-- ============================================================================================
-- Creation (the public MCP tools, as the OAuth principal)
-- ============================================================================================
-- The grant must be the caller's, for this client, and live. At most 20 live links per person.
create function mcp_confirmations.create_confirmation(p_client_id text, p_grant_id text, p_kind text, p_action jsonb,
    p_action_hash bytea, p_binding bytea, p_token_hash bytea, p_expires_at timestamptz)
  returns table (id core.object_id, created_at timestamptz, expires_at timestamptz)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
  begin
    if v_user is null then
      raise exception 'no authenticated user' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    if p_expires_at <= now() or p_expires_at > now() + interval '1 hour' then
      raise exception 'a confirmation expires within the hour' using errcode = 'PT400', hint = 'validation_failed';
    end if;
    if not exists (select from mcp_oauth.grants g where g.id = p_grant_id and g.user_id = v_user
                   and g.client_id = p_client_id and g.revoked_at is null) then
      raise exception 'the grant is not live' using errcode = 'PT401', hint = 'invalid_token';
    end if;
    -- One person's links are counted under their user row's lock, so concurrent requests cannot pass the cap.
    perform from core.users u where u.id = v_user for update;
    -- No job needed: each new link deletes the person's links decided or expired more than 30 days ago.
    delete from mcp_confirmations.confirmations c
      where c.user_id = v_user and coalesce(c.decided_at, c.expires_at) < now() - interval '30 days';
    if (select count(*) from mcp_confirmations.confirmations c
        where c.user_id = v_user and c.status = 'pending' and c.expires_at > now()) >= 20 then
      raise exception 'too many open confirmation links' using errcode = 'PT429', hint = 'rate_limited',
        detail = json_build_object('retryAfterSeconds', 60)::text;
    end if;
    return query
      insert into mcp_confirmations.confirmations as c (user_id, client_id, grant_id, kind, action, action_hash, binding, token_hash, expires_at)
      values (v_user, p_client_id, p_grant_id, p_kind, p_action, p_action_hash, p_binding, p_token_hash, p_expires_at)
      returning c.id, c.created_at, c.expires_at;
  end
  $$;

-- ============================================================================================
-- The link's page (the signed-in person, holding the token)
-- ============================================================================================
-- The row a token opens. `mine` is false when it belongs to another person: then nothing else is
-- returned (the page says so; it never shows another person's action).
create function mcp_confirmations.open_confirmation(p_id text, p_token_hash bytea)
  returns table (mine boolean, id core.object_id, user_id core.object_id, client_id text, grant_id core.object_id, client_name text,
    kind text, action jsonb, action_hash bytea, binding bytea, status text, outcome jsonb, expires_at timestamptz,
    created_at timestamptz, decided_at timestamptz)
  language sql stable security definer
  set search_path = ''
  as $$
    select c.user_id = core.current_user_id(),
      c.id, c.user_id, c.client_id, c.grant_id, g.client_name, c.kind, c.action, c.action_hash, c.binding,
      mcp_confirmations.effective_status(c.status, c.expires_at), c.outcome, c.expires_at, c.created_at, c.decided_at
    from mcp_confirmations.confirmations c join mcp_oauth.grants g on g.id = c.grant_id
    where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id()
    union all
    select false, null, null, null, null, null, null, null, null, null, null, null, null, null, null
    from mcp_confirmations.confirmations c
    where c.id = p_id and c.token_hash = p_token_hash and c.user_id is distinct from core.current_user_id()
  $$;

-- Claims the link for one approval: pending, not expired, the caller's, its grant still live.
-- Raises PT409 confirmation_not_pending (used, refused or expired) or PT404 (no such link for this
-- token and person); the winner gets the row and must finish it.
create function mcp_confirmations.begin_approval(p_id text, p_token_hash bytea)
  returns table (id core.object_id, kind text, action jsonb)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
    v_row record;
  begin
    update mcp_confirmations.confirmations c set status = 'approving'
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = v_user
        and c.status = 'pending' and c.expires_at > now()
        and exists (select from mcp_oauth.grants g where g.id = c.grant_id and g.revoked_at is null)
      returning c.id, c.kind, c.action into v_row;
    if found then
      return query select v_row.id::core.object_id, v_row.kind::text, v_row.action::jsonb;
      return;
    end if;
    select mcp_confirmations.effective_status(c.status, c.expires_at) as status, c.grant_id into v_row
      from mcp_confirmations.confirmations c where c.id = p_id and c.token_hash = p_token_hash and c.user_id = v_user;
    if not found then
      raise exception 'no such confirmation link' using errcode = 'PT404', hint = 'not_found';
    end if;
    if v_row.status = 'pending' then
      raise exception 'the assistant''s access has been revoked' using errcode = 'PT409', hint = 'grant_revoked';
    end if;
    raise exception 'this confirmation link is %', v_row.status using errcode = 'PT409', hint = 'confirmation_not_pending',
      detail = json_build_object('status', v_row.status)::text;
  end
  $$;

-- Ends a claimed approval with the action's outcome.
create function mcp_confirmations.finish_approval(p_id text, p_token_hash bytea, p_status text, p_outcome jsonb) returns boolean
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    if p_status not in ('approved', 'failed') then
      raise exception 'an approval ends approved or failed' using errcode = 'PT400', hint = 'validation_failed';
    end if;
    update mcp_confirmations.confirmations c set status = p_status, outcome = p_outcome, decided_at = now()
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id() and c.status = 'approving';
    return found;
  end
  $$;

-- The person refuses: pending and not expired only (an approved link stays approved).
create function mcp_confirmations.refuse(p_id text, p_token_hash bytea) returns text
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_status text;
  begin
    update mcp_confirmations.confirmations c set status = 'refused', decided_at = now(), outcome = '{"refused": true}'
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id()
        and c.status = 'pending' and c.expires_at > now();
    if found then
      return 'refused';
    end if;
    select mcp_confirmations.effective_status(c.status, c.expires_at) into v_status
      from mcp_confirmations.confirmations c where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id();
    if not found then
      raise exception 'no such confirmation link' using errcode = 'PT404', hint = 'not_found';
    end if;
    raise exception 'this confirmation link is %', v_status using errcode = 'PT409', hint = 'confirmation_not_pending',
      detail = json_build_object('status', v_status)::text;
  end
  $$;

-- ============================================================================================
-- Polling (the public MCP tool get_confirmation_status): the caller's own links, made by the same
-- OAuth client (the access token's client_id claim).
-- ============================================================================================
create function mcp_confirmations.confirmation_status(p_id text)
  returns table (id core.object_id, kind text, action jsonb, action_hash bytea, status text, outcome jsonb,
    expires_at timestamptz, created_at timestamptz, decided_at timestamptz)
  language sql stable security definer
  set search_path = ''
  as $$
    select c.id, c.kind, c.action, c.action_hash, mcp_confirmations.effective_status(c.status, c.expires_at), c.outcome,
      c.expires_at, c.created_at, c.decided_at
    from mcp_confirmations.confirmations c
    where c.id = p_id and c.user_id = core.current_user_id()
      and c.client_id = nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'client_id'
  $$;

revoke execute on all functions in schema mcp_confirmations from public;
grant execute on function
  mcp_confirmations.effective_status(text, timestamptz),
  mcp_confirmations.create_confirmation(text, text, text, jsonb, bytea, bytea, bytea, timestamptz),
  mcp_confirmations.open_confirmation(text, bytea),
  mcp_confirmations.begin_approval(text, bytea),
  mcp_confirmations.finish_approval(text, bytea, text, jsonb),
  mcp_confirmations.refuse(text, bytea),
  mcp_confirmations.confirmation_status(text)
  to authenticated;
