-- MCP confirmation links (issue 10, two leftovers of 20261123001200_mcp_confirmations.sql):
--
-- 1. The person's decision on the link's page is audited in mcp.tool_calls beside the tool calls,
--    readable at GET /api/v3/me/mcp-audit: one record per approval that claimed the link (outcome
--    ok = approved, error = failed, with the REST route's error code and status) and per refusal.
--    Such a record has endpoint 'confirmation' (never an MCP endpoint: no assistant made it), tool
--    'approve_<kind>' or 'refuse_<kind>' (the link's kind, e.g. approve_wallet_link) and names its
--    link in the new column confirmation_id. It is written by mcp_confirmations.record_decision,
--    which takes the person, the OAuth client and the grant from the link itself (the person's own,
--    opened with its token, already decided), so a decision record always belongs to a real decision.
--    confirmation_id has no foreign key: a link is deleted 30 days after its decision, its audit
--    record is kept as long as the tool calls are. The gateway writes the record after the decision
--    is stored, in a statement of its own, before the page gets its answer: a record that cannot be
--    written is logged and the decision stands, as a tool call's answer does (in one transaction, a
--    failing record would undo a stored outcome whose effects REST had already committed).
--
-- 2. An approval claims its link for a lease: begin_approval stamps claimed_at, and a claim older
--    than mcp_confirmations.approval_lease() (3 minutes) reads as failed with the outcome
--    { error: { code: 'approval_interrupted', message } }, decided when the lease ran out, in every
--    read (the MCP status poll, the page) and in the refusals of begin_approval and refuse. Only a
--    process that died (or stalled) between begin_approval and finish_approval leaves a claim that
--    old: the longest approval, a deposit, waits about 15 s for its confirmations, and 3 minutes is
--    also above the 150 s after which Supabase's front answers 504, so an approval whose answer can
--    still reach the page never outlives its lease. Decided at read time, no job: the status is
--    right the moment the lease runs out, also where pg_cron is missing.
--
--    A late finish_approval (the lease already ran out) does not write: it returns false and the
--    link stays failed (approval_interrupted). A lease is the claim's fence: once it ran out the
--    link has been shown as failed, a final state the assistant may already have acted on (asked
--    again, told the person), and a final state never changes. The late result is not lost: the
--    same request answers it to the page and writes it in the decision's audit record.

-- ============================================================================================
-- The audit of decisions
-- ============================================================================================
alter table mcp.tool_calls
  drop constraint tool_calls_endpoint_check,
  add constraint tool_calls_endpoint_check check (endpoint in ('backend', 'public', 'confirmation')),
  -- confirmation: the link decided (its id; the link itself is deleted 30 days after its decision)
  add column confirmation_id core.object_id,
  add constraint tool_calls_decision_names_its_link check (endpoint <> 'confirmation' or confirmation_id is not null);

-- Appends the record of the calling person's decision on their link `p_id` (opened with its token):
-- p_decision 'approve' once the link was claimed (approving, approved or failed), 'refuse' once it
-- was refused. The arguments come redacted from the gateway; the rest is the link's. Returns the
-- record's id; PT404 when the caller has no such link decided that way.
create function mcp_confirmations.record_decision(
  p_id text, p_token_hash bytea, p_decision text, p_arguments jsonb, p_outcome text, p_error_code text,
  p_http_status integer, p_duration_ms integer, p_request_id text, p_scopes text[]
) returns bigint
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- ============================================================================================
-- The approval's lease
-- ============================================================================================
alter table mcp_confirmations.confirmations
  -- when the approval claimed the link (pending -> approving); kept once it is decided
  add column claimed_at timestamptz;
-- Claims in flight while this migration runs get a whole lease from now.
update mcp_confirmations.confirmations set claimed_at = now() where status = 'approving';
alter table mcp_confirmations.confirmations
  add constraint confirmations_approving_is_claimed check (status <> 'approving' or claimed_at is not null);

create function mcp_confirmations.approval_lease() returns interval
  language sql immutable
  set search_path = ''
  as $$ select interval '3 minutes' $$;

-- What a caller sees of a link (replaces effective_status, which read an abandoned claim as
-- expired): a pending row past its expiry is expired; an approving row whose claim outlived its
-- lease is failed (approval_interrupted: the action may have run), decided when the lease ran out.
-- An approving row within its lease stays approving, even past the link's expiry (it was claimed
-- before; its approval is still running).
create function mcp_confirmations.effective_state(p_row mcp_confirmations.confirmations,
    out status text, out outcome jsonb, out decided_at timestamptz)
  language sql stable
  set search_path = ''
  as $$
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

-- ============================================================================================
-- The functions of 20261123001200 that read or end a claim, redefined with the lease
-- ============================================================================================
create or replace function mcp_confirmations.open_confirmation(p_id text, p_token_hash bytea)
  returns table (mine boolean, id core.object_id, user_id core.object_id, client_id text, grant_id core.object_id, client_name text,
    kind text, action jsonb, action_hash bytea, binding bytea, status text, outcome jsonb, expires_at timestamptz,
    created_at timestamptz, decided_at timestamptz)
  language sql stable security definer
  set search_path = ''
  as $$
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

-- Claims the link (stamping the lease's start); otherwise refuses as before, with the status seen.
create or replace function mcp_confirmations.begin_approval(p_id text, p_token_hash bytea)
  returns table (id core.object_id, kind text, action jsonb)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- Ends a claimed approval with the action's outcome, within the claim's lease only: false when the
-- lease ran out (the link reads failed, approval_interrupted, and stays so) or there is no claim.
create or replace function mcp_confirmations.finish_approval(p_id text, p_token_hash bytea, p_status text, p_outcome jsonb) returns boolean
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

create or replace function mcp_confirmations.refuse(p_id text, p_token_hash bytea) returns text
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

create or replace function mcp_confirmations.confirmation_status(p_id text)
  returns table (id core.object_id, kind text, action jsonb, action_hash bytea, status text, outcome jsonb,
    expires_at timestamptz, created_at timestamptz, decided_at timestamptz)
  language sql stable security definer
  set search_path = ''
  as $$
    select c.id, c.kind, c.action, c.action_hash, s.status, s.outcome, c.expires_at, c.created_at, s.decided_at
    from mcp_confirmations.confirmations c cross join lateral mcp_confirmations.effective_state(c) s
    where c.id = p_id and c.user_id = core.current_user_id()
      and c.client_id = nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'client_id'
  $$;

-- Nothing calls it any more: effective_state replaces it.
drop function mcp_confirmations.effective_status(text, timestamptz);

-- ============================================================================================
-- Grants: the helpers are the definer functions' own (nobody else calls them); the decision
-- record is the gateway's, in the person's scope
-- ============================================================================================
revoke execute on function mcp_confirmations.approval_lease(), mcp_confirmations.effective_state(mcp_confirmations.confirmations),
  mcp_confirmations.record_decision(text, bytea, text, jsonb, text, text, integer, integer, text, text[]) from public;
grant execute on function mcp_confirmations.record_decision(text, bytea, text, jsonb, text, text, integer, integer, text, text[])
  to authenticated;
