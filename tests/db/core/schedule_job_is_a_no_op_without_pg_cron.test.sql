-- core.schedule_job installs a pg_cron job only where pg_cron exists (the database named by
-- cron.database_name). Test databases have no pg_cron and say that their jobs run elsewhere
-- (service.jobs_without_pg_cron = on, as scripts/pgtap.ts migrates them): there it schedules nothing
-- and returns null (without the setting it refuses: schedule_job_refuses_without_pg_cron). The
-- function to run is still resolved, so a misspelt job fails its migration in the tests too. Only
-- the migrations' role may schedule.
begin;
select plan(6);
set local client_min_messages = warning; -- the function's notice that it scheduled nothing
set local service.jobs_without_pg_cron = on;

select ok(
  not exists (select from pg_extension where extname = 'pg_cron'),
  'this database has no pg_cron (the premise of this test)'
);

select is(
  core.schedule_job('purge_expired_siwe_nonces', '*/10 * * * *', 'core.purge_expired_siwe_nonces'),
  null,
  'scheduling a job returns null and does nothing'
);

select throws_ok(
  $$select core.schedule_job('misspelt', '* * * * *', 'core.purge_expired_siwe_nonce')$$,
  '42883',
  'function "core.purge_expired_siwe_nonce()" does not exist',
  'an unknown function is refused'
);

select throws_ok(
  $$select core.schedule_job('with_arguments', '* * * * *', 'core.issue_siwe_nonce')$$,
  '42883',
  'function "core.issue_siwe_nonce()" does not exist',
  'a function that takes arguments is refused (the job calls it without any)'
);

-- pgTAP lives in `extensions`, which service_jobs may not use; the rollback takes the grant back.
grant usage on schema extensions to service_jobs;
set local role service_jobs;
select throws_ok(
  $$select core.schedule_job('x', '* * * * *', 'core.purge_expired_siwe_nonces')$$,
  '42501',
  'permission denied for function schedule_job',
  'service_jobs cannot schedule jobs'
);

reset role;
select tests.create_user('alice@example.com') as alice \gset
select tests.authenticate_as(:'alice');
select throws_ok(
  $$select core.schedule_job('x', '* * * * *', 'core.purge_expired_siwe_nonces')$$,
  '42501',
  'permission denied for function schedule_job',
  'authenticated cannot schedule jobs'
);

select tests.clear_authentication();
select * from finish();
rollback;
