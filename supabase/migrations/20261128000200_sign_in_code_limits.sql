-- E-mail sign-in codes that nobody can use to lock another person out (both doors: the OAuth pages
-- and the local auth server's /auth/v1/otp). Until now every code request counted against the
-- address itself (5 per 15 minutes, 10 a day), so anyone could spend an address's codes and lock its
-- owner out for a day. Now:
--   * sends are counted per (address, requester) and per requester, never per address alone, so one
--     client's requests do not consume another's;
--   * an address gets at most one code per resend interval (Supabase Auth's one a minute): a client
--     asking sooner gets 429 with the few seconds left, and an address's mailbox is not flooded;
--   * a code ends only the earlier live codes its own requester asked for, so another client's
--     request never ends the owner's pending code; the local auth server's verify (which names no
--     code) checks the requester's own newest live code first, else the address's newest;
--   * what bounds guessing is a daily cap on WRONG guesses per address, counted exactly from the
--     codes' own attempts under a lock on the address: each guess is compared with one code, so an
--     address takes at most that many wrong guesses a day, however many codes were sent.
-- Every count is taken under the address's advisory lock (or a rate-limit row lock), so concurrent
-- requests cannot pass a limit.

-- ============================================================================================
-- Who asked for a code
-- ============================================================================================
-- The client's address as the gateway knows it (client-address.ts); null for codes issued before.
alter table mcp_oauth.sign_in_codes add column requested_by text;

-- ============================================================================================
-- The address's lock and its daily cap on wrong guesses
-- ============================================================================================
-- Takes the address's lock until the transaction ends (issuing and checking codes of one address
-- queue on it) and raises PT429 once the address took p_wrong_guesses_per_day wrong guesses in a
-- day. A guess is made before its code's expires_at, and a code is kept until a day after it (the
-- purge), so counting the codes that expired less than a day ago counts every guess of the last day.
create function mcp_oauth.lock_sign_in_address(p_email text, p_wrong_guesses_per_day integer) returns void
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_wrong integer;
    v_oldest timestamptz;
  begin
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('mcp_sign_in_code:' || p_email, 0));
    select coalesce(sum(c.attempts - (c.consumed_at is not null)::integer), 0), min(c.expires_at)
        filter (where c.attempts > (c.consumed_at is not null)::integer)
      into v_wrong, v_oldest
      from mcp_oauth.sign_in_codes c
      where lower(c.email) = p_email and c.expires_at > now() - interval '1 day';
    if v_wrong >= p_wrong_guesses_per_day then
      -- Again once the oldest counted guesses are a day old.
      raise exception 'too many wrong sign-in codes for this address today'
        using errcode = 'PT429', hint = 'rate_limited',
              detail = pg_catalog.json_build_object('retryAfterSeconds',
                greatest(1, ceil(extract(epoch from v_oldest + interval '1 day' - now()))))::text;
    end if;
  end
  $$;

-- ============================================================================================
-- Issuing a code
-- ============================================================================================
drop function mcp_oauth.issue_sign_in_code(text, text, bytea, integer, integer, integer, integer, integer);

create function mcp_oauth.issue_sign_in_code(p_email text, p_ip text, p_code_hash bytea, p_ttl_seconds integer,
    p_per_address_and_ip integer, p_per_ip integer, p_window_seconds integer, p_resend_seconds integer,
    p_wrong_guesses_per_day integer)
  returns core.object_id
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_email text := lower(btrim(p_email));
    v_ip text := coalesce(p_ip, 'unknown');
    v_last timestamptz;
    v_id core.object_id;
  begin
    perform core.take_rate_limit('mcp_sign_in_code:ip:' || v_ip, p_per_ip, p_window_seconds);
    perform core.take_rate_limit('mcp_sign_in_code:address_ip:' || v_email || ' ' || v_ip, p_per_address_and_ip, p_window_seconds);
    -- A code the address could not use is not mailed.
    perform mcp_oauth.lock_sign_in_address(v_email, p_wrong_guesses_per_day);
    select max(c.created_at) into v_last from mcp_oauth.sign_in_codes c where lower(c.email) = v_email;
    if v_last > now() - make_interval(secs => p_resend_seconds) then
      raise exception 'a sign-in code was sent to this address moments ago'
        using errcode = 'PT429', hint = 'rate_limited',
              detail = pg_catalog.json_build_object('retryAfterSeconds',
                greatest(1, ceil(extract(epoch from v_last + make_interval(secs => p_resend_seconds) - now()))))::text;
    end if;
    update mcp_oauth.sign_in_codes c set expires_at = least(c.expires_at, now())
      where lower(c.email) = v_email and c.requested_by = v_ip and c.consumed_at is null and c.expires_at > now();
    insert into mcp_oauth.sign_in_codes (email, code_hash, expires_at, requested_by)
      values (v_email, p_code_hash, now() + make_interval(secs => p_ttl_seconds), v_ip)
      returning id into v_id;
    return v_id;
  end
  $$;

