-- A confirmation link is created only on the caller's own live grant, is claimed
-- for approval once (pending -> approving by a conditional update: a second claim is refused), can
-- be refused only while pending, expires, and is seen and used only by its person holding its token
-- (and polled only by the client that made it). The table is deny-by-default: RLS on, no policy, no
-- privilege; only the functions act, and only authenticated may call them.
begin;
select plan(31);

select tests.create_user('rita@example.com') as rita \gset
select tests.create_user('sam@example.com') as sam \gset
select tests.sign_in_to_oauth('rita@example.com');
select tests.approve_client('client-a', '{wallet:link}') as grant_id \gset

select tests.authenticate_as_person(:'rita', 'client-a');
select id as link from mcp_confirmations.create_confirmation('client-a', :'grant_id', 'wallet_link', '{"chainId": 1}', sha256('action'),
  sha256('binding'), sha256('token-1'), now() + interval '15 minutes') \gset
select ok(:'link'::text ~ '^[0-9a-f]{24}$', 'Rita creates a link on her live grant');
select throws_ok(format($$select * from mcp_confirmations.create_confirmation('client-b', %L, 'wallet_link', '{}', sha256('a'), sha256('b'),
  sha256('token-x'), now() + interval '1 minute')$$, :'grant_id'), 'PT401', 'the grant is not live', 'another client cannot use her grant');
select throws_ok(format($$select * from mcp_confirmations.create_confirmation('client-a', %L, 'wallet_link', '{}', sha256('a'), sha256('b'),
  sha256('token-x'), now() + interval '2 hours')$$, :'grant_id'), 'PT400', 'a confirmation expires within the hour', 'links expire within the hour');

-- Polling: the same person and client only.
select is((select status from mcp_confirmations.confirmation_status(:'link')), 'pending', 'client A polls its link: pending');
select tests.authenticate_as_person(:'rita', 'client-b');
select is_empty(format('select * from mcp_confirmations.confirmation_status(%L)', :'link'), 'another client of Rita does not see it');
select tests.authenticate_as_person(:'sam', 'client-a');
select is_empty(format('select * from mcp_confirmations.confirmation_status(%L)', :'link'), 'another person does not see it');

-- Opening: the token is needed, and another person learns only that it is not theirs.
select is((select mine from mcp_confirmations.open_confirmation(:'link', sha256('token-1'))), false, 'Sam holding the token: not his');
select is((select action from mcp_confirmations.open_confirmation(:'link', sha256('token-1'))), null, 'and he sees no action');
select throws_ok(format($$select * from mcp_confirmations.begin_approval(%L, sha256('token-1'))$$, :'link'), 'PT404', 'no such confirmation link',
  'Sam cannot claim Rita''s link');
select throws_ok(format($$select mcp_confirmations.refuse(%L, sha256('token-1'))$$, :'link'), 'PT404', 'no such confirmation link',
  'nor refuse it');
select tests.authenticate_as_person(:'rita', 'client-a');
select is_empty(format($$select * from mcp_confirmations.open_confirmation(%L, sha256('token-2'))$$, :'link'), 'a wrong token opens nothing');
select is((select mine from mcp_confirmations.open_confirmation(:'link', sha256('token-1'))), true, 'Rita with the token opens it');

-- Single use.
select is((select kind from mcp_confirmations.begin_approval(:'link', sha256('token-1'))), 'wallet_link', 'the first approval claims it');
select throws_ok(format($$select * from mcp_confirmations.begin_approval(%L, sha256('token-1'))$$, :'link'), 'PT409',
  'this confirmation link is approving', 'a second approval is refused');
select throws_ok(format($$select mcp_confirmations.refuse(%L, sha256('token-1'))$$, :'link'), 'PT409',
  'this confirmation link is approving', 'a claimed link cannot be refused');
select ok(mcp_confirmations.finish_approval(:'link', sha256('token-1'), 'approved', '{"result": {}}'), 'the approval finishes');
select is((select status from mcp_confirmations.confirmation_status(:'link')), 'approved', 'polled: approved');
select throws_ok(format($$select * from mcp_confirmations.begin_approval(%L, sha256('token-1'))$$, :'link'), 'PT409',
  'this confirmation link is approved', 'an approved link is used up');

