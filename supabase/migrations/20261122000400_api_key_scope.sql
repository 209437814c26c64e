-- API-key requests authenticate inside their own transaction: the gateway pipelines BEGIN,
-- core.enter_api_key_scope and the request's statements in one round trip, so a key costs no trip
-- of its own. An unknown or revoked key, or a missing permission, raises, which aborts the
-- transaction before any of the request's statements can run. The hottest read (/me) is a single
-- function that enters the scope itself: one statement, no transaction block.

-- Last use is still written at most once a minute; SKIP LOCKED keeps concurrent requests of one key
-- from queueing behind the request that is recording it.
create or replace function core.record_api_key_use(p_api_key_id core.object_id) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  begin
    update core.api_keys set last_used_at = now()
      where id = (select id from core.api_keys
                  where id = p_api_key_id and (last_used_at is null or last_used_at < now() - interval '1 minute')
                  for update skip locked);
  end
  $$;

-- Resolves the key, checks the permissions the route requires ("resource:action"), records use,
-- then sets the claims RLS reads and switches to `authenticated` for the rest of the transaction.
-- Invoker rights, because Postgres refuses a role change inside a security definer function; only
-- the gateway's own role (the owner) may run it. No SET clause: it would cost every request a
-- search-path rebuild. Instead every table and function is schema-qualified (pg_catalog too: a
-- polymorphic or variadic built-in such as cardinality() could otherwise lose to an exact match
-- planted in a schema on the caller's path).
create function core.enter_api_key_scope(p_key_hash bytea, p_required_permissions text[])
  returns core.object_id
  language plpgsql volatile
  as $$
  declare
    v_key record;
    v_missing text;
  begin
    select k.id, k.owner_id, k.permissions, k.last_used_at, u.auth_user_id into v_key
      from core.api_keys k join core.users u on u.id = k.owner_id
      where k.key_hash = p_key_hash and k.revoked_at is null;
    if not found then
      raise sqlstate 'PT401' using message = 'The API key is unknown or has been revoked.', hint = 'invalid_api_key';
    end if;
    -- A null list is a caller's bug; treating it as "nothing required" would skip the check.
    if p_required_permissions is null then
      raise exception 'core.enter_api_key_scope: p_required_permissions must be an array, not null';
    end if;
    if pg_catalog.cardinality(p_required_permissions) > 0 then
      select required into v_missing
        from pg_catalog.unnest(p_required_permissions) with ordinality as r(required, position)
        where not coalesce(v_key.permissions -> pg_catalog.split_part(required, ':', 1) ? pg_catalog.split_part(required, ':', 2), false)
        order by position
        limit 1;
      if v_missing is not null then
        raise sqlstate 'PT403' using message = pg_catalog.format('This API key lacks the permission %s.', v_missing),
          hint = 'missing_permission', detail = pg_catalog.json_build_object('required', v_missing)::text;
      end if;
    end if;
    if v_key.last_used_at is null or v_key.last_used_at < pg_catalog.now() - interval '1 minute' then
      perform core.record_api_key_use(v_key.id);
    end if;
    perform pg_catalog.set_config('request.jwt.claims', pg_catalog.json_build_object(
      'sub', v_key.auth_user_id, 'role', 'authenticated', 'app_user_id', v_key.owner_id,
      'api_key_id', v_key.id, 'permissions', v_key.permissions)::text, true);
    perform pg_catalog.set_config('role', 'authenticated', true);
    return v_key.owner_id;
  end
  $$;
revoke execute on function core.enter_api_key_scope(bytea, text[]) from public;

-- The key lookup now lives in enter_api_key_scope.
drop function core.authenticate_api_key(bytea);

-- GET /api/v3/me in one statement: enters the key's scope, then reads the owner's user and profile
-- as `authenticated`, so RLS decides what comes back (plpgsql plans its query at that point).
create function core.me_by_api_key(p_key_hash bytea, p_required_permissions text[])
  returns table (
    id core.object_id, email text, username text, display_name text, bio text, avatar_url text,
    created_at timestamptz, updated_at timestamptz
  )
  language plpgsql volatile
  as $$
  begin
    perform core.enter_api_key_scope(p_key_hash, p_required_permissions);
    return query
      select u.id, u.email, p.username, p.display_name, p.bio, p.avatar_url, u.created_at, p.updated_at
      from core.users u join core.profiles p on p.user_id = u.id
      where u.id = core.current_user_id();
  end
  $$;
revoke execute on function core.me_by_api_key(bytea, text[]) from public;

-- core.current_user_id() runs in nearly every policy, several times per request. As an inlinable SQL
-- function reading the gateway's claim it costs a fraction of the plpgsql security definer it
-- replaces (which rebuilt the search path on every call); only tokens without the claim (signed by
-- Supabase Auth) take the security definer lookup of their auth user.
create function core.user_id_of_auth_user() returns core.object_id
  language plpgsql stable security definer
  set search_path = ''
  as $$
  begin
    return (select id from core.users where auth_user_id = auth.uid());
  end
  $$;
revoke execute on function core.user_id_of_auth_user() from public;
grant execute on function core.user_id_of_auth_user() to anon, authenticated, service_role;

create or replace function core.current_user_id() returns core.object_id
  language sql stable
  as $$
    select coalesce(
      (nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'app_user_id')::core.object_id,
      core.user_id_of_auth_user())
  $$;

-- The gateway no longer learns the caller's id before its statements run, so new rows are owned by
-- whoever inserts them; the insert policies still refuse any other owner.
alter table community.events alter column owner_id set default core.current_user_id();
alter table community.hubs alter column owner_id set default core.current_user_id();
