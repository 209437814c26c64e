-- basejump's guard: a table added without `enable row level security` fails here, by name.
-- Platform schemas (Postgres, Supabase, pg_cron, the migration log, these fixtures) are skipped.
begin;
select plan(2);

-- The guard must look at the application's tables at all, or the next check proves nothing.
select ok(
  exists (
    select from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p')
      and n.nspname not in ('information_schema', 'extensions', 'supabase_migrations', 'cron', 'auth', 'tests')
      and n.nspname !~ '^pg_'
      and format('%I.%I', n.nspname, c.relname) = 'core.users'
  ),
  'the guard covers the application schemas (core.users is in its list)'
);

select is_empty(
  $$
    select format('%I.%I', n.nspname, c.relname) as table_without_rls
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p')
      and not c.relrowsecurity
      and n.nspname not in ('information_schema', 'extensions', 'supabase_migrations', 'cron', 'auth', 'tests')
      and n.nspname !~ '^pg_'
    order by 1
  $$,
  'every table outside the platform schemas has row level security enabled'
);

select * from finish();
rollback;
