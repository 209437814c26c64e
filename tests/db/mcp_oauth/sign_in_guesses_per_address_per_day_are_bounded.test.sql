-- The guesses one address can take a day are bounded: at most p_wrong_guesses_per_day wrong codes an
-- address a day, counted exactly from the codes' attempts under a lock on the address, whoever asked
-- for the codes and whoever guesses. Each guess is compared with one code, so that bounds the chance
-- of a guess (50 of a million codes a day by default). What is capped is the wrong guesses, not the
-- sends: asking for codes alone never locks an address.
begin;
select plan(9);

-- Twelve codes in a day from twelve clients: more than the ten a day that used to be the cap.
select mcp_oauth.issue_sign_in_code('target@example.com', '192.0.2.' || n, sha256(('code-' || n)::bytea), 600, 100, 100, 900, 0, 5)
  from generate_series(1, 12) as n;
select is((select count(*)::integer from mcp_oauth.sign_in_codes where email = 'target@example.com'), 12,
  'twelve codes were issued today: sends are not what is capped');

create temp table codes as
  select row_number() over (order by requested_by::inet) as n, id from mcp_oauth.sign_in_codes where email = 'target@example.com';
create function pg_temp.guess(p_n integer, p_code text, p_ip text) returns text language sql as $$
  select error from mcp_oauth.verify_sign_in_code((select id from codes where n = p_n), 'target@example.com', sha256(p_code::bytea),
    p_ip, 3, 100, 900, 5, sha256(gen_random_uuid()::text::bytea), 60)
$$;

-- Four wrong guesses on two codes, from two clients; a right code then still signs in (it is no wrong guess).
select pg_temp.guess(1, 'wrong', '198.51.100.1') from generate_series(1, 3);
select is(pg_temp.guess(2, 'wrong', '198.51.100.2'), 'wrong_code', 'a fourth wrong guess, on another code from another client');
select is(pg_temp.guess(2, 'code-2', '198.51.100.2'), null, 'the right code still signs in');
select is(pg_temp.guess(3, 'wrong', '198.51.100.3'), 'wrong_code', 'the fifth wrong guess is still checked');

-- Five wrong guesses today: the address takes no more, not even the right code, and gets no code.
select throws_ok($$select pg_temp.guess(4, 'code-4', '198.51.100.4')$$,
  'PT429', 'too many wrong sign-in codes for this address today', 'past the cap even the right code is refused');
select is((select attempts from mcp_oauth.sign_in_codes where id = (select id from codes where n = 4)), 0, 'and not counted');
select throws_ok($$select mcp_oauth.issue_sign_in_code('TARGET@example.com', '198.51.100.5', sha256('code-13'::bytea), 600, 100, 100, 900, 0, 5)$$,
  'PT429', 'too many wrong sign-in codes for this address today', 'nor is a code sent, whatever the IP or case');

-- A day after the guessed codes expired, their guesses leave the count.
update mcp_oauth.sign_in_codes set created_at = created_at - interval '1 day 11 minutes', expires_at = expires_at - interval '1 day 11 minutes'
  where email = 'target@example.com';
select lives_ok($$select mcp_oauth.issue_sign_in_code('target@example.com', '198.51.100.5', sha256('code-14'::bytea), 600, 100, 100, 900, 0, 5)$$,
  'the next day the address may ask again');
select is((select error from mcp_oauth.spend_sign_in_code(null, 'target@example.com', sha256('code-14'::bytea), '198.51.100.5', 3, 100, 900, 5)),
  null, 'and sign in');

select * from finish();
rollback;
