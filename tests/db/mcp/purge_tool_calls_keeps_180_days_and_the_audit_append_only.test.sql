-- The MCP audit's retention (mcp.purge_tool_calls, run by pg_cron as service_jobs;
-- 20261123001300_mcp.sql): tool calls older than 180 days are deleted, every user's,
-- and nothing younger. The function is the only way anyone but the table owner deletes a record:
-- the table stays append-only for every API and job role, service_jobs included (no UPDATE, DELETE
-- or TRUNCATE; even a record past the retention cannot be deleted by a statement of its own).
begin;
select plan(12);

grant usage on schema extensions to service_jobs; -- pgTAP, for the assertions made as service_jobs

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

create function pg_temp.call(p_user text, p_request_id text, p_age interval) returns void language sql as $$
  insert into mcp.tool_calls (user_id, endpoint, tool, arguments, outcome, duration_ms, request_id, created_at)
    values (p_user, 'backend', 'get_me', '{}', 'ok', 3, p_request_id, now() - p_age)
$$;
select pg_temp.call(:'alice', 'alice-181-days', '181 days');
select pg_temp.call(:'bob', 'bob-400-days', '400 days');
select pg_temp.call(:'alice', 'alice-179-days', '179 days');
select pg_temp.call(:'bob', 'bob-1-day', '1 day');
select pg_temp.call(:'alice', 'alice-now', '0 seconds');

set local role service_jobs;
select is(mcp.purge_tool_calls(), 2, 'the job deletes the two records older than 180 days, of both users');
select is(mcp.purge_tool_calls(), 0, 'a second run finds nothing');
reset role;
select set_eq($$select request_id from mcp.tool_calls$$, array['alice-179-days', 'bob-1-day', 'alice-now'],
  'records within the 180 days stay');

-- Append-only for everyone but the owner, the job role included.
select is(tests.roles_writing('mcp.tool_calls'), '{}'::text[],
  'no API or job role may insert, update, delete or truncate audit records');
select pg_temp.call(:'alice', 'alice-200-days', '200 days');
set local role service_jobs;
select throws_ok($$delete from mcp.tool_calls where created_at < now() - interval '180 days'$$, '42501', null,
  'service_jobs cannot delete even an expired record by itself');
select throws_ok($$select count(*) from mcp.tool_calls$$, '42501', null, 'nor read the audit');
reset role;
select tests.authenticate_as(:'alice');
select throws_ok($$delete from mcp.tool_calls$$, '42501', null, 'a user cannot delete their records');
select throws_ok($$update mcp.tool_calls set tool = 'x'$$, '42501', null, 'nor change them');
select throws_ok($$select mcp.purge_tool_calls()$$, '42501', null, 'nor run the job');
select tests.clear_authentication();
select is((select count(*)::int from mcp.tool_calls where request_id = 'alice-200-days'), 1, 'the record is still there');

-- Who may run the job.
select is(tests.roles_executing('mcp.purge_tool_calls()'), '{service_jobs}'::text[], 'service_jobs may run the job; anon, authenticated, api_gateway, service_role and PUBLIC may not');
select is(
  (select p.prosecdef and p.proconfig @> array['search_path=""'] from pg_proc p where p.oid = 'mcp.purge_tool_calls()'::regprocedure),
  true, 'the function is security definer with an empty search_path');

select * from finish();
rollback;
