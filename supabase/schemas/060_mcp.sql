-- MCP: the audit of tool calls on both MCP endpoints, their per-token rate limits, and the audit's
-- retention.
--
-- Every tool call (backend endpoint: an API key; public endpoint: an OAuth grant) appends one row to
-- mcp.tool_calls: who (the user, and the key or the OAuth client, grant and scopes), which tool with
-- which arguments (secrets redacted by the gateway before they get here), the outcome and its error
-- code, the duration and the request id. Tokens and keys are never written: the key is named by its
-- id, taken from the transaction's claims (core.enter_api_key_scope sets them), never from the caller.
-- A person's decision on a confirmation link is recorded in the same table, with endpoint
-- 'confirmation' (mcp_confirmations.record_decision, 080_mcp_confirmations.sql).
--
-- Who calls what:
--   the gateway, in the caller's own scope (role authenticated): record_tool_call (security definer:
--     the table grants no INSERT), take_rate_limit, and SELECT on tool_calls, where RLS shows each
--     user their own calls only (GET /api/v3/me/mcp-audit).
--   pg_cron (service_jobs): purge_tool_calls, the only delete path granted to anyone.
-- Rows are append-only: nobody is granted UPDATE or DELETE.

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA mcp;

GRANT USAGE ON SCHEMA mcp TO authenticated;
GRANT USAGE ON SCHEMA mcp TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema mcp revoke all on tables from public;
alter default privileges in schema mcp revoke all on functions from public;


-- Retention: the tool-call audit is kept 180 days (a pg_cron job, as service_jobs)
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
CREATE FUNCTION mcp.purge_tool_calls() RETURNS integer
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    with deleted as (delete from mcp.tool_calls t where t.created_at < now() - interval '180 days' returning 1)
    select count(*)::integer from deleted
  $$;

REVOKE ALL ON FUNCTION mcp.purge_tool_calls() FROM PUBLIC;
GRANT ALL ON FUNCTION mcp.purge_tool_calls() TO service_jobs;


-- Appends the record of one tool call for the calling user (core.current_user_id()). The API key, if
-- the transaction entered one's scope, comes from the claims; the OAuth client, grant and scopes are
-- the gateway's (it verified the token). Returns the record's id.
CREATE FUNCTION mcp.record_tool_call(p_endpoint text, p_tool text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text, p_client_id text DEFAULT NULL::text, p_grant_id text DEFAULT NULL::text, p_scopes text[] DEFAULT '{}'::text[]) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION mcp.record_tool_call(p_endpoint text, p_tool text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text, p_client_id text, p_grant_id text, p_scopes text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp.record_tool_call(p_endpoint text, p_tool text, p_arguments jsonb, p_outcome text, p_error_code text, p_http_status integer, p_duration_ms integer, p_request_id text, p_client_id text, p_grant_id text, p_scopes text[]) TO authenticated;


-- Rate limits: per token (an API key, or an OAuth grant), per endpoint, per minute
-- Counts one request of the caller's token on `p_endpoint` with core.take_rate_limit (fixed windows,
-- sharded per connection; PT429 rate_limited with retryAfterSeconds). The token is the API key of
-- the transaction's claims when there is one (so two keys of one user have a budget each), else
-- `p_token` (the public endpoint's grant or token id), else the user.
CREATE FUNCTION mcp.take_rate_limit(p_endpoint text, p_token text, p_limit integer) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
  declare
    v_key_id text := (nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'api_key_id');
  begin
    perform core.take_rate_limit(
      'mcp.' || p_endpoint || ':' || coalesce('key:' || v_key_id, 'token:' || p_token, 'user'), p_limit, 60);
  end
  $$;

REVOKE ALL ON FUNCTION mcp.take_rate_limit(p_endpoint text, p_token text, p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION mcp.take_rate_limit(p_endpoint text, p_token text, p_limit integer) TO authenticated;


-- The audit of tool calls
CREATE TABLE mcp.tool_calls (
    id bigint NOT NULL,
    user_id core.object_id NOT NULL,
    endpoint text NOT NULL,
    api_key_id core.object_id,
    client_id text,
    grant_id text,
    scopes text[] DEFAULT '{}'::text[] NOT NULL,
    tool text NOT NULL,
    arguments jsonb NOT NULL,
    outcome text NOT NULL,
    error_code text,
    http_status smallint,
    duration_ms integer NOT NULL,
    request_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    confirmation_id core.object_id,
    CONSTRAINT tool_calls_arguments_check CHECK ((octet_length((arguments)::text) <= 32768)),
    CONSTRAINT tool_calls_client_id_check CHECK ((char_length(client_id) <= 2048)),
    CONSTRAINT tool_calls_decision_names_its_link CHECK (((endpoint <> 'confirmation'::text) OR (confirmation_id IS NOT NULL))),
    CONSTRAINT tool_calls_duration_ms_check CHECK ((duration_ms >= 0)),
    CONSTRAINT tool_calls_endpoint_check CHECK ((endpoint = ANY (ARRAY['backend'::text, 'public'::text, 'confirmation'::text]))),
    CONSTRAINT tool_calls_error_code_check CHECK ((char_length(error_code) <= 100)),
    CONSTRAINT tool_calls_error_has_a_code CHECK (((outcome = 'error'::text) = (error_code IS NOT NULL))),
    CONSTRAINT tool_calls_grant_id_check CHECK ((char_length(grant_id) <= 200)),
    CONSTRAINT tool_calls_http_status_check CHECK (((http_status >= 100) AND (http_status <= 599))),
    CONSTRAINT tool_calls_outcome_check CHECK ((outcome = ANY (ARRAY['ok'::text, 'error'::text]))),
    CONSTRAINT tool_calls_request_id_check CHECK (((char_length(request_id) >= 1) AND (char_length(request_id) <= 200))),
    CONSTRAINT tool_calls_scopes_check CHECK ((cardinality(scopes) <= 100)),
    CONSTRAINT tool_calls_tool_check CHECK (((char_length(tool) >= 1) AND (char_length(tool) <= 128))),
    CONSTRAINT tool_calls_pkey PRIMARY KEY (id),
    CONSTRAINT tool_calls_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES core.api_keys(id) ON DELETE SET NULL,
    CONSTRAINT tool_calls_user_id_fkey FOREIGN KEY (user_id) REFERENCES core.users(id) ON DELETE CASCADE
);

ALTER TABLE mcp.tool_calls ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME mcp.tool_calls_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

create index tool_calls_api_key_id_idx on mcp.tool_calls (api_key_id);

create index tool_calls_created_at_idx on mcp.tool_calls (created_at);

create index tool_calls_user_created on mcp.tool_calls (user_id, created_at desc, id desc);

ALTER TABLE mcp.tool_calls ENABLE ROW LEVEL SECURITY;

create policy tool_calls_select_owner on mcp.tool_calls for select to authenticated
  using (user_id = (select core.current_user_id()));

GRANT SELECT ON TABLE mcp.tool_calls TO authenticated;


-- Background jobs, run by pg_cron as service_jobs (core.schedule_job: scheduling a job of the same
-- name again replaces it).
select core.schedule_job('purge_old_mcp_tool_calls', '47 3 * * *', 'mcp.purge_tool_calls');
