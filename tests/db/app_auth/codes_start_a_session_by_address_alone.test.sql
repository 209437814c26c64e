-- Supabase's verify names only the address and the code: the code checked is the address's one live
-- code, with the same rules as on the OAuth pages (shared with them): wrong tries count and commit,
-- the attempt cap kills the code, a code works once, a new code ends the earlier one. The right
-- code starts a session of the user with that address, created on first sign-in.
begin;
select plan(13);

select tests.create_user('Known@Example.com') as known \gset

select mcp_oauth.issue_sign_in_code('new@example.com', '192.0.2.1', sha256('111111'), 600, 10, 100, 900, 0, 50);
select is((select error from app_auth.verify_otp('new@example.com', sha256('999999'), '192.0.2.1', 3, 100, 900, 50, sha256('r0'), 3600)),
  'wrong_code', 'a wrong code is wrong_code');
select is((select attempts from mcp_oauth.sign_in_codes where email = 'new@example.com'), 1, 'and counts as an attempt');
select is((select error from app_auth.verify_otp('other@example.com', sha256('111111'), '192.0.2.1', 3, 100, 900, 50, sha256('r0'), 3600)),
  'code_expired', 'an address without a live code has nothing to verify');

select * into temp signed_in from app_auth.verify_otp('NEW@example.com', sha256('111111'), '192.0.2.1', 3, 100, 900, 50, sha256('r1'), 3600);
select ok((select error is null and session_id is not null and method = 'otp' and email = 'new@example.com' from signed_in),
  'the right code, whatever the case of the address, starts a session');
select is((select auth_user_id from signed_in), (select auth_user_id from core.users where email = 'new@example.com'),
  'of the user created with the address, named by its auth user id');
select is((select session_id from app_auth.refresh_tokens where token_hash = sha256('r1')), (select session_id from signed_in),
  'the session''s first refresh token is stored as its hash');
select is((select error from app_auth.verify_otp('new@example.com', sha256('111111'), '192.0.2.1', 3, 100, 900, 50, sha256('r2'), 3600)),
  'code_expired', 'a code works once');

select mcp_oauth.issue_sign_in_code('known@example.com', '192.0.2.1', sha256('222222'), 600, 10, 100, 900, 0, 50);
select is((select user_id from app_auth.verify_otp('known@example.com', sha256('222222'), '192.0.2.1', 3, 100, 900, 50, sha256('r3'), 3600)),
  :'known'::core.object_id, 'an existing user signs in as themselves');

-- The attempt cap: three wrong tries, then even the right code fails.
select mcp_oauth.issue_sign_in_code('capped@example.com', '192.0.2.1', sha256('333333'), 600, 10, 100, 900, 0, 50);
select (app_auth.verify_otp('capped@example.com', sha256('000000'), '192.0.2.1', 3, 100, 900, 50, sha256('x'), 3600)).error from generate_series(1, 3);
select is((select error from app_auth.verify_otp('capped@example.com', sha256('333333'), '192.0.2.1', 3, 100, 900, 50, sha256('r4'), 3600)),
  'code_expired', 'after the cap even the right code fails');

-- A new code ends the live one.
select mcp_oauth.issue_sign_in_code('twice@example.com', '192.0.2.1', sha256('444444'), 600, 10, 100, 900, 0, 50);
select mcp_oauth.issue_sign_in_code('twice@example.com', '192.0.2.1', sha256('555555'), 600, 10, 100, 900, 0, 50);
select is((select error from app_auth.verify_otp('twice@example.com', sha256('444444'), '192.0.2.1', 3, 100, 900, 50, sha256('r5'), 3600)),
  'wrong_code', 'the earlier code no longer works');
select is((select error from app_auth.verify_otp('twice@example.com', sha256('555555'), '192.0.2.1', 3, 100, 900, 50, sha256('r6'), 3600)),
  null, 'the newest one does');

-- Tries per IP are limited, whichever address they name.
select (app_auth.verify_otp('nobody@example.com', sha256('000000'), '192.0.2.9', 3, 2, 900, 50, sha256('x'), 3600)).error from generate_series(1, 2);
select throws_ok($$select app_auth.verify_otp('someone@example.com', sha256('000000'), '192.0.2.9', 3, 2, 900, 50, sha256('x'), 3600)$$,
  'PT429', null, 'a third try from an IP at a limit of 2 is rate limited');

-- The OAuth pages' verify still needs its sign-in id.
select mcp_oauth.issue_sign_in_code('pages@example.com', '192.0.2.1', sha256('666666'), 600, 10, 100, 900, 0, 50);
select is((select error from mcp_oauth.verify_sign_in_code(null, 'pages@example.com', sha256('666666'), '192.0.2.1', 3, 100, 900, 50, sha256('s'), 60)),
  'code_expired', 'the pages never verify without their sign-in id');

select * from finish();
rollback;
