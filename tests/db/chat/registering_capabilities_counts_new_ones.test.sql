-- The capability registry (20261125000500_chat.sql): chat.register_capabilities, as service_jobs,
-- inserts the tools a source lists for the first time (counted as new), sees known ones again
-- (not new), marks the ones the source stopped listing withdrawn, keeps the operator's `enabled`,
-- and never mixes two sources. Everyone signed in reads it; nobody else writes it.
-- (pgTAP is out of service_jobs' reach: each call's answer is kept in a psql variable and judged after.)
begin;
select plan(13);

select tests.create_user('alice@example.com') as alice \gset

set local role service_jobs;
select chat.register_capabilities('service', 'eventhub-public',
  '[{"name": "list_events", "description": "Lists events", "inputSchema": {"type": "object"}},
    {"name": "get_event", "title": "An event", "inputSchema": {"type": "object", "properties": {"eventId": {"type": "string"}}}}]') as first \gset
select chat.register_capabilities('service', 'eventhub-public',
  '[{"name": "list_events", "description": "Lists events", "inputSchema": {"type": "object"}},
    {"name": "get_event", "title": "An event", "inputSchema": {"type": "object"}}]') as again \gset
select chat.register_capabilities('service', 'eventhub-public',
  '[{"name": "list_events", "inputSchema": {"type": "object"}}, {"name": "get_event", "inputSchema": {"type": "object"}},
    {"name": "list_hubs", "inputSchema": {"type": "object"}}]') as third \gset
select chat.register_capabilities('https://tools.example/mcp', 'weather',
  '[{"name": "list_events", "inputSchema": {"type": "object"}}]') as other_source \gset
reset role;

select is((:'first'::jsonb)->>'newCount', '2', 'the first listing registers two new tools');
select is((:'again'::jsonb)->>'newCount', '0', 'the same listing again registers none');
select is(jsonb_path_query_array(:'third'::jsonb, '$.capabilities[*] ? (@.new == true).name'), '["list_hubs"]'::jsonb,
  'a third tool is the one new');
select is((:'other_source'::jsonb)->>'newCount', '1', 'the same tool name on another source is a capability of its own');

select is((select count(*)::int from chat.capabilities), 4, 'four capabilities in all');
select is((select first_seen_at <= last_seen_at from chat.capabilities where tool_name = 'list_events' and source = 'service'), true,
  'seen again: first_seen_at stays, last_seen_at moves');

-- The operator turns a tool off and the source stops listing list_hubs; discovery turns nothing back on.
update chat.capabilities set enabled = false where source = 'service' and tool_name = 'get_event';
set local role service_jobs;
select chat.register_capabilities('service', 'eventhub-public',
  '[{"name": "list_events", "inputSchema": {"type": "object"}}, {"name": "get_event", "inputSchema": {"type": "object"}}]') as fourth \gset
reset role;
select is(jsonb_path_query_first(:'fourth'::jsonb, '$.capabilities[*] ? (@.name == "get_event").enabled'), 'false'::jsonb,
  'a disabled tool stays disabled');
select results_eq($$select tool_name from chat.capabilities where source = 'service' and withdrawn_at is not null$$,
  $$values ('list_hubs')$$, 'a tool the source no longer lists is withdrawn');
select is((select withdrawn_at from chat.capabilities where source = 'https://tools.example/mcp'), null, 'another source''s tools are untouched');

select tests.authenticate_as(:'alice');
select is((select count(*)::int from chat.capabilities), 4, 'a signed-in person reads the registry');
select throws_ok($$update chat.capabilities set enabled = true$$, '42501', null, 'but does not change it');
select throws_ok($$select chat.register_capabilities('service', 'x', '[]')$$, '42501', null, 'nor registers anything');
select tests.authenticate_as_anon();
select throws_ok($$select count(*) from chat.capabilities$$, '42501', null, 'anon reads nothing');

select * from finish();
rollback;
