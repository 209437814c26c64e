-- The in-app assistant's grant, once the person revoked it under /me/mcp-grants, is not made again by
-- the next chat (20261128000300_chat_approvals.sql): chat.assistant_grant answers 403
-- assistant_disabled until the person turns it on (p_enable), also after the revoked grant is purged.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.authenticate_as(:'alice');
select grant_id as first_grant from chat.assistant_grant('{events:read}', 'http://app.example/functions/v1/chat-with-assistant') \gset
select is(mcp_oauth.revoke_my_grant(:'first_grant'), true, 'alice revokes the assistant''s grant');

select throws_ok($$select chat.assistant_grant('{events:read}', 'http://app.example/functions/v1/chat-with-assistant')$$,
  'PT403', null, 'the next chat does not make a new one: 403');
select is((select count(*)::int from mcp_oauth.grants where revoked_at is null), 0, 'alice has no live grant');

select tests.clear_authentication();
delete from mcp_oauth.grants where id = :'first_grant';
select tests.authenticate_as(:'alice');
select throws_ok($$select chat.assistant_grant('{events:read}', 'http://app.example/functions/v1/chat-with-assistant')$$,
  'PT403', null, 'nor once the revoked grant is purged');

select grant_id as second_grant from chat.assistant_grant('{events:read}', 'http://app.example/functions/v1/chat-with-assistant', true) \gset
select isnt(:'second_grant'::core.object_id, :'first_grant'::core.object_id, 'turned on again, the assistant gets a new grant');
select is((chat.assistant_grant('{events:read}', 'http://app.example/functions/v1/chat-with-assistant')).grant_id, :'second_grant'::core.object_id,
  'which the next chats use');
select throws_ok('select 1 from chat.assistant_access', '42501', null, 'the person does not read the switch directly');

select * from finish();
rollback;