-- ============================================================================================
-- Checking a code (both doors)
-- ============================================================================================
drop function app_auth.verify_otp(text, bytea, text, integer, integer, integer, bytea, integer);
drop function mcp_oauth.verify_sign_in_code(text, text, bytea, text, integer, integer, integer, bytea, integer);
drop function mcp_oauth.spend_sign_in_code(text, text, bytea, text, integer, integer, integer);

-- Without a sign-in id (the local auth server), the code checked is the requester's own newest live
-- code, else the address's newest: another client's later request does not displace it, and every
-- guess is still compared with one code.
create function mcp_oauth.spend_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text,
    p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer,
    out error text, out user_id core.object_id)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_email text := lower(btrim(p_email));
    v_ip text := coalesce(p_ip, 'unknown');
    v_code mcp_oauth.sign_in_codes%rowtype;
  begin
    perform core.take_rate_limit('mcp_sign_in_verify:ip:' || v_ip, p_per_ip, p_window_seconds);
    perform mcp_oauth.lock_sign_in_address(v_email, p_wrong_guesses_per_day);
    if p_id is null then
      select * into v_code from mcp_oauth.sign_in_codes c
        where lower(c.email) = v_email and c.consumed_at is null and c.expires_at > now()
        order by c.requested_by is not distinct from v_ip desc, c.created_at desc limit 1
        for update;
    elsif p_id ~ '^[0-9a-f]{24}$' then
      select * into v_code from mcp_oauth.sign_in_codes c
        where c.id = p_id::core.object_id and lower(c.email) = v_email
        for update;
    end if;
    if v_code.id is null or v_code.consumed_at is not null or v_code.expires_at <= now() or v_code.attempts >= p_max_attempts then
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
  end
  $$;

create function mcp_oauth.verify_sign_in_code(p_id text, p_email text, p_code_hash bytea, p_ip text,
    p_max_attempts integer, p_per_ip integer, p_window_seconds integer, p_wrong_guesses_per_day integer,
    p_session_hash bytea, p_session_ttl_seconds integer,
    out error text, out user_id core.object_id)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    if p_id is null then
      error := 'code_expired';
      return;
    end if;
    select s.error, s.user_id into error, user_id
      from mcp_oauth.spend_sign_in_code(p_id, p_email, p_code_hash, p_ip, p_max_attempts, p_per_ip, p_window_seconds,
                                        p_wrong_guesses_per_day) s;
    if error is null then
      insert into mcp_oauth.browser_sessions (token_hash, user_id, expires_at)
        values (p_session_hash, user_id, now() + make_interval(secs => p_session_ttl_seconds));
    end if;
  end
  $$;

-- error: null, 'wrong_code', 'code_expired' (expired, spent, out of attempts, or no live code).
create function app_auth.verify_otp(p_email text, p_code_hash bytea, p_ip text, p_max_attempts integer, p_per_ip integer,
    p_window_seconds integer, p_wrong_guesses_per_day integer, p_refresh_hash bytea, p_refresh_ttl_seconds integer)
  returns app_auth.session_answer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_code record;
    v_refused app_auth.session_answer;
  begin
    select * into v_code from mcp_oauth.spend_sign_in_code(null, p_email, p_code_hash, p_ip, p_max_attempts, p_per_ip,
                                                           p_window_seconds, p_wrong_guesses_per_day);
    if v_code.error is not null then
      v_refused.error := v_code.error;
      return v_refused;
    end if;
    return app_auth.start_session(v_code.user_id, 'otp', p_refresh_hash, p_refresh_ttl_seconds);
  end
  $$;

-- ============================================================================================
-- Privileges
-- ============================================================================================
revoke execute on function
  mcp_oauth.lock_sign_in_address(text, integer),
  mcp_oauth.issue_sign_in_code(text, text, bytea, integer, integer, integer, integer, integer, integer),
  mcp_oauth.spend_sign_in_code(text, text, bytea, text, integer, integer, integer, integer),
  mcp_oauth.verify_sign_in_code(text, text, bytea, text, integer, integer, integer, integer, bytea, integer),
  app_auth.verify_otp(text, bytea, text, integer, integer, integer, integer, bytea, integer)
  from public;
grant execute on function
  mcp_oauth.issue_sign_in_code(text, text, bytea, integer, integer, integer, integer, integer, integer),
  mcp_oauth.verify_sign_in_code(text, text, bytea, text, integer, integer, integer, integer, bytea, integer),
  app_auth.verify_otp(text, bytea, text, integer, integer, integer, integer, bytea, integer)
  to api_gateway;
