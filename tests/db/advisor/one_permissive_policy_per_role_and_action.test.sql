-- splinter's multiple_permissive_policies, as a project rule: for one table, role and command there
-- is at most one permissive policy (several are each evaluated for every row and OR-ed).
begin;
select plan(1);

select is_empty(
  $$
    select format('%s %s %s', p.polrelid::regclass, r.role, cmd.cmd)
    from pg_policy p
    cross join lateral (select case when p.polroles = '{0}' then 'public' else r::regrole::text end as role
                        from unnest(p.polroles) r) r
    cross join lateral (select c as cmd from unnest(case when p.polcmd = '*' then array['r', 'a', 'w', 'd']
                                                          else array[p.polcmd::text] end) c) cmd
    where p.polpermissive
    group by p.polrelid, r.role, cmd.cmd
    having count(*) > 1
    order by 1
  $$,
  'at most one permissive policy per table, role and command'
);

select * from finish();
rollback;
