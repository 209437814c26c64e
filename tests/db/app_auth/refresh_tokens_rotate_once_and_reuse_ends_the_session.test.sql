-- A refresh token is exchanged once (rotation). Presenting it again (a stolen copy, or the loser of
-- two concurrent uses, which waits on the token's row lock and then finds it rotated) is a reuse:
-- the session ends, and its newest token dies with it. Expired tokens and ended sessions refresh
-- nothing, without counting as a reuse.
begin;
select plan(10);

select tests.create_user('rita@example.com') as rita \gset
select session_id from app_auth.start_session(:'rita', 'admin', sha256('refresh-1'), 3600) \gset

select is((select error from app_auth.refresh_session(sha256('unknown'), sha256('x'), 3600)),
  'refresh_token_not_found', 'an unknown token refreshes nothing');
select is((select session_id from app_auth.refresh_session(sha256('refresh-1'), sha256('refresh-2'), 3600)),
  :'session_id'::uuid, 'the first use rotates, in the same session');
select ok((select rotated_at is not null from app_auth.refresh_tokens where token_hash = sha256('refresh-1')), 'the used token is marked rotated');
select is((select error from app_auth.refresh_session(sha256('refresh-2'), sha256('refresh-3'), 3600)),
  null, 'the new token rotates in turn');

select is((select error from app_auth.refresh_session(sha256('refresh-1'), sha256('refresh-4'), 3600)),
  'refresh_token_already_used', 'reusing a rotated token is refresh_token_already_used');
select is((select ended_reason from app_auth.sessions where id = :'session_id'), 'refresh_token_reuse', 'and ends the session');
select is((select error from app_auth.refresh_session(sha256('refresh-3'), sha256('refresh-5'), 3600)),
  'refresh_token_not_found', 'the newest token of the session is dead too');
select is((select error from app_auth.live_session(:'session_id')), 'session_not_found', 'the session is no longer live');

select session_id as second from app_auth.start_session(:'rita', 'admin', sha256('old'), 3600) \gset
update app_auth.refresh_tokens set expires_at = now() - interval '1 second' where token_hash = sha256('old');
select is((select error from app_auth.refresh_session(sha256('old'), sha256('y'), 3600)),
  'refresh_token_not_found', 'an expired token is refused');
select is((select ended_at from app_auth.sessions where id = :'second'), null, 'an expired token is no reuse: its session lives');

select * from finish();
rollback;
