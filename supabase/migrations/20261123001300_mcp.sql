-- MCP: the audit of tool calls on both MCP endpoints, their per-token rate limits, and the audit's
-- retention.
--
-- Every tool call (backend endpoint: an API key; public endpoint: an OAuth grant) appends one row to
-- mcp.tool_calls: who (the user, and the key or the OAuth client, grant and scopes), which tool with
-- which arguments (secrets redacted by the gateway before they get here), the outcome and its error
-- code, the duration and the request id. Tokens and keys are never written: the key is named by its
-- id, taken from the transaction's claims (core.enter_api_key_scope sets them), never from the caller.
-- A person's decision on a confirmation link is recorded in the same table, with endpoint
-- 'confirmation' (mcp_confirmations.record_decision, 20261123001500_mcp_confirmations.sql).
--
-- Who calls what:
--   the gateway, in the caller's own scope (role authenticated): record_tool_call (security definer:
--     the table grants no INSERT), take_rate_limit, and SELECT on tool_calls, where RLS shows each
--     user their own calls only (GET /api/v3/me/mcp-audit).
--   pg_cron (service_jobs): purge_tool_calls, the only delete path granted to anyone.
-- Rows are append-only: nobody is granted UPDATE or DELETE.

create schema mcp;
revoke all on schema mcp from public;
grant usage on schema mcp to authenticated;
-- The purge job's role: usage only, and execute on mcp.purge_tool_calls (no table privilege).
grant usage on schema mcp to service_jobs;
alter default privileges in schema mcp revoke all on tables from public;
alter default privileges in schema mcp revoke all on functions from public;

-- ============================================================================================
-- The audit of tool calls
-- ============================================================================================
create table mcp.tool_calls (
  id           bigint generated always as identity primary key,
  user_id      core.object_id not null references core.users (id) on delete cascade,
  -- confirmation: a person's decision on a confirmation link (no assistant made it)
  endpoint     text not null check (endpoint in ('backend', 'public', 'confirmation')),
  -- backend: the API key that called (its id; the key itself is never stored here)
  api_key_id   core.object_id references core.api_keys (id) on delete set null,
  -- public: the OAuth client (up to 2048 characters, as in mcp_oauth.clients: a metadata document's
  -- URL), the grant, and the scopes the token carried
  client_id    text check (char_length(client_id) <= 2048),
  grant_id     text check (char_length(grant_id) <= 200),
  scopes       text[] not null default '{}' check (cardinality(scopes) <= 100),
  tool         text not null check (char_length(tool) between 1 and 128),
  -- the call's arguments, secrets replaced by "[redacted]" (at most 16 KiB: the gateway clips them)
  arguments    jsonb not null check (octet_length(arguments::text) <= 32768),
  outcome      text not null check (outcome in ('ok', 'error')),
  error_code   text check (char_length(error_code) <= 100),
  http_status  smallint check (http_status between 100 and 599),
  duration_ms  integer not null check (duration_ms >= 0),
  request_id   text not null check (char_length(request_id) between 1 and 200),
  created_at   timestamptz not null default now(),
  -- confirmation: the link decided (its id; no foreign key: the link is deleted 30 days after its
  -- decision, its audit record is kept as long as the tool calls are)
  confirmation_id core.object_id,
  constraint tool_calls_error_has_a_code check ((outcome = 'error') = (error_code is not null)),
  constraint tool_calls_decision_names_its_link check (endpoint <> 'confirmation' or confirmation_id is not null)
);
create index tool_calls_user_created on mcp.tool_calls (user_id, created_at desc, id desc);
-- The purge's scan.
create index tool_calls_created_at_idx on mcp.tool_calls (created_at);
alter table mcp.tool_calls enable row level security;

grant select on mcp.tool_calls to authenticated;
create policy tool_calls_select_owner on mcp.tool_calls for select to authenticated
  using (user_id = (select core.current_user_id()));

-- Appends the record of one tool call for the calling user (core.current_user_id()). The API key, if
-- the transaction entered one's scope, comes from the claims; the OAuth client, grant and scopes are
-- the gateway's (it verified the token). Returns the record's id.
create function mcp.record_tool_call(
  p_endpoint text, p_tool text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer,
  p_duration_ms integer, p_request_id text,
  p_client_id text default null, p_grant_id text default null, p_scopes text[] default '{}'
) returns bigint
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
    v_key_id core.object_id := (nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'api_key_id');
    v_id bigint;
  begin
    if v_user is null then
      raise exception 'an MCP tool call is recorded for an authenticated user only'
        using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    insert into mcp.tool_calls (user_id, endpoint, api_key_id, client_id, grant_id, scopes, tool, arguments, outcome,
                                error_code, http_status, duration_ms, request_id)
      values (v_user, p_endpoint, v_key_id, p_client_id, p_grant_id, coalesce(p_scopes, '{}'), p_tool, p_arguments,
              p_outcome, p_error_code, p_http_status, greatest(p_duration_ms, 0), p_request_id)
      returning id into v_id;
    return v_id;
  end
  $$;

