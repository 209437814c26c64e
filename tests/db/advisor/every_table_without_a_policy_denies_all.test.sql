-- splinter's rls_enabled_no_policy, as a project rule: a table that only security definer functions
-- read and write says so with one restrictive policy that admits nothing (deny_all), and has no
-- other policy. A table with RLS on and no policy at all is an unsaid choice (or a forgotten policy).
begin;
select plan(3);

create temporary view service_tables as
  select c.oid, c.oid::regclass::text as table_name
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p') and c.relrowsecurity
    and n.nspname not in ('information_schema', 'extensions', 'supabase_migrations', 'cron', 'auth', 'tests')
    and n.nspname !~ '^pg_';

select is_empty(
  $$
    select t.table_name from service_tables t
    where not exists (select from pg_policy p where p.polrelid = t.oid)
    order by 1
  $$,
  'every table with row level security has a policy (deny_all where definer functions alone use it)'
);

select is_empty(
  $$
    select p.polrelid::regclass::text from pg_policy p
    where p.polname = 'deny_all'
      and (p.polpermissive or p.polroles <> '{0}' or p.polcmd <> '*'
           or pg_get_expr(p.polqual, p.polrelid) <> 'false' or pg_get_expr(p.polwithcheck, p.polrelid) <> 'false')
  $$,
  'each deny_all policy is restrictive, for every role and command, and admits nothing'
);

select is_empty(
  $$
    select p.polrelid::regclass::text from pg_policy p
    where p.polname = 'deny_all'
      and exists (select from pg_policy o where o.polrelid = p.polrelid and o.polname <> 'deny_all')
  $$,
  'a deny_all table has no other policy'
);

select * from finish();
rollback;
