-- splinter's function_search_path_mutable, as a project rule: every function of the service's
-- schemas pins its search_path (a SET clause), so a caller's path cannot stand in for a name it
-- uses. The exceptions are inlinable SQL helpers that qualify every name: a SET clause stops the
-- planner inlining them, and each row then pays a function call (measured per 20,000 rows:
-- iso_time 14 → 65 ms, status_as_read 5 → 58 ms; docs/operations.md, "Database advisor").
begin;
select plan(3);

create temporary table inlined_helpers (function text primary key, reason text not null) on commit drop;
insert into inlined_helpers values
  ('core.current_user_id()', 'in every policy and in per-row predicates of the check-in functions'),
  ('community.iso_time(timestamp with time zone)', 'per row, inside event_json and the check-in JSON'),
  ('community.event_json(community.events)', 'per row of every event listing'),
  ('community.event_is_visible(community.publication_status,community.event_visibility,core.object_id,core.object_id)',
   'per row, in the events select policy and search'),
  ('community.hub_is_visible(community.publication_status,boolean,core.object_id,core.object_id,core.object_id,core.object_id[])',
   'per row, in the hubs select policy and search'),
  ('checkout.status_as_read(text,timestamp with time zone)', 'per row of the sessions view'),
  ('checkout.session_status(checkout.sessions)', 'per row of session reads');

create temporary view service_functions as
  select p.oid, p.oid::regprocedure::text as function, l.lanname, p.prosecdef, p.proconfig
  from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  join pg_language l on l.oid = p.prolang
  where n.nspname not in ('information_schema', 'extensions', 'supabase_migrations', 'cron', 'auth', 'tests', 'public')
    and n.nspname !~ '^pg_'
    and p.prokind in ('f', 'p')
    and not exists (select from pg_depend d where d.objid = p.oid and d.deptype = 'e');

select is_empty(
  $$
    select function from service_functions f
    where not exists (select from unnest(f.proconfig) c where c like 'search_path=%')
      and f.function not in (select function from inlined_helpers)
    order by 1
  $$,
  'every function of the service pins its search_path, but the listed inlinable helpers'
);

-- The list holds only what earns its place: existing, inlinable (plain SQL, invoker rights).
select is_empty(
  $$
    select h.function from inlined_helpers h
    where not exists (select from service_functions f
                      where f.function = h.function and f.lanname = 'sql' and not f.prosecdef and f.proconfig is null)
  $$,
  'each listed helper exists, is a plain SQL function with invoker rights and has no SET clause'
);

select ok(
  (select count(*) from service_functions) > 100,
  'the rule looks at the service''s functions at all'
);

select * from finish();
rollback;
