-- The service logs in as `api_gateway` (sql/bootstrap.sql): a role with no table privileges and no
-- BYPASSRLS that can only switch to the request roles. A slip in a handler can then never read
-- across owners: without entering a scope, its statements see nothing at all.
--
-- What the login role itself may do is listed here, and nothing else:
--   * enter an API key's scope (core.enter_api_key_scope, and /me's one-statement read);
--   * find or provision the user of a verified session token (core.user_for_auth_user);
--   * read the applied migration versions, for /ready.

-- Usage only: names in core resolve, nothing in it is readable.
grant usage on schema core to api_gateway;

-- ============================================================================================
-- API-key scope: the lookup becomes a security definer function; the role switch stays invoker
-- ============================================================================================
-- Postgres refuses a role change inside a security definer function, so entering the scope is two
-- steps: core.api_key_claims (definer: it reads core.api_keys, which the login role cannot) resolves
-- the key and checks permissions; core.enter_api_key_scope (invoker) sets the claims and the role.
--
-- Both run on every API-key request, so neither has a SET clause (it would cost each call a
-- search-path rebuild: /me fell from 56-64% to 50% of the `select 1` route with one). Instead every
-- name is schema-qualified, pg_catalog's too, so nothing on the caller's path can stand in for them;
-- and only api_gateway, which has no CREATE anywhere, may call them.
create function core.api_key_claims(p_key_hash bytea, p_required_permissions text[], out owner_id core.object_id, out claims text)
  language plpgsql volatile security definer
  as $$
  declare
    v_key record;
    v_missing text;
  begin
    select k.id, k.owner_id, k.permissions, k.last_used_at, u.auth_user_id into v_key
      from core.api_keys k join core.users u on u.id operator(pg_catalog.=) k.owner_id
      where k.key_hash operator(pg_catalog.=) p_key_hash and k.revoked_at is null;
    if not found then
      raise sqlstate 'PT401' using message = 'The API key is unknown or has been revoked.', hint = 'invalid_api_key';
    end if;
    -- A null list is a caller's bug; treating it as "nothing required" would skip the check.
    if p_required_permissions is null then
      raise exception 'core.api_key_claims: p_required_permissions must be an array, not null';
    end if;
    if pg_catalog.cardinality(p_required_permissions) operator(pg_catalog.>) 0 then
      select required into v_missing
        from pg_catalog.unnest(p_required_permissions) with ordinality as r(required, position)
        where not coalesce((v_key.permissions operator(pg_catalog.->) pg_catalog.split_part(required, ':', 1))
                           operator(pg_catalog.?) pg_catalog.split_part(required, ':', 2), false)
        order by position
        limit 1;
      if v_missing is not null then
        raise sqlstate 'PT403' using message = pg_catalog.format('This API key lacks the permission %s.', v_missing),
          hint = 'missing_permission', detail = pg_catalog.json_build_object('required', v_missing)::text;
      end if;
    end if;
    if v_key.last_used_at is null
       or v_key.last_used_at operator(pg_catalog.<) (pg_catalog.now() operator(pg_catalog.-) interval '1 minute') then
      perform core.record_api_key_use(v_key.id);
    end if;
    owner_id := v_key.owner_id;
    claims := pg_catalog.json_build_object(
      'sub', v_key.auth_user_id, 'role', 'authenticated', 'app_user_id', v_key.owner_id,
      'api_key_id', v_key.id, 'permissions', v_key.permissions)::text;
  end
  $$;
revoke execute on function core.api_key_claims(bytea, text[]) from public;
grant execute on function core.api_key_claims(bytea, text[]) to api_gateway;

create or replace function core.enter_api_key_scope(p_key_hash bytea, p_required_permissions text[])
  returns core.object_id
  language plpgsql volatile
  as $$
  declare
    v_key record;
  begin
    v_key := core.api_key_claims(p_key_hash, p_required_permissions);
    perform pg_catalog.set_config('request.jwt.claims', v_key.claims, true);
    perform pg_catalog.set_config('role', 'authenticated', true);
    return v_key.owner_id;
  end
  $$;
revoke execute on function core.enter_api_key_scope(bytea, text[]) from public;
grant execute on function core.enter_api_key_scope(bytea, text[]) to api_gateway;

revoke execute on function core.me_by_api_key(bytea, text[]) from public;
grant execute on function core.me_by_api_key(bytea, text[]) to api_gateway;

-- ============================================================================================
-- Session tokens and readiness
-- ============================================================================================
grant execute on function core.user_for_auth_user(uuid, text) to api_gateway;

grant usage on schema supabase_migrations to api_gateway;
grant select on supabase_migrations.schema_migrations to api_gateway;
