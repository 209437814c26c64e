-- The local auth server's verify names no code, only the address: the code checked is the
-- requester's own newest live code, else the address's newest. So another client's later request
-- for the address does not displace the code the owner is typing, and every guess is still compared
-- with one code (the attempts count on it).
begin;
select plan(5);

select mcp_oauth.issue_sign_in_code('owner@example.com', '192.0.2.10', sha256('111111'), 600, 10, 100, 900, 0, 50);
select mcp_oauth.issue_sign_in_code('owner@example.com', '203.0.113.66', sha256('222222'), 600, 10, 100, 900, 0, 50);

select is((select error from app_auth.verify_otp('owner@example.com', sha256('000000'), '203.0.113.66', 5, 100, 900, 50, sha256('x'), 3600)),
  'wrong_code', 'a guess from the attacker''s client');
select is((select attempts from mcp_oauth.sign_in_codes where requested_by = '203.0.113.66'), 1, 'is compared with that client''s own code');
select is((select attempts from mcp_oauth.sign_in_codes where requested_by = '192.0.2.10'), 0, 'and the owner''s code is untouched');
select is((select error from app_auth.verify_otp('owner@example.com', sha256('111111'), '192.0.2.10', 5, 100, 900, 50, sha256('r1'), 3600)),
  null, 'the owner, from their client, signs in with their code though a later one exists');

-- From a client that asked for no code, the address's newest code is the one checked.
select mcp_oauth.issue_sign_in_code('roamer@example.com', '192.0.2.20', sha256('333333'), 600, 10, 100, 900, 0, 50);
select is((select error from app_auth.verify_otp('roamer@example.com', sha256('333333'), '198.51.100.30', 5, 100, 900, 50, sha256('r2'), 3600)),
  null, 'a person whose address changed since asking still signs in');

select * from finish();
rollback;
