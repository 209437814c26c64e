-- 20261123001500_mcp_confirmations.sql: an approval claims its link for a lease of 3 minutes
-- (claimed_at). Past it, a link still approving (its process died between begin_approval and
-- finish_approval) reads failed with approval_interrupted and a message saying what to do, decided
-- when the lease ran out, in the status poll and on the page; it can be neither claimed nor refused
-- again, and a late finish_approval does not overwrite it. Within its lease a claim stays approving,
-- even past the link's expiry, and finishes. Time moves by setting claimed_at (and expires_at) back.
begin;
select plan(27);

select tests.create_user('rita@example.com') as rita \gset
select tests.sign_in_to_oauth('rita@example.com');
select tests.approve_client('client-a', '{wallet:link,sponsorship:write}') as grant_id \gset

-- The link's claim began `p_ago` ago (and, when given, its expiry passed `p_expired_ago` ago).
create function pg_temp.claimed_ago(p_link text, p_ago interval, p_expired_ago interval default null) returns void language sql as $$
  update mcp_confirmations.confirmations set claimed_at = now() - p_ago,
    created_at = least(created_at, now() - p_ago - interval '1 minute'),
    expires_at = coalesce(now() - p_expired_ago, expires_at)
  where id = p_link
$$;
create function pg_temp.link(p_kind text, p_token text) returns text language sql as $$
  select id from mcp_confirmations.create_confirmation('client-a', current_setting('t.grant'), p_kind, '{"chainId": 1}',
    sha256(p_token::bytea), sha256('binding'), sha256(p_token::bytea), now() + interval '15 minutes')
$$;
select set_config('t.grant', :'grant_id', true) is not null as set_grant \gset

-- A deposit's approval claims the link, then its process dies.
select tests.authenticate_as_person(:'rita', 'client-a');
select pg_temp.link('sponsored_deposit', 'deposit') as deposit \gset
select is((select kind from mcp_confirmations.begin_approval(:'deposit', sha256('deposit'))), 'sponsored_deposit', 'the approval claims the link');
select tests.clear_authentication();
select is((select claimed_at from mcp_confirmations.confirmations where id = :'deposit'), now(), 'the claim is stamped with its time');

select pg_temp.claimed_ago(:'deposit', interval '2 minutes 59 seconds');
select tests.authenticate_as_person(:'rita', 'client-a');
select is((select status from mcp_confirmations.confirmation_status(:'deposit')), 'approving', 'within its lease the link reads approving');
select is((select status from mcp_confirmations.open_confirmation(:'deposit', sha256('deposit'))), 'approving', 'on the page too');

select tests.clear_authentication();
select pg_temp.claimed_ago(:'deposit', interval '3 minutes');
select tests.authenticate_as_person(:'rita', 'client-a');
select is((select status from mcp_confirmations.confirmation_status(:'deposit')), 'failed', 'once the lease ran out it reads failed');
select is((select outcome -> 'error' ->> 'code' from mcp_confirmations.confirmation_status(:'deposit')), 'approval_interrupted',
  'with the stable code approval_interrupted');
select matches((select outcome -> 'error' ->> 'message' from mcp_confirmations.confirmation_status(:'deposit')),
  'interrupted.*may have been sent.*deposits/record.*new link', 'the message says the deposit may have been sent and what to do');
select is((select decided_at from mcp_confirmations.confirmation_status(:'deposit')), now(), 'decided when the lease ran out');
select is((select row(status, outcome)::text from mcp_confirmations.open_confirmation(:'deposit', sha256('deposit'))),
  (select row(status, outcome)::text from mcp_confirmations.confirmation_status(:'deposit')), 'the page reads the same');
select throws_ok(format($$select * from mcp_confirmations.begin_approval(%L, sha256('deposit'))$$, :'deposit'), 'PT409',
  'this confirmation link is failed', 'it cannot be claimed again');
select throws_ok(format($$select mcp_confirmations.refuse(%L, sha256('deposit'))$$, :'deposit'), 'PT409',
  'this confirmation link is failed', 'nor refused');

