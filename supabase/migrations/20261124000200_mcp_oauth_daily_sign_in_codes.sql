-- A daily cap on the e-mail codes of one address. Codes per 15 minutes alone let a guesser ask for
-- a new code every few minutes all day (about 2,400 tries a day at 5 tries a code); with at most
-- p_per_day codes a day, an address takes at most p_per_day x the tries of a code in guesses a day.
-- Counted exactly from the codes themselves (the purge keeps them a day past expiry) under a lock on
-- the address, so concurrent requests cannot pass the cap.
drop function mcp_oauth.issue_sign_in_code(text, text, bytea, integer, integer, integer, integer);

create function mcp_oauth.issue_sign_in_code(p_email text, p_ip text, p_code_hash bytea, p_ttl_seconds integer,
    p_per_address integer, p_per_ip integer, p_window_seconds integer, p_per_day integer)
  returns core.object_id
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_email text := lower(btrim(p_email));
    v_today integer;
    v_oldest timestamptz;
    v_id core.object_id;
  begin
    perform core.take_rate_limit('mcp_sign_in_code:address:' || v_email, p_per_address, p_window_seconds);
    perform core.take_rate_limit('mcp_sign_in_code:ip:' || coalesce(p_ip, 'unknown'), p_per_ip, p_window_seconds);
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('mcp_sign_in_code:' || v_email, 0));
    select count(*), min(c.created_at) into v_today, v_oldest
      from mcp_oauth.sign_in_codes c where lower(c.email) = v_email and c.created_at > now() - interval '1 day';
    if v_today >= p_per_day then
      -- Again once the oldest of the day's codes is a day old.
      raise exception 'too many sign-in codes for this address today'
        using errcode = 'PT429', hint = 'rate_limited',
              detail = pg_catalog.json_build_object('retryAfterSeconds', ceil(extract(epoch from v_oldest + interval '1 day' - now())))::text;
    end if;
    update mcp_oauth.sign_in_codes set expires_at = least(expires_at, now())
      where lower(email) = v_email and consumed_at is null and expires_at > now();
    insert into mcp_oauth.sign_in_codes (email, code_hash, expires_at)
      values (v_email, p_code_hash, now() + make_interval(secs => p_ttl_seconds))
      returning id into v_id;
    return v_id;
  end
  $$;

revoke execute on function mcp_oauth.issue_sign_in_code(text, text, bytea, integer, integer, integer, integer, integer) from public;
grant execute on function mcp_oauth.issue_sign_in_code(text, text, bytea, integer, integer, integer, integer, integer) to api_gateway;
