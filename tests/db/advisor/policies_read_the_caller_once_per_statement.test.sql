-- splinter's auth_rls_initplan, as a project rule: a policy reads the caller (auth.uid(), auth.jwt(),
-- auth.role(), core.current_user_id(), current_setting()) through a sub-select, so it runs once per
-- statement, not once per row.
begin;
select plan(2);

create temporary view policy_expressions as
  select format('%s %s', p.polrelid::regclass, p.polname) as policy,
         concat_ws(' ', pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)) as expression
  from pg_policy p;

select ok(
  exists (select from policy_expressions where expression ~ 'SELECT core\.current_user_id\(\)'),
  'the rule looks at policies that read the caller'
);

-- Every call of a caller function must be the whole body of a sub-select: drop those, none may remain.
select is_empty(
  $$
    select policy from policy_expressions
    where regexp_replace(expression,
            '\( SELECT (auth\.(uid|jwt|role)|core\.current_user_id|current_setting)\(([^()]*)\)( AS [a-z_]+)?\)', '', 'g')
          ~ '(auth\.(uid|jwt|role)|core\.current_user_id|current_setting)\('
    order by 1
  $$,
  'no policy calls a caller function once per row'
);

select * from finish();
rollback;
