-- 20261123001500_mcp_confirmations.sql: the person's decision on a confirmation link is
-- recorded in mcp.tool_calls with endpoint 'confirmation', tool approve_<kind> or refuse_<kind>, the
-- link's id, and the OAuth client and grant of the link (taken from it, not from the caller), by
-- mcp_confirmations.record_decision: only for the caller's own link opened with its token, only once
-- decided that way. The person reads the record like their tool calls; nobody else does. No other
-- writer can make a 'confirmation' record: record_tool_call cannot name a link.
begin;
select plan(16);

select tests.create_user('rita@example.com') as rita \gset
select tests.create_user('sam@example.com') as sam \gset
select tests.sign_in_to_oauth('rita@example.com');
select tests.approve_client('client-a', '{wallet:link}') as grant_id \gset

create function pg_temp.record(p_link text, p_token text, p_decision text, p_request text, p_outcome text default 'ok',
    p_code text default null, p_status integer default null) returns bigint language sql as $$
  select mcp_confirmations.record_decision(p_link, sha256(p_token::bytea), p_decision, '{"chainId": 1, "connector": "[redacted]"}',
    p_outcome, p_code, p_status, 42, p_request, case p_decision when 'approve' then '{wallet:link}'::text[] else '{}' end)
$$;

-- Made by client A's tool call (as the OAuth principal).
select tests.authenticate_as_person(:'rita', 'client-a');
select id as refused from mcp_confirmations.create_confirmation('client-a', :'grant_id', 'wallet_link', '{"chainId": 1}', sha256('a1'),
  sha256('binding'), sha256('token-1'), now() + interval '15 minutes') \gset
select id as approved from mcp_confirmations.create_confirmation('client-a', :'grant_id', 'wallet_link', '{"chainId": 1}', sha256('a2'),
  sha256('binding'), sha256('token-2'), now() + interval '15 minutes') \gset

-- The link's page acts with the signed-in person's claims (personScope): no client in them.
select tests.authenticate_as_person(:'rita');
select throws_ok(format($$select pg_temp.record(%L, 'token-1', 'refuse', 'req-early')$$, :'refused'), 'PT404', 'no such decided confirmation link',
  'an undecided link has no decision to record');
select is(mcp_confirmations.refuse(:'refused', sha256('token-1')), 'refused', 'Rita refuses the first link');
select ok(pg_temp.record(:'refused', 'token-1', 'refuse', 'req-refuse') > 0, 'her refusal is recorded');
select throws_ok(format($$select pg_temp.record(%L, 'token-1', 'approve', 'req-x')$$, :'refused'), 'PT404', 'no such decided confirmation link',
  'a refused link has no approval to record');
select throws_ok(format($$select pg_temp.record(%L, 'token-2', 'refuse', 'req-x')$$, :'refused'), 'PT404', 'no such decided confirmation link',
  'nor does another link''s token open it');

select is((select kind from mcp_confirmations.begin_approval(:'approved', sha256('token-2'))), 'wallet_link', 'Rita approves the second link');
select ok(mcp_confirmations.finish_approval(:'approved', sha256('token-2'), 'failed',
  '{"error": {"code": "address_already_linked", "message": "taken"}, "httpStatus": 409}'), 'and REST refuses its action');
select ok(pg_temp.record(:'approved', 'token-2', 'approve', 'req-approve', 'error', 'address_already_linked', 409) > 0, 'her approval is recorded');

select tests.authenticate_as_person(:'sam');
select throws_ok(format($$select pg_temp.record(%L, 'token-1', 'refuse', 'req-sam')$$, :'refused'), 'PT404', 'no such decided confirmation link',
  'Sam holding the token cannot record a decision on Rita''s link');

select tests.authenticate_as_person(:'rita');
select results_eq($$
  select endpoint, tool, confirmation_id::text, client_id, grant_id, scopes, outcome, error_code, http_status::integer, arguments, request_id
  from mcp.tool_calls order by request_id desc$$,
  format($$values
    ('confirmation', 'refuse_wallet_link', %1$L, 'client-a', %3$L, '{}'::text[], 'ok', null::text, null::integer,
     '{"chainId": 1, "connector": "[redacted]"}'::jsonb, 'req-refuse'),
    ('confirmation', 'approve_wallet_link', %2$L, 'client-a', %3$L, '{wallet:link}'::text[], 'error', 'address_already_linked', 409,
     '{"chainId": 1, "connector": "[redacted]"}'::jsonb, 'req-approve')$$, :'refused', :'approved', :'grant_id'),
  'Rita reads both records: the tool named by the decision and the link''s kind, the link, its client and grant');
select tests.authenticate_as_person(:'sam');
select is_empty('select * from mcp.tool_calls', 'Sam reads none of them');

-- Only record_decision makes a confirmation record.
select tests.authenticate_as_person(:'rita');
select throws_ok($$select mcp.record_tool_call('confirmation', 'approve_wallet_link', '{}', 'ok', null, 201, 1, 'req-forged')$$, '23514', null,
  'record_tool_call cannot write a confirmation record (it names no link)');
select throws_ok($$select mcp.record_tool_call('page', 'x', '{}', 'ok', null, 200, 1, 'req-other')$$, '23514', null,
  'nor any endpoint but backend, public and confirmation');
select tests.authenticate_as_anon();
select throws_ok(format($$select pg_temp.record(%L, 'token-1', 'refuse', 'req-anon')$$, :'refused'), '42501', null, 'anon cannot record decisions');
select tests.clear_authentication();
select ok(has_function_privilege('authenticated', 'mcp_confirmations.record_decision(text, bytea, text, jsonb, text, text, integer, integer, text, text[])', 'execute')
  and not has_function_privilege('public', 'mcp_confirmations.record_decision(text, bytea, text, jsonb, text, text, integer, integer, text, text[])', 'execute'),
  'authenticated records decisions, PUBLIC does not');
select is((select count(*)::integer from mcp.tool_calls), 2, 'two records in all');

select * from finish();
rollback;
