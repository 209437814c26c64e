-- service_jobs in app_auth: usage and the purge job, which is security definer; no table grant and
-- no policy, so its own statements read and delete nothing there.
begin;
select plan(1);

select bag_eq(
  $$select * from tests.privileges_of('service_jobs', '{app_auth}')$$,
  array['schema app_auth: USAGE', 'function app_auth.purge_expired_rows(): EXECUTE'],
  'usage on app_auth and its purge job, nothing else'
);

select * from finish();
rollback;
