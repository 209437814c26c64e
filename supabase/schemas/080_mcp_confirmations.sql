-- MCP confirmation links: a public-MCP tool that would link a wallet, change sponsorship settings
-- or move money does not do it. It creates a confirmation: a single-use, expiring link bound to the
-- person, the OAuth client (and its grant) and the exact action. The person opens the link in a
-- browser, signed in with the sign-in pages' session, sees the action and approves it with their
-- wallet, or refuses; the client polls the status.
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
--
-- An approval claims its link for a lease: begin_approval stamps claimed_at, and a claim older than
-- mcp_confirmations.approval_lease() (3 minutes) reads as failed with the outcome
-- { error: { code: 'approval_interrupted', message } }, decided when the lease ran out, in every read
-- (the MCP status poll, the page) and in the refusals of begin_approval and refuse. Only a process
-- that died (or stalled) between begin_approval and finish_approval leaves a claim that old: the
-- longest approval, a deposit, waits about 15 s for its confirmations, and 3 minutes is also above
-- the 150 s after which Supabase's front answers 504, so an approval whose answer can still reach
-- the page never outlives its lease. Decided at read time, no job: the status is right the moment
-- the lease runs out, also where pg_cron is missing.
--
-- A late finish_approval (the lease already ran out) does not write: it returns false and the link
-- stays failed (approval_interrupted). A lease is the claim's fence: once it ran out the link has
-- been shown as failed, a final state the assistant may already have acted on (asked again, told the
-- person), and a final state never changes. The late result is not lost: the same request answers it
-- to the page and writes it in the decision's audit record.
--
-- The person's decision on the link's page is audited in mcp.tool_calls beside the tool calls,
-- readable at GET /api/v3/me/mcp-audit: one record per approval that claimed the link (outcome ok =
-- approved, error = failed, with the REST route's error code and status) and per refusal. Such a
-- record has endpoint 'confirmation' (never an MCP endpoint: no assistant made it), tool
-- 'approve_<kind>' or 'refuse_<kind>' (the link's kind, e.g. approve_wallet_link) and names its link
-- in confirmation_id. It is written by mcp_confirmations.record_decision, which takes the person, the
-- OAuth client and the grant from the link itself (the person's own, opened with its token, already
-- decided), so a decision record always belongs to a real decision. The gateway writes the record
-- after the decision is stored, in a statement of its own, before the page gets its answer: a record
-- that cannot be written is logged and the decision stands, as a tool call's answer does (in one
-- transaction, a failing record would undo a stored outcome whose effects REST had already
-- committed).
--
-- Links go 30 days after they were decided or expired: create_confirmation deletes the caller's, a
-- pg_cron job (purge_finished, as service_jobs) everyone's.

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA mcp_confirmations;

GRANT USAGE ON SCHEMA mcp_confirmations TO authenticated;
GRANT USAGE ON SCHEMA mcp_confirmations TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema mcp_confirmations revoke all on tables from public;
alter default privileges in schema mcp_confirmations revoke all on functions from public;


-- How long an approval may hold its claim (see the header).
CREATE FUNCTION mcp_confirmations.approval_lease() RETURNS interval
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $$ select interval '3 minutes' $$;

REVOKE ALL ON FUNCTION mcp_confirmations.approval_lease() FROM PUBLIC;


-- Claims the link for one approval: pending, not expired, the caller's, its grant still live; the
-- claim stamps the lease's start. Raises PT409 confirmation_not_pending (used, refused, expired or
-- failed, with the status seen), PT409 grant_revoked, or PT404 (no such link for this token and
-- person); the winner gets the row and must finish it within its lease.
CREATE FUNCTION mcp_confirmations.begin_approval(p_id text, p_token_hash bytea) RETURNS TABLE(id core.object_id, kind text, action jsonb)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_user core.object_id := core.current_user_id();
    v_row record;
  begin
    update mcp_confirmations.confirmations c set status = 'approving', claimed_at = now()
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = v_user
        and c.status = 'pending' and c.expires_at > now()
        and exists (select from mcp_oauth.grants g where g.id = c.grant_id and g.revoked_at is null)
      returning c.id, c.kind, c.action into v_row;
    if found then
      return query select v_row.id::core.object_id, v_row.kind::text, v_row.action::jsonb;
      return;
    end if;
    select s.status, c.grant_id into v_row
      from mcp_confirmations.confirmations c cross join lateral mcp_confirmations.effective_state(c) s
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = v_user;
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

