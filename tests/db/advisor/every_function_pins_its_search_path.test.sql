-- splinter's function_search_path_mutable, as a project rule: every function of the service's
-- schemas pins its search_path (a SET clause), so a caller's path cannot stand in for a name it
-- uses. The exceptions, each measured (docs/operations.md, "Database advisor"):
-- - inlinable SQL helpers that qualify every name: a SET clause stops the planner inlining them,
--   and each row then pays a function call (per 20,000 rows, e.g. event_json 320-590 → 2,400-2,900
--   ms, status_as_read 5 → 58 ms);
-- - the API-key path, run on every API-key request: every name in it is qualified (operators too)
--   and only the login role, which may create nothing anywhere, may call it; a SET clause on
--   core.api_key_claims alone made core.me_by_api_key 2.5-4 times slower per call.
begin;
select plan(5);

create temporary table unpinned (function text primary key, kind text not null, reason text not null) on commit drop;
insert into unpinned values
  ('core.current_user_id()', 'inlined helper', 'in the policies and in per-row predicates of the check-in functions'),
  ('community.iso_time(timestamp with time zone)', 'inlined helper', 'per row, in event_json and the check-in JSON'),
  ('community.event_json(community.events)', 'inlined helper', 'per row of every event listing'),
  ('community.event_is_visible(community.publication_status,community.event_visibility,core.object_id,core.object_id)',
   'inlined helper', 'per row, in the events select policy and search'),
  ('community.hub_is_visible(community.publication_status,boolean,core.object_id,core.object_id,core.object_id,core.object_id[])',
   'inlined helper', 'per row, in the hubs select policy and search'),
  ('checkout.status_as_read(text,timestamp with time zone)', 'inlined helper', 'per row of the sessions view'),
  ('checkout.session_status(checkout.sessions)', 'inlined helper', 'per row of session reads'),
  ('core.api_key_claims(bytea,text[])', 'api key path', 'resolves the key, every API-key request'),
  ('core.enter_api_key_scope(bytea,text[])', 'api key path', 'enters the key''s scope, every API-key request'),
  ('core.me_by_api_key(bytea,text[])', 'api key path', 'GET /me in one statement'),
  ('core.take_api_key_rate_limit(bytea,text[],text,integer,integer)', 'api key path', 'rate-limited routes in one statement'),
  ('core.mcp_take_rate_limit(bytea,text[],text,integer)', 'api key path', 'every MCP request in one statement'),
  ('core.mcp_record_tool_call(bytea,text[],text,text,jsonb,text,text,integer,integer,text)', 'api key path',
   'every MCP tool call''s audit in one statement');

create temporary view service_functions as
  select p.oid, p.oid::regprocedure::text as function, l.lanname, p.prosecdef, p.proconfig
  from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  join pg_language l on l.oid = p.prolang
  where n.nspname not in ('information_schema', 'extensions', 'supabase_migrations', 'cron', 'auth', 'tests')
    and n.nspname !~ '^pg_'
    and p.prokind in ('f', 'p')
    and not exists (select from pg_depend d where d.objid = p.oid and d.deptype = 'e');

select ok((select count(*) from service_functions) > 100, 'the rule looks at the service''s functions at all');

select is_empty(
  $$
    select function from service_functions f
    where not exists (select from unnest(f.proconfig) c where c like 'search_path=%')
      and f.function not in (select function from unpinned)
    order by 1
  $$,
  'every function of the service pins its search_path, but the listed ones'
);

-- The list holds only what earns its place.
select is_empty(
  $$
    select u.function from unpinned u
    where not exists (select from service_functions f where f.function = u.function and f.proconfig is null)
  $$,
  'each listed function exists and has no SET clause (a pinned one leaves the list)'
);

select is_empty(
  $$
    select u.function from unpinned u join service_functions f using (function)
    where u.kind = 'inlined helper' and (f.lanname <> 'sql' or f.prosecdef)
  $$,
  'each listed helper is a plain SQL function with invoker rights (inlinable)'
);

select is_empty(
  $$
    select format('%s by %s', u.function, r.rolname) from unpinned u join service_functions f using (function)
    cross join pg_roles r
    where u.kind = 'api key path' and r.rolname not in ('api_gateway', current_user)
      and not r.rolsuper and has_function_privilege(r.oid, f.oid, 'execute')
    union all
    -- Temporary schemas aside: they stand in for no function or operator, and every table is qualified.
    select format('api_gateway may create in %s', n.nspname) from pg_namespace n
    where has_schema_privilege('api_gateway', n.oid, 'create') and n.nspname !~ '^pg_(toast_)?temp_'
    union all
    select 'api_gateway may create in the database' where has_database_privilege('api_gateway', current_database(), 'create')
  $$,
  'only the login role may call the API-key path, and it may create nothing anywhere'
);

select * from finish();
rollback;
