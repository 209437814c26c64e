-- splinter's unindexed_foreign_keys, as a project rule: every foreign key has an index led by its
-- columns, so a cascade (or the check that nothing still points at a deleted row) and a join along
-- the key read an index instead of scanning the referencing table.
begin;
select plan(2);

select ok(
  exists (select from pg_constraint c join pg_namespace n on n.oid = c.connamespace
          where c.contype = 'f' and n.nspname = 'checkin'),
  'the rule looks at the service''s foreign keys at all'
);

select is_empty(
  $$
    select format('%s %s', c.conrelid::regclass, c.conname)
    from pg_constraint c
    join pg_namespace n on n.oid = c.connamespace
    where c.contype = 'f'
      and n.nspname not in ('information_schema', 'extensions', 'supabase_migrations', 'cron', 'auth', 'tests')
      and n.nspname !~ '^pg_'
      and not exists (
        select from pg_index i
        where i.indrelid = c.conrelid
          and (string_to_array(i.indkey::text, ' ')::smallint[])[1:cardinality(c.conkey)] @> c.conkey
          and (string_to_array(i.indkey::text, ' ')::smallint[])[1:cardinality(c.conkey)] <@ c.conkey)
    order by 1
  $$,
  'every foreign key has an index whose leading columns are its columns'
);

select * from finish();
rollback;
