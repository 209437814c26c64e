-- splinter's policy_exists_rls_disabled, as a project rule: a policy on a table whose row level
-- security is off protects nothing, so there is none.
begin;
select plan(1);

select is_empty(
  $$
    select format('%s %s', p.polrelid::regclass, p.polname)
    from pg_policy p join pg_class c on c.oid = p.polrelid
    where not c.relrowsecurity
    order by 1
  $$,
  'every table with a policy has row level security enabled'
);

select * from finish();
rollback;
