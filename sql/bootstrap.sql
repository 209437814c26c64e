-- Supabase-compatibility bootstrap for a plain PostgreSQL.
--
-- A Supabase database already has every object below; each one is created only when missing, so
-- the same migrations run unchanged on the local cluster and on a Supabase project.
-- scripts/lib/migrations.ts applies it before the migrations; the Supabase CLI does too, as
-- supabase/roles.sql (a link to this file), on `supabase start` and `supabase db push --include-roles`.

-- ============================================================================================
-- Roles: the three that Supabase's gateway switches to. None can log in.
-- ============================================================================================
do $$
begin
  if not exists (select from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  -- Background jobs (pg_cron, the dispatch loops) switch to this role: no login, no BYPASSRLS,
  -- and only the grants each job's function needs.
  if not exists (select from pg_roles where rolname = 'service_jobs') then
    create role service_jobs nologin noinherit;
  end if;
  -- The role the service logs in as. It owns nothing, holds no table privilege and cannot bypass
  -- RLS; all it can do is switch to the request roles (`set local role`) and call the few functions
  -- granted to it (the API-key check). Its password is set per deployment (see README).
  if not exists (select from pg_roles where rolname = 'api_gateway') then
    create role api_gateway login noinherit nobypassrls;
  end if;
end
$$;

-- Migrations and the admin CLI run as the owner, which switches to these roles too.
grant anon, authenticated, service_role, service_jobs to current_user;
-- Not service_role: it bypasses RLS, and no request of the service needs it.
grant anon, authenticated, service_jobs to api_gateway;

-- ============================================================================================
-- Schemas Supabase provides
-- ============================================================================================
create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;

create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

-- ============================================================================================
-- auth.uid(), auth.role(), auth.jwt(): read the claims the gateway sets with
-- set_config('request.jwt.claims', ..., true), exactly as Supabase's versions do.
-- ============================================================================================
do $$
begin
  if to_regprocedure('auth.jwt()') is null then
    create function auth.jwt() returns jsonb
      language sql stable
      as $f$
        select coalesce(
          nullif(current_setting('request.jwt.claim', true), ''),
          nullif(current_setting('request.jwt.claims', true), '')
        )::jsonb
      $f$;
  end if;
  if to_regprocedure('auth.uid()') is null then
    create function auth.uid() returns uuid
      language sql stable
      as $f$
        select coalesce(
          nullif(current_setting('request.jwt.claim.sub', true), ''),
          (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
        )::uuid
      $f$;
  end if;
  if to_regprocedure('auth.role()') is null then
    create function auth.role() returns text
      language sql stable
      as $f$
        select coalesce(
          nullif(current_setting('request.jwt.claim.role', true), ''),
          (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
        )::text
      $f$;
  end if;
end
$$;
grant execute on function auth.jwt(), auth.uid(), auth.role() to anon, authenticated, service_role;

-- ============================================================================================
-- Extensions. pg_cron can only live in the database named by cron.database_name.
-- ============================================================================================
create extension if not exists pg_trgm with schema extensions;

do $$
begin
  if exists (select from pg_available_extensions where name = 'pg_cron')
     and current_database() = coalesce(current_setting('cron.database_name', true), 'postgres')
     and current_setting('shared_preload_libraries', true) like '%pg_cron%' then
    -- In pg_catalog as on Supabase (its objects live in schema cron either way), not in public.
    create extension if not exists pg_cron with schema pg_catalog;
  end if;
end
$$;