REVOKE ALL ON FUNCTION mcp_confirmations.begin_approval(p_id text, p_token_hash bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_confirmations.begin_approval(p_id text, p_token_hash bytea) TO authenticated;


-- Polling (the public MCP tool get_confirmation_status): the caller's own links, made by the same
-- OAuth client (the access token's client_id claim).
CREATE FUNCTION mcp_confirmations.confirmation_status(p_id text) RETURNS TABLE(id core.object_id, kind text, action jsonb, action_hash bytea, status text, outcome jsonb, expires_at timestamp with time zone, created_at timestamp with time zone, decided_at timestamp with time zone)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select c.id, c.kind, c.action, c.action_hash, s.status, s.outcome, c.expires_at, c.created_at, s.decided_at
    from mcp_confirmations.confirmations c cross join lateral mcp_confirmations.effective_state(c) s
    where c.id = p_id and c.user_id = core.current_user_id()
      and c.client_id = nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'client_id'
  $$;

REVOKE ALL ON FUNCTION mcp_confirmations.confirmation_status(p_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_confirmations.confirmation_status(p_id text) TO authenticated;


-- Creation (the public MCP tools, as the OAuth principal)
-- The grant must be the caller's, for this client, and live. At most 20 live links per person.
CREATE FUNCTION mcp_confirmations.create_confirmation(p_client_id text, p_grant_id text, p_kind text, p_action jsonb, p_action_hash bytea, p_binding bytea, p_token_hash bytea, p_expires_at timestamp with time zone) RETURNS TABLE(id core.object_id, created_at timestamp with time zone, expires_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION mcp_confirmations.create_confirmation(p_client_id text, p_grant_id text, p_kind text, p_action jsonb, p_action_hash bytea, p_binding bytea, p_token_hash bytea, p_expires_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_confirmations.create_confirmation(p_client_id text, p_grant_id text, p_kind text, p_action jsonb, p_action_hash bytea, p_binding bytea, p_token_hash bytea, p_expires_at timestamp with time zone) TO authenticated;


CREATE TABLE mcp_confirmations.confirmations (
    id core.object_id DEFAULT core.new_object_id() NOT NULL,
    user_id core.object_id NOT NULL,
    client_id text NOT NULL,
    grant_id core.object_id NOT NULL,
    kind text NOT NULL,
    action jsonb NOT NULL,
    action_hash bytea NOT NULL,
    binding bytea NOT NULL,
    token_hash bytea NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    outcome jsonb,
    expires_at timestamp with time zone NOT NULL,
    decided_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    claimed_at timestamp with time zone,
    CONSTRAINT confirmations_action_check CHECK (((jsonb_typeof(action) = 'object'::text) AND (octet_length((action)::text) <= 16384))),
    CONSTRAINT confirmations_action_hash_check CHECK ((octet_length(action_hash) = 32)),
    CONSTRAINT confirmations_approving_is_claimed CHECK (((status <> 'approving'::text) OR (claimed_at IS NOT NULL))),
    CONSTRAINT confirmations_binding_check CHECK ((octet_length(binding) = 32)),
    CONSTRAINT confirmations_check CHECK ((expires_at > created_at)),
    CONSTRAINT confirmations_client_id_check CHECK (((char_length(client_id) >= 1) AND (char_length(client_id) <= 2048))),
    CONSTRAINT confirmations_kind_check CHECK ((kind = ANY (ARRAY['wallet_link'::text, 'sponsorship_settings'::text, 'sponsored_deposit'::text]))),
    CONSTRAINT confirmations_outcome_check CHECK (((outcome IS NULL) OR (octet_length((outcome)::text) <= 16384))),
    CONSTRAINT confirmations_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approving'::text, 'approved'::text, 'refused'::text, 'failed'::text]))),
    CONSTRAINT confirmations_token_hash_check CHECK ((octet_length(token_hash) = 32)),
    CONSTRAINT confirmations_pkey PRIMARY KEY (id),
    CONSTRAINT confirmations_token_hash_key UNIQUE (token_hash),
    CONSTRAINT confirmations_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES mcp_oauth.grants(id) ON DELETE CASCADE,
    CONSTRAINT confirmations_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index confirmations_grant_id_idx on mcp_confirmations.confirmations (grant_id);

create index confirmations_user_idx on mcp_confirmations.confirmations (user_id, created_at);

ALTER TABLE mcp_confirmations.confirmations ENABLE ROW LEVEL SECURITY;

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON mcp_confirmations.confirmations AS RESTRICTIVE USING (false) WITH CHECK (false);


-- What a caller sees of a link: a pending row past its expiry is expired; an approving row whose
-- claim outlived its lease is failed (approval_interrupted: the action may have run), decided when
-- the lease ran out. An approving row within its lease stays approving, even past the link's expiry
-- (it was claimed before; its approval is still running).
CREATE FUNCTION mcp_confirmations.effective_state(p_row mcp_confirmations.confirmations, OUT status text, OUT outcome jsonb, OUT decided_at timestamp with time zone) RETURNS record
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
    select
      case when l.interrupted then 'failed'
           when p_row.status = 'pending' and p_row.expires_at <= now() then 'expired'
           else p_row.status end,
      case when l.interrupted then jsonb_build_object('error', jsonb_build_object('code', 'approval_interrupted', 'message',
             'Your approval was interrupted before its result was recorded. ' || case p_row.kind
               when 'sponsored_deposit' then 'The deposit transaction may have been sent: if your wallet shows it, record it with '
                 || 'POST /api/v3/sponsorship/deposits/record (the sponsor wallet, chain and transaction hash); if not, ask your '
                 || 'assistant for a new link.'
               when 'wallet_link' then 'The wallet may have been linked: check your linked wallets, and ask your assistant for '
                 || 'a new link if it is not there.'
               else 'The settings may have been saved: check the sponsor wallet''s settings, and ask your assistant for a new '
                 || 'link if they did not change.' end))
           else p_row.outcome end,
      case when l.interrupted then p_row.claimed_at + mcp_confirmations.approval_lease() else p_row.decided_at end
    from (select p_row.status = 'approving' and p_row.claimed_at + mcp_confirmations.approval_lease() <= now() as interrupted) l
  $$;

REVOKE ALL ON FUNCTION mcp_confirmations.effective_state(p_row mcp_confirmations.confirmations, OUT status text, OUT outcome jsonb, OUT decided_at timestamp with time zone) FROM PUBLIC;


-- Ends a claimed approval with the action's outcome, within the claim's lease only: false when the
-- lease ran out (the link reads failed, approval_interrupted, and stays so) or there is no claim.
CREATE FUNCTION mcp_confirmations.finish_approval(p_id text, p_token_hash bytea, p_status text, p_outcome jsonb) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  begin
    if p_status not in ('approved', 'failed') then
      raise exception 'an approval ends approved or failed' using errcode = 'PT400', hint = 'validation_failed';
    end if;
    update mcp_confirmations.confirmations c set status = p_status, outcome = p_outcome, decided_at = now()
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id() and c.status = 'approving'
        and c.claimed_at + mcp_confirmations.approval_lease() > now();
    return found;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_confirmations.finish_approval(p_id text, p_token_hash bytea, p_status text, p_outcome jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_confirmations.finish_approval(p_id text, p_token_hash bytea, p_status text, p_outcome jsonb) TO authenticated;


-- The link's page (the signed-in person, holding the token)
-- The row a token opens. `mine` is false when it belongs to another person: then nothing else is
-- returned (the page says so; it never shows another person's action).
CREATE FUNCTION mcp_confirmations.open_confirmation(p_id text, p_token_hash bytea) RETURNS TABLE(mine boolean, id core.object_id, user_id core.object_id, client_id text, grant_id core.object_id, client_name text, kind text, action jsonb, action_hash bytea, binding bytea, status text, outcome jsonb, expires_at timestamp with time zone, created_at timestamp with time zone, decided_at timestamp with time zone)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO ''
    AS $$
    select c.user_id = core.current_user_id(),
      c.id, c.user_id, c.client_id, c.grant_id, g.client_name, c.kind, c.action, c.action_hash, c.binding,
      s.status, s.outcome, c.expires_at, c.created_at, s.decided_at
    from mcp_confirmations.confirmations c join mcp_oauth.grants g on g.id = c.grant_id
      cross join lateral mcp_confirmations.effective_state(c) s
    where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id()
    union all
    select false, null, null, null, null, null, null, null, null, null, null, null, null, null, null
    from mcp_confirmations.confirmations c
    where c.id = p_id and c.token_hash = p_token_hash and c.user_id is distinct from core.current_user_id()
  $$;

REVOKE ALL ON FUNCTION mcp_confirmations.open_confirmation(p_id text, p_token_hash bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_confirmations.open_confirmation(p_id text, p_token_hash bytea) TO authenticated;


-- Purge: links 30 days after they were decided or expired (a pg_cron job, as service_jobs)
-- create_confirmation already deletes the calling person's links decided or expired more than 30
-- days ago; this job does the same for people who stopped creating links, with the same cutoff, so
-- how long a link answers get_confirmation_status (an assistant polling after a long pause, a
-- person reopening the link) does not depend on whether its owner made another one. A link that is
-- still pending or being approved has decided_at null and goes 30 days after its expiry (at most
-- an hour after creation), long after any approval could still be running.
-- Security definer: service_jobs holds no privilege on the table.
CREATE FUNCTION mcp_confirmations.purge_finished() RETURNS integer
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    with deleted as (delete from mcp_confirmations.confirmations c
                     where coalesce(c.decided_at, c.expires_at) < now() - interval '30 days' returning 1)
    select count(*)::integer from deleted
  $$;

REVOKE ALL ON FUNCTION mcp_confirmations.purge_finished() FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_confirmations.purge_finished() TO service_jobs;


-- The audit of decisions (mcp.tool_calls, endpoint 'confirmation')
-- Appends the record of the calling person's decision on their link `p_id` (opened with its token):
-- p_decision 'approve' once the link was claimed (approving, approved or failed), 'refuse' once it
-- was refused. The arguments come redacted from the gateway; the rest is the link's. Returns the
-- record's id; PT404 when the caller has no such link decided that way.
CREATE FUNCTION mcp_confirmations.record_decision(p_id text, p_token_hash bytea, p_decision text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text, p_scopes text[]) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_id bigint;
  begin
    insert into mcp.tool_calls (user_id, endpoint, confirmation_id, client_id, grant_id, scopes, tool, arguments, outcome,
                                error_code, http_status, duration_ms, request_id)
      select c.user_id, 'confirmation', c.id, c.client_id, c.grant_id, coalesce(p_scopes, '{}'), p_decision || '_' || c.kind,
             p_arguments, p_outcome, p_error_code, p_http_status, greatest(p_duration_ms, 0), p_request_id
      from mcp_confirmations.confirmations c
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id()
        and case p_decision when 'approve' then c.status in ('approving', 'approved', 'failed')
                            when 'refuse' then c.status = 'refused' end
      returning id into v_id;
    if v_id is null then
      raise exception 'no such decided confirmation link' using errcode = 'PT404', hint = 'not_found';
    end if;
    return v_id;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_confirmations.record_decision(p_id text, p_token_hash bytea, p_decision text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text, p_scopes text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_confirmations.record_decision(p_id text, p_token_hash bytea, p_decision text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text, p_scopes text[]) TO authenticated;


-- The person refuses: pending and not expired only (an approved link stays approved).
CREATE FUNCTION mcp_confirmations.refuse(p_id text, p_token_hash bytea) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_status text;
  begin
    update mcp_confirmations.confirmations c set status = 'refused', decided_at = now(), outcome = '{"refused": true}'
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id()
        and c.status = 'pending' and c.expires_at > now();
    if found then
      return 'refused';
    end if;
    select s.status into v_status
      from mcp_confirmations.confirmations c cross join lateral mcp_confirmations.effective_state(c) s
      where c.id = p_id and c.token_hash = p_token_hash and c.user_id = core.current_user_id();
    if not found then
      raise exception 'no such confirmation link' using errcode = 'PT404', hint = 'not_found';
    end if;
    raise exception 'this confirmation link is %', v_status using errcode = 'PT409', hint = 'confirmation_not_pending',
      detail = json_build_object('status', v_status)::text;
  end
  $$;

REVOKE ALL ON FUNCTION mcp_confirmations.refuse(p_id text, p_token_hash bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp_confirmations.refuse(p_id text, p_token_hash bytea) TO authenticated;


-- Background jobs, run by pg_cron as service_jobs (core.schedule_job: scheduling a job of the same
-- name again replaces it).
select core.schedule_job('purge_finished_mcp_confirmations', '37 3 * * *', 'mcp_confirmations.purge_finished');
