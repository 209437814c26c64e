-- The background jobs need pg_cron. Until now core.schedule_job scheduled nothing, with a notice
-- nobody reads, where pg_cron was missing: a project migrated before enabling pg_cron ran without
-- its expiries and purges and never said so. Now a migration that schedules a job fails, with what
-- to do, where pg_cron is missing, and this migration schedules every job of the earlier ones again
-- (cron.schedule replaces a job of the same name), so a database that skipped them gets them once
-- pg_cron is enabled and the migrations are applied again.
--
-- A database whose jobs run elsewhere (the test databases: pg_cron lives only in the database
-- cron.database_name names, and pgTAP calls each job's function itself) says so with the setting
-- service.jobs_without_pg_cron = on, for the session (scripts/lib/migrations.ts: migrate's
-- jobsWithoutPgCron) or the database (alter database ... set).

create or replace function core.schedule_job(p_name text, p_schedule text, p_function text) returns bigint
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  declare
    -- regprocedure output is schema-qualified and quoted: safe to splice into the command.
    v_function regprocedure := (p_function || '()')::regprocedure;
  begin
    if not exists (select from pg_catalog.pg_extension where extname = 'pg_cron') then
      if coalesce(current_setting('service.jobs_without_pg_cron', true), '') = 'on' then
        raise notice 'service.jobs_without_pg_cron is on: job % is not scheduled', p_name;
        return null;
      end if;
      raise exception using
        errcode = 'object_not_in_prerequisite_state',
        message = format(
          'pg_cron is not installed in database %s, so the background job %s cannot be scheduled. '
          'Enable pg_cron first (Supabase: Dashboard, Database, Extensions, pg_cron; PostgreSQL: '
          'shared_preload_libraries = ''pg_cron'' and cron.database_name = ''%s'' in postgresql.conf, a restart, '
          'then create extension pg_cron), then apply the migrations again: they schedule every job then. '
          'Only a database whose jobs run elsewhere sets service.jobs_without_pg_cron = on instead.',
          pg_catalog.current_database(), p_name, pg_catalog.current_database());
    end if;
    return cron.schedule(p_name, p_schedule,
      format('set role service_jobs; select %s', v_function));
  end
  $$;

revoke execute on function core.schedule_job(text, text, text) from public;

-- Every job of the earlier migrations, as they schedule it.
select core.schedule_job('purge_expired_siwe_nonces', '*/10 * * * *', 'core.purge_expired_siwe_nonces');
select core.schedule_job('purge_rate_limit_windows', '17 * * * *', 'core.purge_rate_limit_windows');
select core.schedule_job('expire_checkout_sessions', '* * * * *', 'checkout.expire_sessions');
select core.schedule_job('release_expired_sponsorship_holds', '* * * * *', 'sponsorship.release_expired_holds');
select core.schedule_job('purge_old_mcp_tool_calls', '47 3 * * *', 'mcp.purge_tool_calls');
select core.schedule_job('purge_expired_mcp_oauth_rows', '23 * * * *', 'mcp_oauth.purge_expired_rows');
select core.schedule_job('purge_finished_mcp_confirmations', '37 3 * * *', 'mcp_confirmations.purge_finished');
select core.schedule_job('purge_expired_app_auth_rows', '41 * * * *', 'app_auth.purge_expired_rows');
