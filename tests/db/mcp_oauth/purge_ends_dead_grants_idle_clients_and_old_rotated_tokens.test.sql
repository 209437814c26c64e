-- What the OAuth purge job (mcp_oauth.purge_expired_rows; 20261124000300_mcp_oauth_purge_grants_clients.sql)
-- ends beyond expired codes and sessions: grants 30 days after they were revoked or their last
-- refresh token expired, registered clients with no grant left 90 days after registering, and each
-- rotated refresh token 30 days after its own expiry, even in a live grant. What may still be used
-- stays: a recently revoked or ended grant, a grant whose confirmation links are kept, a new client,
-- a client with a grant, and a rotated token not yet expired, whose replay still revokes its grant.
-- The audit of tool calls names grants without a foreign key and outlives them.
begin;
select plan(10);

select tests.create_user('rita@example.com') as rita \gset

insert into mcp_oauth.clients (client_id, kind, client_name, redirect_uris, created_at) values
  ('client-revoked-long-ago', 'registered', 'Gone', '{http://127.0.0.1/cb}', now() - interval '100 days'),
  ('client-never-approved', 'registered', 'Idle', '{http://127.0.0.1/cb}', now() - interval '91 days'),
  ('client-new', 'registered', 'New', '{http://127.0.0.1/cb}', now() - interval '89 days'),
  ('client-revoked-lately', 'registered', 'Recent', '{http://127.0.0.1/cb}', now() - interval '200 days'),
  ('client-live', 'registered', 'Live', '{http://127.0.0.1/cb}', now() - interval '400 days');

-- p_revoked_ago null: never revoked.
create function pg_temp.grant_of(p_id text, p_user text, p_client text, p_created_ago interval, p_revoked_ago interval)
  returns void language sql as $$
    insert into mcp_oauth.grants (id, user_id, client_id, client_name, redirect_uri, scopes, resource, created_at,
        revoked_at, revoked_reason)
      values (p_id, p_user, p_client, 'Client', 'http://127.0.0.1/cb', '{events:read}', 'http://api.test/mcp',
        now() - p_created_ago, now() - p_revoked_ago, case when p_revoked_ago is not null then 'user' end)
  $$;
select pg_temp.grant_of('b00000000000000000000001', :'rita', 'client-revoked-long-ago', '100 days', '31 days');
select pg_temp.grant_of('b00000000000000000000002', :'rita', 'client-revoked-lately', '100 days', '10 days');
select pg_temp.grant_of('b00000000000000000000003', :'rita', 'client-pre-registered', '100 days', null);
select pg_temp.grant_of('b00000000000000000000004', :'rita', 'client-pre-registered', '100 days', null);
select pg_temp.grant_of('b00000000000000000000005', :'rita', 'client-pre-registered', '31 days', null);
select pg_temp.grant_of('b00000000000000000000006', :'rita', 'client-pre-registered', '100 days', '40 days');
select pg_temp.grant_of('b00000000000000000000007', :'rita', 'client-live', '100 days', null);

--   grant 1, revoked 31 days ago: goes with its still unexpired token;
--   grant 3, its last token expired 31 days ago: goes; grant 4, 10 days ago: stays;
--   grant 5, approved 31 days ago and never redeemed (no token, its code purged long ago): goes;
--   grant 7, live: its rotated token expired 31 days ago goes, the rotated one that has not expired stays.
insert into mcp_oauth.refresh_tokens (token_hash, grant_id, expires_at, rotated_at, created_at) values
  (sha256('g1-newest'), 'b00000000000000000000001', now() + interval '5 days', null, now() - interval '25 days'),
  (sha256('g3-newest'), 'b00000000000000000000003', now() - interval '31 days', null, now() - interval '61 days'),
  (sha256('g4-newest'), 'b00000000000000000000004', now() - interval '10 days', null, now() - interval '40 days'),
  (sha256('g7-rotated-expired'), 'b00000000000000000000007', now() - interval '31 days', now() - interval '60 days', now() - interval '61 days'),
  (sha256('g7-rotated-live'), 'b00000000000000000000007', now() + interval '5 days', now() - interval '1 day', now() - interval '25 days'),
  (sha256('g7-newest'), 'b00000000000000000000007', now() + interval '29 days', null, now() - interval '1 day');

-- Grant 6, revoked 40 days ago, keeps a link decided 20 days ago (links go 30 days after their decision).
insert into mcp_confirmations.confirmations (user_id, client_id, grant_id, kind, action, action_hash, binding, token_hash,
    status, outcome, created_at, expires_at, decided_at)
  values (:'rita', 'client-pre-registered', 'b00000000000000000000006', 'wallet_link', '{"chainId": 1}', sha256('action'),
    sha256('binding'), sha256('link'), 'refused', '{"done": true}', now() - interval '41 days',
    now() - interval '41 days' + interval '15 minutes', now() - interval '20 days');

insert into mcp.tool_calls (user_id, endpoint, client_id, grant_id, tool, arguments, outcome, duration_ms, request_id)
  values (:'rita', 'public', 'client-revoked-long-ago', 'b00000000000000000000001', 'list_events', '{}', 'ok', 1, 'call-of-grant-1');

grant usage on schema extensions to service_jobs; -- pgTAP, for the assertions made as service_jobs
set local role service_jobs;
-- Two refresh tokens, three grants (grant 1's token by cascade, uncounted), two clients.
select is(mcp_oauth.purge_expired_rows(), 7, 'the job deletes the seven rows past their margins');
select is(mcp_oauth.purge_expired_rows(), 0, 'a second run finds nothing: a client goes in the run its last grant does');
reset role;

select set_eq($$select id::text from mcp_oauth.grants$$,
  array['b00000000000000000000002', 'b00000000000000000000004', 'b00000000000000000000006', 'b00000000000000000000007'],
  'grants: revoked 31 days ago, ended 31 days ago and never redeemed in 31 days go; revoked or ended 10 days ago, '
    || 'with a confirmation link still kept, and live stay');
select set_eq($$select client_id from mcp_oauth.clients$$,
  array['client-new', 'client-revoked-lately', 'client-live'],
  'registered clients: with no grant left and registered over 90 days ago they go; newer ones and those with a grant stay');
select set_eq($$select token_hash from mcp_oauth.refresh_tokens$$,
  $$values (sha256('g4-newest')), (sha256('g7-rotated-live')), (sha256('g7-newest'))$$,
  'refresh tokens: a rotated one goes 30 days after its own expiry though its grant lives; a revoked grant''s go with it');
select is((select count(*)::int from mcp_confirmations.confirmations), 1, 'the kept grant''s confirmation link is still there');
select is((select grant_id from mcp.tool_calls where request_id = 'call-of-grant-1'), 'b00000000000000000000001',
  'the audit record of a purged grant stays');

-- Reuse detection: a purged rotated token is only refused; one that has not expired still ends its grant.
select is((select error from mcp_oauth.rotate_refresh_token(sha256('g7-rotated-expired'), 'client-live', null, null, sha256('x1'), 3600)),
  'invalid_grant', 'the purged rotated token is refused');
select is((select error from mcp_oauth.rotate_refresh_token(sha256('g7-rotated-live'), 'client-live', null, null, sha256('x2'), 3600)),
  'invalid_grant', 'the kept rotated token is refused');
select is((select revoked_reason from mcp_oauth.grants where id = 'b00000000000000000000007'), 'refresh_token_reuse',
  'and its replay revokes the grant');

select * from finish();
rollback;
