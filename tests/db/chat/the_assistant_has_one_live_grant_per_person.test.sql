-- The in-app assistant's grant (20261125000600_chat_assistant.sql): one live grant per person for
-- the client eventhub-app-assistant, made on first use, reused (its scopes brought up to date), and
-- replaced once the person revoked it and turned the assistant on again (20261128000300_chat_approvals.sql);
-- never another person's.
begin;
select plan(8);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');
select grant_id as first_grant, client_id from chat.assistant_grant('{events:read}', 'http://app.example/functions/v1/chat-with-assistant') \gset
select is(:'client_id'::text, 'eventhub-app-assistant', 'the grant is the in-app assistant''s client');
select is((select count(*)::int from mcp_oauth.grants), 1, 'alice now has one grant');

select is((chat.assistant_grant('{events:read,events:write}', 'http://app.example/functions/v1/chat-with-assistant')).grant_id, :'first_grant'::core.object_id,
  'the next chat reuses it');
select is((select scopes from mcp_oauth.grants), '{events:read,events:write}'::text[], 'with the scopes of now');

select is(mcp_oauth.revoke_my_grant(:'first_grant'), true, 'alice revokes it on her grants page');
select isnt((chat.assistant_grant('{events:read}', 'http://app.example/functions/v1/chat-with-assistant', true)).grant_id, :'first_grant'::core.object_id,
  'turned on again, the assistant gets a new grant rather than using the revoked one');

select tests.authenticate_as(:'bob');
select isnt((chat.assistant_grant('{events:read}', 'http://app.example/functions/v1/chat-with-assistant')).grant_id, :'first_grant'::core.object_id,
  'bob gets a grant of his own');

select tests.authenticate_as_anon();
select throws_ok($$select chat.assistant_grant('{events:read}', 'x')$$, '42501', null, 'anon cannot call it');

select * from finish();
rollback;
