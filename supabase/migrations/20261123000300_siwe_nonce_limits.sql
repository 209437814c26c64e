-- SIWE nonces: at most 10 live nonces per user, and a pg_cron job that deletes expired ones.
--
-- The job is the project's first, so this file also holds the pattern later jobs copy:
--   * the job's work is one `security invoker` function in its domain's schema, run as the role
--     `service_jobs` (sql/bootstrap.sql), which gets exactly the grants and RLS policies that
--     function needs;
--   * core.schedule_job installs the schedule where pg_cron exists and is a no-op elsewhere;
--   * pgTAP calls the function as `service_jobs`; correctness never waits for the schedule.

-- ============================================================================================
-- Issuing nonces: a per-user cap
-- ============================================================================================
-- The cap counts this user's live nonces, and the expired-row cleanup works on them too.
create index siwe_nonces_user_id_expires_at_idx on core.siwe_nonces (user_id, expires_at);

create or replace function core.issue_siwe_nonce(p_nonce text)
  returns timestamptz
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    c_live_limit constant integer := 10;
    v_user core.object_id := core.current_user_id();
    v_expires_at timestamptz := now() + interval '10 minutes';
    v_live integer;
    v_oldest_expiry timestamptz;
  begin
    if v_user is null then
      raise exception 'no authenticated user' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    -- One issue per user at a time: without the lock, concurrent requests would all count the same
    -- live nonces and all pass. NO KEY UPDATE leaves foreign-key checks on the user row unblocked.
    perform from core.users where id = v_user for no key update;
    -- Expired nonces of this user go now, so the user's rows stay few even where no job runs.
    delete from core.siwe_nonces where user_id = v_user and expires_at <= now();
    select count(*), min(expires_at) into v_live, v_oldest_expiry
      from core.siwe_nonces where user_id = v_user;
    if v_live >= c_live_limit then
      raise exception 'too many live SIWE nonces: at most % per user', c_live_limit
        using errcode = 'PT429', hint = 'rate_limited',
              detail = json_build_object(
                'retryAfterSeconds', ceil(extract(epoch from v_oldest_expiry - now()))::integer,
                'limit', c_live_limit)::text;
    end if;
    insert into core.siwe_nonces (nonce, user_id, expires_at) values (p_nonce, v_user, v_expires_at);
    return v_expires_at;
  end
  $$;

-- ============================================================================================
-- The purge job's function and its role's grants
-- ============================================================================================
-- Deletes every expired nonce; returns how many. With at most 10 live nonces per user, and a
-- user's expired ones deleted whenever that user asks again, what is left for the job is at most
-- 10 rows per user who stopped asking: one statement is enough.
create function core.purge_expired_siwe_nonces() returns integer
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  declare
    v_deleted integer;
  begin
    delete from core.siwe_nonces where expires_at <= now();
    get diagnostics v_deleted = row_count;
    return v_deleted;
  end
  $$;

grant usage on schema core to service_jobs;
-- SELECT because the DELETE reads expires_at; the policies let the job see and delete only
-- expired nonces, so the function cannot take a live one whatever it is changed to.
grant select, delete on core.siwe_nonces to service_jobs;
create policy siwe_nonces_select_jobs on core.siwe_nonces
  for select to service_jobs
  using (expires_at <= now());
create policy siwe_nonces_delete_jobs on core.siwe_nonces
  for delete to service_jobs
  using (expires_at <= now());

-- ============================================================================================
-- Scheduling: core.schedule_job
-- ============================================================================================
-- Schedules `set role service_jobs; select <p_function>()` under the name p_name; scheduling the
-- same name again replaces the job (cron.schedule upserts by name). pg_cron exists only in the
-- database cron.database_name names (the local `postgres` database, a Supabase project's), not in
-- the test databases cloned from a template: there this returns null and schedules nothing. The
-- function name is resolved either way, so a misspelt job fails its migration everywhere.
--
-- pg_cron refuses to run jobs as a NOLOGIN role such as service_jobs, so the job belongs to the
-- migration's role (a member of service_jobs, see sql/bootstrap.sql) and switches role first.
create function core.schedule_job(p_name text, p_schedule text, p_function text) returns bigint
  language plpgsql volatile security invoker
  set search_path = ''
  as $$
  declare
    -- regprocedure output is schema-qualified and quoted: safe to splice into the command.
    v_function regprocedure := (p_function || '()')::regprocedure;
  begin
    if not exists (select from pg_catalog.pg_extension where extname = 'pg_cron') then
      raise notice 'pg_cron is not installed in this database: job % is not scheduled', p_name;
      return null;
    end if;
    return cron.schedule(p_name, p_schedule,
      format('set role service_jobs; select %s', v_function));
  end
  $$;

-- ============================================================================================
-- Deny by default, then the jobs
-- ============================================================================================
revoke execute on function core.purge_expired_siwe_nonces() from public;
revoke execute on function core.schedule_job(text, text, text) from public;
grant execute on function core.purge_expired_siwe_nonces() to service_jobs;

-- Every 10 minutes: nonces live 10 minutes, so none lingers much past twice that.
select core.schedule_job('purge_expired_siwe_nonces', '*/10 * * * *', 'core.purge_expired_siwe_nonces');
