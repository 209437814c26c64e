-- The MCP audit (20261123001300_mcp.sql): a tool call is recorded for the caller of the transaction,
-- with the API key taken from its claims (never from the caller); each user reads their own records
-- only; nobody may change or delete one.
begin;
select plan(8);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_api_key(:'alice', 'sk_alice000_' || repeat('a', 43)) as alice_key \gset

-- Alice calls with her key: enter its scope as the gateway does.
select core.enter_api_key_scope(tests.api_key_hash('sk_alice000_' || repeat('a', 43)), '{}') is not null as entered \gset
select ok(mcp.record_tool_call('backend', 'get_me', '{"a": 1}', 'ok', null, 200, 12, 'req-1') > 0, 'a call is recorded in the key''s scope');
select tests.clear_authentication();

select is((select user_id::text from mcp.tool_calls where request_id = 'req-1'), :'alice', 'for the key''s owner');
select is((select api_key_id::text from mcp.tool_calls where request_id = 'req-1'), :'alice_key', 'naming the key from the claims');

select tests.authenticate_as(:'alice');
select is((select count(*)::int from mcp.tool_calls), 1, 'alice reads her call');
select tests.authenticate_as(:'bob');
select is((select count(*)::int from mcp.tool_calls), 0, 'bob reads none of alice''s calls');
select throws_ok($$insert into mcp.tool_calls (user_id, endpoint, tool, arguments, outcome, duration_ms, request_id)
                   values (core.current_user_id(), 'backend', 'x', '{}', 'ok', 1, 'r')$$, '42501', null, 'nobody inserts directly');
select throws_ok($$delete from mcp.tool_calls$$, '42501', null, 'nobody deletes a record');
select tests.authenticate_as_anon();
select throws_ok($$select mcp.record_tool_call('backend', 'get_me', '{}', 'ok', null, 200, 1, 'r')$$, '42501', null,
  'anon cannot record calls');

select * from finish();
rollback;
