-- splinter's security_definer_view, as a project rule: a view a role may read runs with the reader's
-- rights (security_invoker), so the tables' policies apply to the reader. A view that no role but its
-- owner can read (a definer function's helper) may run as its owner.
begin;
select plan(1);

select is_empty(
  $$
    select c.oid::regclass::text
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'v'
      and n.nspname not in ('information_schema', 'extensions', 'supabase_migrations', 'cron', 'auth', 'tests')
      and n.nspname !~ '^pg_'
      and not coalesce(c.reloptions @> array['security_invoker=true'] or c.reloptions @> array['security_invoker=on'], false)
      and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))
    order by 1
  $$,
  'every view that anon or authenticated can read runs with the reader''s rights'
);

select * from finish();
rollback;
