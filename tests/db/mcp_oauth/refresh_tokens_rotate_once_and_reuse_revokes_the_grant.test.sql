-- A refresh token is exchanged once (rotation). Using it again (a stolen copy, or the
-- loser of two concurrent uses, which waits on the token's row lock and then finds it rotated) is
-- a reuse: the whole grant is revoked, the new token too, and access_allowed refuses its access
-- tokens. Resource and client are pinned; an expired token is refused.
begin;
select plan(15);

select tests.create_user('rita@example.com') as rita \gset

select tests.sign_in_to_oauth('rita@example.com', 'session');
select mcp_oauth.approve(sha256('session'), 'client-a', 'Client A', 'http://127.0.0.1:1234/cb', '{events:read}',
  'http://api.test/mcp', sha256('code-1'), repeat('a', 43), 60) as grant_id \gset
select error, scopes from mcp_oauth.redeem_authorization_code(sha256('code-1'), 'client-a', 'http://127.0.0.1:1234/cb',
  repeat('a', 43), 'http://api.test/mcp', sha256('refresh-1'), 3600);

select is((select error from mcp_oauth.rotate_refresh_token(sha256('refresh-1'), 'client-b', null, null, sha256('x'), 3600)),
  'invalid_grant', 'another client cannot use the token');
select is((select error from mcp_oauth.rotate_refresh_token(sha256('refresh-1'), 'client-a', 'http://other.test/mcp', null, sha256('x'), 3600)),
  'invalid_target', 'another resource is invalid_target');
select is((select error from mcp_oauth.rotate_refresh_token(sha256('refresh-1'), 'client-a', null, '{events:write}', sha256('x'), 3600)),
  'invalid_scope', 'a scope outside the grant is invalid_scope');
select is((select error from mcp_oauth.rotate_refresh_token(sha256('refresh-1'), 'client-a', 'http://api.test/mcp', null, sha256('refresh-2'), 3600)),
  null, 'the first use rotates');
select set_config('tests.grant_id', :'grant_id', true), set_config('tests.rita', :'rita', true);
select lives_ok($$select mcp_oauth.access_allowed(current_setting('tests.grant_id'), gen_random_uuid(), 100, current_setting('tests.rita'), 'client-a', '{events:read}')$$,
  'access tokens of the live grant are allowed');
select is((select error from mcp_oauth.rotate_refresh_token(sha256('refresh-2'), 'client-a', null, null, sha256('refresh-3'), 3600)),
  null, 'the new token rotates in turn');

-- The first token again: a reuse.
select is((select error from mcp_oauth.rotate_refresh_token(sha256('refresh-1'), 'client-a', null, null, sha256('refresh-4'), 3600)),
  'invalid_grant', 'reusing a rotated token is invalid_grant');
select is((select revoked_reason from mcp_oauth.grants where id = :'grant_id'), 'refresh_token_reuse', 'the reuse revoked the grant');
select is((select error from mcp_oauth.rotate_refresh_token(sha256('refresh-3'), 'client-a', null, null, sha256('refresh-5'), 3600)),
  'invalid_grant', 'the newest token of the family is dead too');
select throws_ok($$select mcp_oauth.access_allowed(current_setting('tests.grant_id'), gen_random_uuid(), 100, current_setting('tests.rita'), 'client-a', '{events:read}')$$,
  'PT401', 'the access token has been revoked', 'access tokens of the revoked grant are refused');

-- Expiry.
select mcp_oauth.approve(sha256('session'), 'client-a', 'Client A', 'http://127.0.0.1:1234/cb', '{events:read}',
  'http://api.test/mcp', sha256('code-2'), repeat('a', 43), 60) as grant2 \gset
select error from mcp_oauth.redeem_authorization_code(sha256('code-2'), 'client-a', 'http://127.0.0.1:1234/cb',
  repeat('a', 43), null, sha256('refresh-old'), 3600);
update mcp_oauth.refresh_tokens set expires_at = now() - interval '1 second' where token_hash = sha256('refresh-old');
select is((select error from mcp_oauth.rotate_refresh_token(sha256('refresh-old'), 'client-a', null, null, sha256('y'), 3600)),
  'invalid_grant', 'an expired token is refused');
select is((select revoked_at from mcp_oauth.grants where id = :'grant2'), null, 'an expired token is no reuse: its grant lives');

-- Only the gateway may rotate.
select ok(has_function_privilege('api_gateway', 'mcp_oauth.rotate_refresh_token(bytea, text, text, text[], bytea, integer)', 'execute'),
  'api_gateway may rotate');
select tests.authenticate_as(:'rita');
select throws_ok($$select * from mcp_oauth.rotate_refresh_token(sha256('refresh-1'), 'client-a', null, null, sha256('z'), 3600)$$,
  '42501', null, 'authenticated cannot call rotate_refresh_token');
select throws_ok($$select * from mcp_oauth.refresh_tokens$$, '42501', null, 'authenticated cannot read refresh tokens');

select * from finish();
rollback;
