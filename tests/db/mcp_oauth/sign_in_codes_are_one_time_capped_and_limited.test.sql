-- An e-mail sign-in code works once, until it expires, for at most p_max_attempts tries
-- (wrong tries are counted even though they fail: they are returned, not raised, so they commit);
-- a new code ends the live one its requester asked for; codes per (address, IP) and per IP are
-- rate-limited (PT429).
-- A code signs in as the user with that e-mail (case-insensitively), created on first sign-in.
begin;
select plan(13);

select tests.create_user('Known@Example.com') as known \gset

select mcp_oauth.issue_sign_in_code('new@example.com', '192.0.2.1', sha256('111111'), 600, 3, 100, 900, 0, 50) as c1 \gset
select is((select error from mcp_oauth.verify_sign_in_code(:'c1', 'new@example.com', sha256('999999'), '192.0.2.1', 3, 100, 900, 50, sha256('s0'), 60)),
  'wrong_code', 'a wrong code is wrong_code');
select is((select attempts from mcp_oauth.sign_in_codes where id = :'c1'), 1, 'and counts as an attempt');
select is((select error from mcp_oauth.verify_sign_in_code(:'c1', 'other@example.com', sha256('111111'), '192.0.2.1', 3, 100, 900, 50, sha256('s0'), 60)),
  'code_expired', 'the code works only for its own address');
select ok((select user_id is not null and error is null
  from mcp_oauth.verify_sign_in_code(:'c1', 'NEW@example.com', sha256('111111'), '192.0.2.1', 3, 100, 900, 50, sha256('s1'), 60)),
  'the right code signs in');
select is((select count(*)::int from core.users where email = 'new@example.com'), 1, 'the user is created with the address');
select is((select error from mcp_oauth.verify_sign_in_code(:'c1', 'new@example.com', sha256('111111'), '192.0.2.1', 3, 100, 900, 50, sha256('s2'), 60)),
  'code_expired', 'a code works once');

-- An existing user, whatever the case of the address.
select mcp_oauth.issue_sign_in_code('known@example.com', '192.0.2.1', sha256('222222'), 600, 3, 100, 900, 0, 50) as c2 \gset
select is((select user_id from mcp_oauth.verify_sign_in_code(:'c2', 'known@example.com', sha256('222222'), '192.0.2.1', 3, 100, 900, 50, sha256('s3'), 60)),
  :'known'::core.object_id, 'signs in as the user with that e-mail');

-- The attempt cap.
select mcp_oauth.issue_sign_in_code('capped@example.com', '192.0.2.1', sha256('333333'), 600, 3, 100, 900, 0, 50) as c3 \gset
select error from mcp_oauth.verify_sign_in_code(:'c3', 'capped@example.com', sha256('000000'), '192.0.2.1', 3, 100, 900, 50, sha256('x'), 60);
select error from mcp_oauth.verify_sign_in_code(:'c3', 'capped@example.com', sha256('000000'), '192.0.2.1', 3, 100, 900, 50, sha256('x'), 60);
select error from mcp_oauth.verify_sign_in_code(:'c3', 'capped@example.com', sha256('000000'), '192.0.2.1', 3, 100, 900, 50, sha256('x'), 60);
select is((select error from mcp_oauth.verify_sign_in_code(:'c3', 'capped@example.com', sha256('333333'), '192.0.2.1', 3, 100, 900, 50, sha256('s4'), 60)),
  'code_expired', 'after the cap even the right code fails');

-- A new code ends the live one.
select mcp_oauth.issue_sign_in_code('twice@example.com', '192.0.2.1', sha256('444444'), 600, 3, 100, 900, 0, 50) as c4 \gset
select mcp_oauth.issue_sign_in_code('twice@example.com', '192.0.2.1', sha256('555555'), 600, 3, 100, 900, 0, 50) as c5 \gset
select is((select error from mcp_oauth.verify_sign_in_code(:'c4', 'twice@example.com', sha256('444444'), '192.0.2.1', 3, 100, 900, 50, sha256('s5'), 60)),
  'code_expired', 'the earlier code no longer works');

-- Rate limits: this IP had 2 codes for the address; a third is allowed, a fourth is not (limit 3),
-- while another IP may still ask for the address.
select lives_ok($$select mcp_oauth.issue_sign_in_code('twice@example.com', '192.0.2.1', sha256('666666'), 600, 3, 100, 900, 0, 50)$$, 'third code');
select throws_ok($$select mcp_oauth.issue_sign_in_code('TWICE@example.com', '192.0.2.1', sha256('777777'), 600, 3, 100, 900, 0, 50)$$,
  'PT429', null, 'a fourth code for the address and IP in the window is rate limited');
select lives_ok($$select mcp_oauth.issue_sign_in_code('twice@example.com', '192.0.2.3', sha256('777777'), 600, 3, 100, 900, 0, 50)$$,
  'another IP still gets a code for the address');
select throws_ok($$select mcp_oauth.issue_sign_in_code('fresh@example.com', '192.0.2.1', sha256('888888'), 600, 3, 5, 900, 0, 50)$$,
  'PT429', null, 'an IP that already asked for five codes is rate limited at a limit of 5');

select * from finish();
rollback;