-- Refusal, then expiry.
select id as link2 from mcp_confirmations.create_confirmation('client-a', :'grant_id', 'wallet_link', '{"chainId": 2}', sha256('action2'),
  sha256('binding'), sha256('token-2'), now() + interval '15 minutes') \gset
select is(mcp_confirmations.refuse(:'link2', sha256('token-2')), 'refused', 'Rita refuses a link');
select throws_ok(format($$select * from mcp_confirmations.begin_approval(%L, sha256('token-2'))$$, :'link2'), 'PT409',
  'this confirmation link is refused', 'a refused link cannot be approved');
select id as link3 from mcp_confirmations.create_confirmation('client-a', :'grant_id', 'wallet_link', '{"chainId": 3}', sha256('action3'),
  sha256('binding'), sha256('token-3'), now() + interval '15 minutes') \gset
select tests.clear_authentication();
update mcp_confirmations.confirmations set created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' where id = :'link3';
select tests.authenticate_as_person(:'rita', 'client-a');
select is((select status from mcp_confirmations.confirmation_status(:'link3')), 'expired', 'past its expiry a pending link reads expired');
select throws_ok(format($$select * from mcp_confirmations.begin_approval(%L, sha256('token-3'))$$, :'link3'), 'PT409',
  'this confirmation link is expired', 'an expired link cannot be approved');

-- A revoked grant: its pending links can no longer be approved.
select id as link4 from mcp_confirmations.create_confirmation('client-a', :'grant_id', 'wallet_link', '{"chainId": 4}', sha256('action4'),
  sha256('binding'), sha256('token-4'), now() + interval '15 minutes') \gset
select ok(mcp_oauth.revoke_my_grant(:'grant_id'), 'Rita revokes the assistant');
select throws_ok(format($$select * from mcp_confirmations.begin_approval(%L, sha256('token-4'))$$, :'link4'), 'PT409',
  'the assistant''s access has been revoked', 'a link of a revoked grant cannot be approved');
select throws_ok(format($$select * from mcp_confirmations.create_confirmation('client-a', %L, 'wallet_link', '{}', sha256('a'), sha256('b'),
  sha256('token-y'), now() + interval '1 minute')$$, :'grant_id'), 'PT401', 'the grant is not live', 'nor can it make new links');

-- A new link deletes the person's links decided or expired more than 30 days ago.
select tests.clear_authentication();
update mcp_confirmations.confirmations set created_at = now() - interval '40 days', expires_at = now() - interval '39 days',
  decided_at = now() - interval '39 days' where id = :'link2';
select tests.authenticate_as_person(:'rita', 'client-a');

-- At most 20 open links per person (the revoked grant's pending one counts until it expires, plus 19 here).
select tests.clear_authentication();
select tests.approve_client('client-c', '{wallet:link}', 'code-3') as grant_c \gset
select tests.authenticate_as_person(:'rita', 'client-c');
select count(*) from generate_series(1, 19) n, lateral mcp_confirmations.create_confirmation('client-c', :'grant_c', 'wallet_link',
  jsonb_build_object('chainId', n), sha256(n::text::bytea), sha256('binding'), sha256(('cap-' || n)::bytea), now() + interval '15 minutes');
select throws_ok(format($$select * from mcp_confirmations.create_confirmation('client-c', %L, 'wallet_link', '{}', sha256('a'), sha256('b'),
  sha256('token-21'), now() + interval '1 minute')$$, :'grant_c'), 'PT429', 'too many open confirmation links', 'the 21st open link is refused');
select tests.clear_authentication();
select is((select count(*)::integer from mcp_confirmations.confirmations where id = :'link2'), 0, 'the 40-day-old refused link is gone');
select is((select count(*)::integer from mcp_confirmations.confirmations where id = :'link3'), 1, 'the recently expired one is kept');

-- Deny by default.
select tests.authenticate_as_person(:'rita', 'client-a');
select throws_ok($$select * from mcp_confirmations.confirmations$$, '42501', null, 'authenticated cannot read the table');
select tests.clear_authentication();
select is((select count(*)::integer from pg_policies where schemaname = 'mcp_confirmations' and permissive = 'PERMISSIVE'), 0, 'no policy: only the functions act');
select is_empty($$select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'mcp_confirmations' and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('api_gateway', p.oid, 'execute'))$$,
  'neither anon nor api_gateway may call any of its functions');

select * from finish();
rollback;