-- ============================================================================================
-- Rate limits: per token (an API key, or an OAuth grant), per endpoint, per minute
-- ============================================================================================
-- Counts one request of the caller's token on `p_endpoint` with core.take_rate_limit (fixed windows,
-- sharded per connection; PT429 rate_limited with retryAfterSeconds). The token is the API key of
-- the transaction's claims when there is one (so two keys of one user have a budget each), else
-- `p_token` (the public endpoint's grant or token id), else the user.
create function mcp.take_rate_limit(p_endpoint text, p_token text, p_limit integer) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_key_id text := (nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'api_key_id');
  begin
    perform core.take_rate_limit(
      'mcp.' || p_endpoint || ':' || coalesce('key:' || v_key_id, 'token:' || p_token, 'user'), p_limit, 60);
  end
  $$;

-- ============================================================================================
-- Retention: the tool-call audit is kept 180 days (a pg_cron job, as service_jobs)
-- ============================================================================================
-- 180 days: long enough to answer for a key's or an assistant's calls over half a year (a person
-- reviewing GET /api/v3/me/mcp-audit, an operator tracing a leaked key or a disputed action back
-- through a quarter and more), short enough that redacted-but-personal tool arguments are not kept
-- without end.
--
-- The table is append-only by privileges: nobody (anon, authenticated, service_role, service_jobs,
-- api_gateway) holds UPDATE, DELETE or TRUNCATE on it, and RLS lets authenticated read its own rows
-- only. There is no append-only trigger: only the table owner (the migrations' role) can change
-- rows, and the foreign keys' cascades must keep working (deleting a user deletes their calls,
-- deleting a key sets api_key_id null), which a trigger refusing delete or update would block. This
-- function is the only delete path granted to anyone, and it deletes nothing younger than the
-- retention.
--
-- Security definer with an empty search_path, like every write here: service_jobs holds no table
-- privilege, so a statement of its own (the gateway can become service_jobs for its loops) reads and
-- deletes nothing.
create function mcp.purge_tool_calls() returns integer
  language sql volatile security definer
  set search_path = ''
  as $$
    with deleted as (delete from mcp.tool_calls t where t.created_at < now() - interval '180 days' returning 1)
    select count(*)::integer from deleted
  $$;

-- ============================================================================================
-- Grants: deny by default, then exactly these
-- ============================================================================================
revoke execute on all functions in schema mcp from public;
grant execute on function
  mcp.record_tool_call(text, text, jsonb, text, text, integer, integer, text, text, text, text[]),
  mcp.take_rate_limit(text, text, integer)
  to authenticated;
grant execute on function mcp.purge_tool_calls() to service_jobs;

-- ============================================================================================
-- The backend endpoint's two writes, each one statement for an API key
-- ============================================================================================
-- The same two functions as the key's owner, after core.enter_api_key_scope (the key checked, its
-- claims and role authenticated set), in a single statement: the gateway sends it without a
-- transaction block and without a connection of its own, pipelined with other requests' statements
-- (as core.me_by_api_key). Invoker rights like enter_api_key_scope, so only the login role is
-- granted them; no search_path clause (it costs a plan per call), every name is qualified.
create function core.mcp_take_rate_limit(p_key_hash bytea, p_required_permissions text[], p_endpoint text, p_limit integer)
  returns core.object_id
  language plpgsql volatile
  as $$
  declare
    v_owner core.object_id := core.enter_api_key_scope(p_key_hash, p_required_permissions);
  begin
    perform mcp.take_rate_limit(p_endpoint, null, p_limit);
    return v_owner;
  end
  $$;

create function core.mcp_record_tool_call(
  p_key_hash bytea, p_required_permissions text[], p_endpoint text, p_tool text, p_arguments jsonb, p_outcome text, p_error_code text,
  p_http_status integer, p_duration_ms integer, p_request_id text
) returns core.object_id
  language plpgsql volatile
  as $$
  declare
    v_owner core.object_id := core.enter_api_key_scope(p_key_hash, p_required_permissions);
  begin
    perform mcp.record_tool_call(p_endpoint, p_tool, p_arguments, p_outcome, p_error_code, p_http_status, p_duration_ms,
                                 p_request_id, null, null, '{}'::text[]);
    return v_owner;
  end
  $$;

revoke execute on function core.mcp_take_rate_limit(bytea, text[], text, integer) from public;
revoke execute on function core.mcp_record_tool_call(bytea, text[], text, text, jsonb, text, text, integer, integer, text) from public;
grant execute on function core.mcp_take_rate_limit(bytea, text[], text, integer) to api_gateway;
grant execute on function core.mcp_record_tool_call(bytea, text[], text, text, jsonb, text, text, integer, integer, text) to api_gateway;

-- ============================================================================================
-- Schedule
-- ============================================================================================
-- Daily, at night (UTC), apart from the other MCP purges: the margin is 180 days.
select core.schedule_job('purge_old_mcp_tool_calls', '47 3 * * *', 'mcp.purge_tool_calls');
