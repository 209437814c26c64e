-- Sign-out with a session's access token: `local` ends that session, `others` the person's other
-- sessions, `global` all of them; never another person's. A session that already ended signs
-- nobody out (its access token may not have expired yet).
begin;
select plan(8);

select tests.create_user('ana@example.com') as ana \gset
select tests.create_user('ben@example.com') as ben \gset
select session_id as a1 from app_auth.start_session(:'ana', 'admin', sha256('a1'), 3600) \gset
select session_id as a2 from app_auth.start_session(:'ana', 'admin', sha256('a2'), 3600) \gset
select session_id as a3 from app_auth.start_session(:'ana', 'admin', sha256('a3'), 3600) \gset
select session_id as b1 from app_auth.start_session(:'ben', 'admin', sha256('b1'), 3600) \gset

select is(app_auth.end_sessions(:'a1', 'local'), 1, 'local ends one session');
select is((select ended_reason from app_auth.sessions where id = :'a1'), 'sign_out', 'this one, as a sign-out');
select is(app_auth.end_sessions(:'a1', 'global'), 0, 'an ended session signs nobody out');
select is((select error from app_auth.refresh_session(sha256('a1'), sha256('x'), 3600)), 'refresh_token_not_found',
  'its refresh token no longer refreshes');

select is(app_auth.end_sessions(:'a2', 'others'), 1, 'others ends the other live sessions');
select is((select array_agg(id order by created_at) from app_auth.sessions where user_id = :'ana' and ended_at is null), array[:'a2'::uuid],
  'keeping this one');

select is(app_auth.end_sessions(:'a2', 'global'), 1, 'global ends every live session of the person');
select is((select ended_at from app_auth.sessions where id = :'b1'), null, 'and never another person''s');

select * from finish();
rollback;
