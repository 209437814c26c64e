-- The guesses one address can take a day are bounded: at most p_per_day codes an address a day
-- (counted exactly, under a lock on the address), each good for p_max_attempts tries. With the
-- defaults (10 codes, 5 tries) that is 50 guesses a day at a 6-digit code: 1 in 20,000 a day.
begin;
select plan(5);

-- Ten codes in a day, each window of the per-15-minutes limit wide enough to allow them.
select mcp_oauth.issue_sign_in_code('target@example.com', '192.0.2.' || n, sha256(('code-' || n)::bytea), 600, 100, 100, 900, 10)
  from generate_series(1, 10) as n;
select is((select count(*)::integer from mcp_oauth.sign_in_codes where email = 'target@example.com'), 10, 'ten codes were issued today');

select throws_ok($$select mcp_oauth.issue_sign_in_code('TARGET@example.com', '198.51.100.1', sha256('code-11'::bytea), 600, 100, 100, 900, 10)$$,
  'PT429', 'too many sign-in codes for this address today', 'an eleventh code the same day is refused, whatever the IP or case');
select is((select count(*)::integer from mcp_oauth.sign_in_codes where email = 'target@example.com'), 10, 'and none was stored');

-- The bound: every code takes at most p_max_attempts tries, so 10 codes x 5 tries = 50 guesses.
select is((select count(*)::integer * 5 from mcp_oauth.sign_in_codes where email = 'target@example.com'), 50, 'at most 50 guesses today');

-- A day later the oldest codes leave the window, and a code can be had again.
update mcp_oauth.sign_in_codes set created_at = created_at - interval '1 day 1 minute' where email = 'target@example.com';
select lives_ok($$select mcp_oauth.issue_sign_in_code('target@example.com', '198.51.100.1', sha256('code-12'::bytea), 600, 100, 100, 900, 10)$$,
  'the next day the address may ask again');

select * from finish();
rollback;
