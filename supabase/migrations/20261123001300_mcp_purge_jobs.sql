-- MCP (issue 10, leftover): purge jobs for the rows of the MCP endpoints that expire, which nothing
-- deleted until now. Three pg_cron jobs, one per schema, each installed with core.schedule_job and
-- run as service_jobs:
--
--   purge_expired_mcp_oauth_rows (hourly)  mcp_oauth.purge_expired_rows(): sign-in codes, browser
--       sessions, authorization codes, revoked access tokens and cached Client ID Metadata Documents
--       a day after they expired; refresh tokens 30 days after the newest token of their grant expired;
--   purge_finished_mcp_confirmations (daily) mcp_confirmations.purge_finished(): confirmation links
--       30 days after they were decided or expired;
--   purge_old_mcp_tool_calls (daily)       mcp.purge_tool_calls(): the tool-call audit after 180 days.
--
-- Not here: the MCP rate limits (mcp.take_rate_limit, and the OAuth server's per-address, per-IP and
-- per-grant limits) are counted in core.rate_limit_windows, which core.purge_rate_limit_windows
-- (20261123000800_sponsorship.sql) already purges hourly. Grants (mcp_oauth.grants) are the
-- person's record of what they approved and stay; dynamically registered clients have no expiry.
--
-- The functions are SECURITY DEFINER with an empty search_path, unlike the invoker pattern of
-- 20261123000300_siwe_nonce_limits.sql and like sponsorship.release_expired_holds: the three MCP
-- schemas are deny by default with every write a definer function and no table privilege for
-- anyone (mcp and mcp_confirmations hold no RLS policy at all, and their tests keep it so). So
-- service_jobs gets usage on the three schemas and execute on the three functions, and no table
-- privilege: a statement of its own (the gateway can become service_jobs for its loops) reads and
-- deletes nothing, and the only delete it can cause is what these functions delete. Each function
-- decides its cutoff itself; none takes an argument.

-- ============================================================================================
-- mcp_oauth: codes, sessions, tokens, cached client documents
-- ============================================================================================
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
-- mcp_confirmations: decided or expired links
-- ============================================================================================
-- create_confirmation already deletes the calling person's links decided or expired more than 30
-- days ago; this job does the same for people who stopped creating links, with the same cutoff, so
-- how long a link answers get_confirmation_status (an assistant polling after a long pause, a
-- person reopening the link) does not depend on whether its owner made another one. A link that is
-- still pending or being approved has decided_at null and goes 30 days after its expiry (at most
-- an hour after creation), long after any approval could still be running.
create function mcp_confirmations.purge_finished() returns integer
  language sql volatile security definer
  set search_path = ''
  as $$
    with deleted as (delete from mcp_confirmations.confirmations c
                     where coalesce(c.decided_at, c.expires_at) < now() - interval '30 days' returning 1)
    select count(*)::integer from deleted
  $$;

-- ============================================================================================
-- mcp: the tool-call audit, kept 180 days
-- ============================================================================================
-- 180 days: long enough to answer for a key's or an assistant's calls over half a year (a person
-- reviewing GET /api/v3/me/mcp-audit, an operator tracing a leaked key or a disputed action back
-- through a quarter and more), short enough that redacted-but-personal tool arguments are not kept
-- without end.
--
-- The table stays append-only as 20261123001000_mcp.sql made it, by privileges: nobody (anon,
-- authenticated, service_role, service_jobs, api_gateway) holds UPDATE, DELETE or TRUNCATE on it,
-- and RLS lets authenticated read its own rows only. There is no append-only trigger to adjust, and
-- none is added: only the table owner (the migrations' role) can change rows, and the foreign keys'
-- cascades must keep working (deleting a user deletes their calls, deleting a key sets api_key_id
-- null), which a trigger refusing delete or update would block. This function is the only delete
-- path granted to anyone, and it deletes nothing younger than the retention.
create index tool_calls_created_at_idx on mcp.tool_calls (created_at);

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
revoke execute on function mcp_oauth.purge_expired_rows(), mcp_confirmations.purge_finished(), mcp.purge_tool_calls()
  from public;
grant usage on schema mcp, mcp_oauth, mcp_confirmations to service_jobs;
grant execute on function mcp_oauth.purge_expired_rows(), mcp_confirmations.purge_finished(), mcp.purge_tool_calls()
  to service_jobs;

-- ============================================================================================
-- Schedules
-- ============================================================================================
-- Hourly: the oauth rows have a day's margin, so none lingers much past it.
select core.schedule_job('purge_expired_mcp_oauth_rows', '23 * * * *', 'mcp_oauth.purge_expired_rows');
-- Daily, at night (UTC), apart from each other: their margins are 30 and 180 days.
select core.schedule_job('purge_finished_mcp_confirmations', '37 3 * * *', 'mcp_confirmations.purge_finished');
select core.schedule_job('purge_old_mcp_tool_calls', '47 3 * * *', 'mcp.purge_tool_calls');
