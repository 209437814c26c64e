-- An access token is checked against its grant beyond the signature: the token's person and client
-- must be the grant's, and its scopes within the grant's. Should the signing secret ever leak, a
-- forged token still reaches no other person's data and no scope the person did not grant.
drop function mcp_oauth.access_allowed(text, uuid, integer);

create function mcp_oauth.access_allowed(
  p_grant_id text, p_jti uuid, p_per_minute integer, p_user_id text, p_client_id text, p_scopes text[]
) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
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

revoke execute on function mcp_oauth.access_allowed(text, uuid, integer, text, text, text[]) from public;
grant execute on function mcp_oauth.access_allowed(text, uuid, integer, text, text, text[]) to api_gateway;