-- The process was only stalled: its late finish does not overwrite the failed state.
select is(mcp_confirmations.finish_approval(:'deposit', sha256('deposit'), 'approved', '{"result": {"late": true}}'), false,
  'a late finish is refused');
select is((select status || ' ' || (outcome -> 'error' ->> 'code') from mcp_confirmations.confirmation_status(:'deposit')),
  'failed approval_interrupted', 'the link still reads failed, approval_interrupted');
select tests.clear_authentication();
select is((select row(status, outcome)::text from mcp_confirmations.confirmations where id = :'deposit'), '(approving,)',
  'nothing of the late result was stored');

-- Within its lease a claim finishes, even past the link's own expiry (it was claimed before).
select tests.authenticate_as_person(:'rita', 'client-a');
select pg_temp.link('wallet_link', 'in-time') as in_time \gset
select is((select kind from mcp_confirmations.begin_approval(:'in_time', sha256('in-time'))), 'wallet_link', 'another link is claimed');
select tests.clear_authentication();
select pg_temp.claimed_ago(:'in_time', interval '2 minutes 30 seconds', interval '1 minute');
select tests.authenticate_as_person(:'rita', 'client-a');
select is((select status from mcp_confirmations.confirmation_status(:'in_time')), 'approving',
  'claimed before its expiry and within its lease: approving, not expired');
select is(mcp_confirmations.finish_approval(:'in_time', sha256('in-time'), 'approved', '{"result": {}}'), true, 'its finish lands');
select is((select status from mcp_confirmations.confirmation_status(:'in_time')), 'approved', 'and it reads approved');
select tests.clear_authentication();
select pg_temp.claimed_ago(:'in_time', interval '1 hour');
select tests.authenticate_as_person(:'rita', 'client-a');
select is((select status from mcp_confirmations.confirmation_status(:'in_time')), 'approved', 'a finished approval never becomes interrupted');

-- Abandoned past both its lease and its expiry: failed (the action may have run), not expired.
select pg_temp.link('wallet_link', 'abandoned') as abandoned \gset
select is((select kind from mcp_confirmations.begin_approval(:'abandoned', sha256('abandoned'))), 'wallet_link', 'a third link is claimed');
select tests.clear_authentication();
select pg_temp.claimed_ago(:'abandoned', interval '10 minutes', interval '5 minutes');
select tests.authenticate_as_person(:'rita', 'client-a');
select is((select status from mcp_confirmations.confirmation_status(:'abandoned')), 'failed', 'abandoned past its expiry: failed, not expired');
select matches((select outcome -> 'error' ->> 'message' from mcp_confirmations.confirmation_status(:'abandoned')),
  'wallet may have been linked: check your linked wallets', 'a wallet link''s message says what to check');

-- A pending link past its expiry is still expired (unchanged), and a claim always has its time.
select pg_temp.link('sponsorship_settings', 'pending') as pending \gset
select tests.clear_authentication();
update mcp_confirmations.confirmations set created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' where id = :'pending';
select tests.authenticate_as_person(:'rita', 'client-a');
select is((select status from mcp_confirmations.confirmation_status(:'pending')), 'expired', 'a pending link past its expiry reads expired');
select tests.clear_authentication();
select throws_ok(format($$update mcp_confirmations.confirmations set status = 'approving' where id = %L$$, :'pending'), '23514', null,
  'an approving link without its claim time is refused');

-- The helpers are the definer functions' own.
select ok(not has_function_privilege('authenticated', 'mcp_confirmations.approval_lease()', 'execute')
  and not has_function_privilege('authenticated', 'mcp_confirmations.effective_state(mcp_confirmations.confirmations)', 'execute'),
  'authenticated calls neither approval_lease nor effective_state');
select hasnt_function('mcp_confirmations', 'effective_status', 'effective_status, which read an abandoned claim as expired, is gone');
select is((select claimed_at from mcp_confirmations.confirmations where id = :'pending'), null, 'a link never claimed has no claim time');

select * from finish();
rollback;
