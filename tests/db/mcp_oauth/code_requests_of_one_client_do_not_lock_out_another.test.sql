-- Asking for sign-in codes never locks another person out: sends are counted per (address, IP) and
-- per IP, never per address alone, so an attacker's requests for someone's address cost that person
-- at most the address's resend interval. The owner, from their own client, then gets a code, and the
-- attacker's later codes do not end it.
begin;
select plan(8);

select tests.create_user('victim@example.com') as victim \gset

-- Codes are dated by the transaction's clock; this moves the address's codes back past the interval.
create function pg_temp.resend_interval_passes() returns void language sql as $$
  update mcp_oauth.sign_in_codes set created_at = created_at - interval '61 seconds' where email = 'victim@example.com'
$$;
-- The attacker (203.0.113.66) asks for a code for the victim's address, 3 per 15 minutes at most.
create function pg_temp.attacker_asks(p_code text) returns core.object_id language sql as $$
  select mcp_oauth.issue_sign_in_code('victim@example.com', '203.0.113.66', sha256(p_code::bytea), 600, 3, 100, 900, 60, 50)
$$;

select pg_temp.attacker_asks('attack-1');
select throws_ok($$select pg_temp.attacker_asks('attack-2')$$, 'PT429', 'a sign-in code was sent to this address moments ago',
  'within the interval the attacker gets no second code');
select pg_temp.resend_interval_passes();
select pg_temp.attacker_asks('attack-3');
select pg_temp.resend_interval_passes();
select pg_temp.attacker_asks('attack-4');
select pg_temp.resend_interval_passes();
select throws_ok($$select pg_temp.attacker_asks('attack-5')$$, 'PT429', null,
  'the attacker''s codes for the address are capped per (address, IP)');
select is((select count(*)::integer from mcp_oauth.sign_in_codes where email = 'victim@example.com'), 3, 'three were sent');

-- The owner, from their own client, still gets a code, and signs in with it.
select lives_ok($$select mcp_oauth.issue_sign_in_code('victim@example.com', '192.0.2.10', sha256('mine'::bytea), 600, 3, 100, 900, 60, 50)$$,
  'the owner gets a code from their own client');
select pg_temp.resend_interval_passes();
-- The attacker, from another IP now, asks again: a new code is sent, the owner's is not ended by it.
select lives_ok($$select mcp_oauth.issue_sign_in_code('victim@example.com', '203.0.113.67', sha256('attack-6'::bytea), 600, 3, 100, 900, 60, 50)$$,
  'an attacker''s code after the interval');
select is((select count(*)::integer from mcp_oauth.sign_in_codes
           where email = 'victim@example.com' and requested_by = '192.0.2.10' and expires_at > now()), 1,
  'does not end the owner''s pending code');
select ok((select error is null and user_id = :'victim'
           from app_auth.verify_otp('victim@example.com', sha256('mine'::bytea), '192.0.2.10', 5, 100, 900, 50, sha256('r'::bytea), 3600)),
  'the owner signs in with their code');
select is((select error from app_auth.verify_otp('victim@example.com', sha256('attack-6'::bytea), '198.51.100.1', 5, 100, 900, 50, sha256('r2'::bytea), 3600)),
  null, 'and the newest code, mailed to the owner, works too (from any client)');

select * from finish();
rollback;
