-- An address gets at most one sign-in code per resend interval, whoever asks (Supabase Auth's one a
-- minute): a request within it is refused with PT429 and the seconds left in its detail, so an
-- address's mailbox is not flooded and the owner waits at most that long. Decided under the
-- address's lock, so concurrent requests cannot both pass (tests/auth/sign-in-codes.concurrency.test.ts).
begin;
select plan(6);

-- The refusal's detail: the seconds to wait (the gateway's Retry-After).
create function pg_temp.retry_after(p_ip text) returns numeric language plpgsql as $$
  declare
    v_detail text;
  begin
    perform mcp_oauth.issue_sign_in_code('resend@example.com', p_ip, sha256(gen_random_uuid()::text::bytea), 600, 100, 100, 900, 60, 50);
    return null;
  exception when sqlstate 'PT429' then
    get stacked diagnostics v_detail = pg_exception_detail;
    return (v_detail::json ->> 'retryAfterSeconds')::numeric;
  end
$$;

select lives_ok($$select mcp_oauth.issue_sign_in_code('resend@example.com', '192.0.2.1', sha256('first'::bytea), 600, 100, 100, 900, 60, 50)$$,
  'a first code');
select is(pg_temp.retry_after('192.0.2.1'), 60::numeric, 'the same client at once: refused, 60 seconds to wait');
select is(pg_temp.retry_after('198.51.100.2'), 60::numeric, 'another client too: the interval is the address''s');

update mcp_oauth.sign_in_codes set created_at = created_at - interval '45 seconds' where email = 'resend@example.com';
select is(pg_temp.retry_after('198.51.100.3'), 15::numeric, '45 seconds later: 15 seconds left');

update mcp_oauth.sign_in_codes set created_at = created_at - interval '15 seconds' where email = 'resend@example.com';
select is(pg_temp.retry_after('198.51.100.3'), null, 'once the interval passed, a code is sent');
select is((select count(*)::integer from mcp_oauth.sign_in_codes where email = 'resend@example.com'), 2, 'two codes in all');

select * from finish();
rollback;
