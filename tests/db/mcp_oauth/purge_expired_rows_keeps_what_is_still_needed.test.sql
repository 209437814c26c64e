-- The purge job of the OAuth server's rows (mcp_oauth.purge_expired_rows, run by pg_cron as
-- service_jobs; 20261123001400_mcp_oauth.sql). Sign-in codes, browser sessions, authorization
-- codes, revoked access tokens and cached metadata documents go a day after they expired; refresh
-- tokens 30 days after they expired, never earlier: a rotated token expired within that margin stays,
-- so replaying it still revokes the grant. Only service_jobs may run it, and it reaches no table on
-- its own. (Grants and registered clients: purge_ends_dead_grants_idle_clients_and_old_rotated_tokens.)
begin;
select plan(17);

-- pgTAP lives in `extensions`, which service_jobs may not use; the rollback takes the grant back.
grant usage on schema extensions to service_jobs;

select tests.create_user('rita@example.com') as rita \gset
insert into mcp_oauth.grants (id, user_id, client_id, client_name, redirect_uri, scopes, resource) values
  ('a00000000000000000000001', :'rita', 'client-a', 'Client A', 'http://127.0.0.1/cb', '{events:read}', 'http://api.test/mcp'),
  ('a00000000000000000000002', :'rita', 'client-a', 'Client A', 'http://127.0.0.1/cb', '{events:read}', 'http://api.test/mcp'),
  ('a00000000000000000000003', :'rita', 'client-a', 'Client A', 'http://127.0.0.1/cb', '{events:read}', 'http://api.test/mcp');

