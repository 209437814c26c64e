-- Where pg_cron is missing, core.schedule_job (and so every migration that schedules a job) fails
-- with what to do, instead of leaving the jobs unscheduled: a deployment migrated before enabling
-- pg_cron would otherwise run without its expiries and purges and never know. Only a database that
-- says its jobs run elsewhere (service.jobs_without_pg_cron = on) is spared.
begin;
select plan(4);
set local client_min_messages = warning;

select ok(
  not exists (select from pg_extension where extname = 'pg_cron'),
  'this database has no pg_cron (the premise of this test)'
);

set local service.jobs_without_pg_cron = '';
select throws_ok(
  $$select core.schedule_job('purge_expired_siwe_nonces', '*/10 * * * *', 'core.purge_expired_siwe_nonces')$$,
  '55000',
  format('pg_cron is not installed in database %s, so the background job purge_expired_siwe_nonces cannot be scheduled. '
    'Enable pg_cron first (Supabase: Dashboard, Database, Extensions, pg_cron; PostgreSQL: '
    'shared_preload_libraries = ''pg_cron'' and cron.database_name = ''%s'' in postgresql.conf, a restart, '
    'then create extension pg_cron), then apply the migrations again: they schedule every job then. '
    'Only a database whose jobs run elsewhere sets service.jobs_without_pg_cron = on instead.',
    current_database(), current_database()),
  'without pg_cron, scheduling a job fails and says how to enable pg_cron'
);

set local service.jobs_without_pg_cron = off;
select throws_ok(
  $$select core.schedule_job('purge_expired_siwe_nonces', '*/10 * * * *', 'core.purge_expired_siwe_nonces')$$,
  '55000',
  null,
  'only "on" spares a database'
);

set local service.jobs_without_pg_cron = on;
select is(
  core.schedule_job('purge_expired_siwe_nonces', '*/10 * * * *', 'core.purge_expired_siwe_nonces'),
  null,
  'a database whose jobs run elsewhere schedules nothing'
);

select * from finish();
rollback;
