-- The OAuth purge job (mcp_oauth.purge_expired_rows, hourly as service_jobs) also ends what used to
-- pile up for ever: grants that can no longer issue a token, dynamically registered clients nobody
-- uses, and the rotated refresh tokens of grants that stay alive. 30 days is the margin throughout,
-- as for a grant's refresh tokens before; a registered client waits 90 days from its registration.
--
-- The tool-call audit (mcp.tool_calls) names its grant and client in plain text columns, with no
-- foreign key: it outlives them and keeps its own 180 days. Confirmation links reference their grant
-- (on delete cascade), so a grant waits until its links have gone by their own job (30 days after
-- their decision or expiry) and never cuts their retention short.

-- The cascade from a purged grant, and the purge's check for links left, look links up by grant.
create index confirmations_grant_id_idx on mcp_confirmations.confirmations (grant_id);

-- ============================================================================================
-- Purge
-- ============================================================================================
-- Margins (every cutoff is now() minus the margin):
--   * sign-in codes, browser sessions, authorization codes, revoked access tokens, cached Client ID
--     Metadata Documents: a day after expires_at, unchanged (20261123001400_mcp_oauth.sql says why).
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
create or replace function mcp_oauth.purge_expired_rows() returns integer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

-- Deny by default, as before: only the job's role runs it.
revoke execute on function mcp_oauth.purge_expired_rows() from public;
grant execute on function mcp_oauth.purge_expired_rows() to service_jobs;
