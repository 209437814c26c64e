-- The backend endpoint's two single statements (core.mcp_take_rate_limit, core.mcp_record_tool_call)
-- enter the API key's scope themselves: an unknown key does nothing, a known one is limited per key
-- and audited as its owner with its key id; only the gateway's login may run them.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_api_key(:'alice', 'sk_alice001_' || repeat('a', 43)) as alice_key \gset

select ok(
  not has_function_privilege('authenticated', 'core.mcp_take_rate_limit(bytea, text[], text, integer)', 'execute')
  and not has_function_privilege('authenticated', 'core.mcp_record_tool_call(bytea, text[], text, text, jsonb, text, text, integer, integer, text)', 'execute')
  and has_function_privilege('api_gateway', 'core.mcp_take_rate_limit(bytea, text[], text, integer)', 'execute')
  and has_function_privilege('api_gateway', 'core.mcp_record_tool_call(bytea, text[], text, text, jsonb, text, text, integer, integer, text)', 'execute'),
  'only the gateway''s login runs them, not a user'
);

select throws_ok(
  $$select core.mcp_record_tool_call(tests.api_key_hash('sk_nobody01_' || repeat('z', 43)), '{}', 'backend', 'list_events',
    '{}'::jsonb, 'ok', null, 200, 3, 'req-unknown')$$,
  'PT401', null, 'an unknown key is refused before anything is written'
);
select tests.clear_authentication();
select is((select count(*)::int from mcp.tool_calls where request_id = 'req-unknown'), 0, 'and nothing was recorded for it');

select is(
  core.mcp_record_tool_call(tests.api_key_hash('sk_alice001_' || repeat('a', 43)), '{}', 'backend', 'list_events',
    '{"take": 5}'::jsonb, 'ok', null, 200, 3, 'req-known')::text,
  :'alice', 'a known key: the call is recorded, the owner returned'
);
select tests.clear_authentication();
select results_eq(
  $$select user_id::text, api_key_id is not null, tool, outcome from mcp.tool_calls where request_id = 'req-known'$$,
  format($$values (%L, true, 'list_events', 'ok')$$, :'alice'),
  'recorded as the key''s owner, with the key''s id'
);

select lives_ok(
  $$select core.mcp_take_rate_limit(tests.api_key_hash('sk_alice001_' || repeat('a', 43)), '{}', 'backend', 1)$$,
  'the first request within a limit of 1 passes'
);
select tests.clear_authentication();
select throws_ok(
  $$select core.mcp_take_rate_limit(tests.api_key_hash('sk_alice001_' || repeat('a', 43)), '{}', 'backend', 1)$$,
  'PT429', null, 'the second is refused'
);

select * from finish();
rollback;