-- Sign-in codes: expired two days ago (goes), an hour ago (stays: within the day's margin), live.
insert into mcp_oauth.sign_in_codes (email, code_hash, expires_at, created_at) values
  ('old@example.com', sha256('c1'), now() - interval '2 days', now() - interval '2 days 10 minutes'),
  ('recent@example.com', sha256('c2'), now() - interval '1 hour', now() - interval '70 minutes'),
  ('live@example.com', sha256('c3'), now() + interval '10 minutes', now());
insert into mcp_oauth.browser_sessions (token_hash, user_id, expires_at) values
  (sha256('session-old'), :'rita', now() - interval '2 days'),
  (sha256('session-recent'), :'rita', now() - interval '1 hour'),
  (sha256('session-live'), :'rita', now() + interval '1 day');
insert into mcp_oauth.authorization_codes (code_hash, grant_id, code_challenge, expires_at, consumed_at) values
  (sha256('code-old'), 'a00000000000000000000001', repeat('a', 43), now() - interval '2 days', now() - interval '2 days 1 minute'),
  (sha256('code-recent'), 'a00000000000000000000002', repeat('a', 43), now() - interval '1 hour', now() - interval '61 minutes');
insert into mcp_oauth.revoked_access_tokens (jti, grant_id, expires_at) values
  ('00000000-0000-4000-8000-000000000001', 'a00000000000000000000001', now() - interval '2 days'),
  ('00000000-0000-4000-8000-000000000002', 'a00000000000000000000002', now() - interval '1 hour'),
  ('00000000-0000-4000-8000-000000000003', 'a00000000000000000000002', now() + interval '5 minutes');
insert into mcp_oauth.clients (client_id, kind, client_name, redirect_uris, expires_at, created_at) values
  ('https://old.example/client.json', 'metadata_document', 'Old', '{https://old.example/cb}', now() - interval '2 days', now() - interval '3 days'),
  ('https://recent.example/client.json', 'metadata_document', 'Recent', '{https://recent.example/cb}', now() - interval '1 hour', now() - interval '2 hours'),
  ('client-a', 'registered', 'Client A', '{http://127.0.0.1/cb}', null, now() - interval '400 days');

-- Refresh tokens, one family per grant:
--   grant 1: ended long ago (newest expired 31 days ago): both rows go;
--   grant 2: alive (newest expires in 10 days): the rotated token, expired 20 days ago, stays;
--   grant 3: ended 10 days ago: stays for the 30 days' margin.
insert into mcp_oauth.refresh_tokens (token_hash, grant_id, expires_at, rotated_at, created_at) values
  (sha256('r1-rotated'), 'a00000000000000000000001', now() - interval '60 days', now() - interval '61 days', now() - interval '90 days'),
  (sha256('r1-newest'), 'a00000000000000000000001', now() - interval '31 days', null, now() - interval '61 days'),
  (sha256('r2-rotated'), 'a00000000000000000000002', now() - interval '20 days', now() - interval '20 days', now() - interval '50 days'),
  (sha256('r2-newest'), 'a00000000000000000000002', now() + interval '10 days', null, now() - interval '20 days'),
  (sha256('r3-newest'), 'a00000000000000000000003', now() - interval '10 days', null, now() - interval '40 days');

set local role service_jobs;
select is(mcp_oauth.purge_expired_rows(), 7, 'the job deletes the seven rows past their margins');
select is(mcp_oauth.purge_expired_rows(), 0, 'a second run finds nothing');
reset role;

select set_eq($$select email from mcp_oauth.sign_in_codes$$, array['recent@example.com', 'live@example.com'],
  'sign-in codes: the one expired two days ago goes, the recently expired and the live one stay');
select set_eq($$select token_hash from mcp_oauth.browser_sessions$$,
  $$values (sha256('session-recent')), (sha256('session-live'))$$,
  'browser sessions: likewise');
select set_eq($$select code_hash from mcp_oauth.authorization_codes$$, $$values (sha256('code-recent'))$$,
  'authorization codes: the one expired two days ago goes');
select set_eq($$select jti::text from mcp_oauth.revoked_access_tokens$$,
  array['00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003'],
  'revoked access tokens: listed until a day after they would have expired');
select set_eq($$select client_id from mcp_oauth.clients$$,
  array['https://recent.example/client.json', 'client-a'],
  'clients: an expired cached metadata document goes, a registered client with grants stays');
select set_eq($$select token_hash from mcp_oauth.refresh_tokens$$,
  $$values (sha256('r2-rotated')), (sha256('r2-newest')), (sha256('r3-newest'))$$,
  'refresh tokens: each goes 30 days after it expired; a rotated one expired within the margin stays');

-- The rotated token kept for reuse detection still does its work: replaying it revokes the grant.
select is((select error from mcp_oauth.rotate_refresh_token(sha256('r2-rotated'), 'client-a', null, null, sha256('r2-thief'), 3600)),
  'invalid_grant', 'replaying the expired rotated token of a live grant is refused');
select is((select revoked_reason from mcp_oauth.grants where id = 'a00000000000000000000002'), 'refresh_token_reuse',
  'and revokes the grant');
select is((select error from mcp_oauth.rotate_refresh_token(sha256('r2-newest'), 'client-a', null, null, sha256('r2-next'), 3600)),
  'invalid_grant', 'so the newest token of the family no longer rotates');

-- The job role: it runs the function, and reaches no row on its own.
select is(
  (select p.prosecdef and p.proconfig @> array['search_path=""'] from pg_proc p
   where p.oid = 'mcp_oauth.purge_expired_rows()'::regprocedure),
  true, 'the function is security definer with an empty search_path');
set local role service_jobs;
select throws_ok($$select count(*) from mcp_oauth.refresh_tokens$$, '42501', null, 'service_jobs reads no refresh token itself');
select throws_ok($$delete from mcp_oauth.sign_in_codes$$, '42501', null, 'nor deletes a sign-in code itself');
select throws_ok($$delete from mcp_oauth.browser_sessions$$, '42501', null, 'nor a browser session');
reset role;

-- Nobody else may run it.
select is(tests.roles_executing('mcp_oauth.purge_expired_rows()'), '{service_jobs}'::text[], 'service_jobs may run the job; anon, authenticated, api_gateway, service_role and PUBLIC may not');
select tests.authenticate_as(:'rita');
select throws_ok($$select mcp_oauth.purge_expired_rows()$$, '42501', null, 'a signed-in person cannot call it');
select tests.clear_authentication();

select * from finish();
rollback;
