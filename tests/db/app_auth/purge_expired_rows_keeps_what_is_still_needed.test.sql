-- The hourly purge (as service_jobs): a session goes 30 days after it ended, or 30 days after its
-- newest refresh token expired; a live session's rotated tokens go 30 days after their own expiry.
-- Anything younger stays: reuse detection needs rotated tokens while they could be presented.
begin;
select plan(8);

-- pgTAP lives in `extensions`, which service_jobs may not use; the rollback takes the grant back.
grant usage on schema extensions to service_jobs;

select tests.create_user('ana@example.com') as ana \gset
select session_id as live from app_auth.start_session(:'ana', 'admin', sha256('live-1'), 3600) \gset
select app_auth.refresh_session(sha256('live-1'), sha256('live-2'), 3600);
select app_auth.refresh_session(sha256('live-2'), sha256('live-3'), 3600);
update app_auth.refresh_tokens set expires_at = now() - interval '31 days' where token_hash = sha256('live-1');
update app_auth.refresh_tokens set expires_at = now() - interval '29 days' where token_hash = sha256('live-2');

select session_id as ended_long_ago from app_auth.start_session(:'ana', 'admin', sha256('e1'), 3600) \gset
update app_auth.sessions set ended_at = now() - interval '31 days', ended_reason = 'sign_out' where id = :'ended_long_ago';
select session_id as ended_lately from app_auth.start_session(:'ana', 'admin', sha256('e2'), 3600) \gset
update app_auth.sessions set ended_at = now() - interval '29 days', ended_reason = 'sign_out' where id = :'ended_lately';
select session_id as idle_long from app_auth.start_session(:'ana', 'admin', sha256('i1'), 3600) \gset
update app_auth.refresh_tokens set expires_at = now() - interval '31 days' where token_hash = sha256('i1');
select session_id as idle_lately from app_auth.start_session(:'ana', 'admin', sha256('i2'), 3600) \gset
update app_auth.refresh_tokens set expires_at = now() - interval '29 days' where token_hash = sha256('i2');

set local role service_jobs;
select is(app_auth.purge_expired_rows(), 3, 'two sessions and one rotated token go');
select is(app_auth.purge_expired_rows(), 0, 'a second run finds nothing');
reset role;

select ok(not exists (select from app_auth.sessions where id in (:'ended_long_ago', :'idle_long')),
  'sessions ended, or idle past their newest token, over 30 days ago go with their tokens');
select ok(not exists (select from app_auth.refresh_tokens where session_id in (:'ended_long_ago', :'idle_long')), 'cascading to their tokens');
select is((select count(*)::int from app_auth.sessions where id in (:'ended_lately', :'idle_lately', :'live')), 3, 'younger ones stay');
select ok(not exists (select from app_auth.refresh_tokens where token_hash = sha256('live-1')), 'a rotated token 30 days past its expiry goes');
select ok(exists (select from app_auth.refresh_tokens where token_hash = sha256('live-2')), 'a younger rotated token stays, for reuse detection');
select ok(exists (select from app_auth.refresh_tokens where token_hash = sha256('live-3')), 'the live token stays');

select * from finish();
rollback;
