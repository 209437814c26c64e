-- Rate limits counted exactly: one counter row per bucket and window, incremented under its row
-- lock, so concurrent hits of one bucket are counted one after the other and never more than p_limit
-- are admitted per window. (The per-connection shards summed only committed counts: a user could pass
-- a limit by the requests in flight. The shard comments in 20261123000800_core.sql and
-- 20261123001300_mcp.sql no longer hold.)
--
-- The lock lasts until the counting transaction ends, so one user's concurrent requests queue on it
-- for that long. The gateway therefore counts the hot limits in a statement of its own before the
-- operation (the MCP backend's per-key limit, sponsorship check and usage/record): the row is locked
-- only while that statement commits, and a hit counts even when the operation then fails. Counted
-- inside the operation's transaction instead, 50 concurrent checks of one user (the sponsorship
-- bench's pgbench, its statements sent as the API sends them) fell from about 1,900 to 840 per second.
-- Limits taken in the operation's own statement stay there where that statement is short (the OAuth
-- functions, deposit_preflight, relays), and inside an MCP tools/call's transaction, which holds the
-- row until the call ends: at most p_limit admitted calls a window hold it, a refused one releases it
-- at once.

-- Fold the shards of the windows still counting into one row each; then the key loses the shard.
-- Dropping the old key first takes the table's exclusive lock until the migration commits, so no hit
-- lands in a shard after the fold. (Not `lock table`: the Supabase CLI sends a migration's statements
-- as one pipeline, an implicit transaction in which PostgreSQL refuses LOCK.)
alter table core.rate_limit_windows drop constraint rate_limit_windows_pkey;
with counted as (delete from core.rate_limit_windows returning bucket, window_start, hits)
insert into core.rate_limit_windows (bucket, window_start, shard, hits)
  select bucket, window_start, 0, sum(hits)::integer from counted group by bucket, window_start;
alter table core.rate_limit_windows drop column shard;
alter table core.rate_limit_windows add primary key (bucket, window_start);

-- Counts one hit of the calling user on `p_action`; over `p_limit` hits in the current window of
-- `p_window_seconds`, raises PT429 with the seconds until the window ends. A refused hit rolls back
-- with its transaction, so it leaves the count as it was. A null p_limit counts nothing: the caller
-- took that limit already, in a statement of its own (take_api_key_rate_limit, or this function as
-- authenticated), as the gateway does for the hot operations.
create or replace function core.take_rate_limit(p_action text, p_limit integer, p_window_seconds integer) returns void
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_bucket text := p_action || ':' || coalesce(core.current_user_id(), 'anonymous');
    v_window_start timestamptz := to_timestamp(floor(extract(epoch from now()) / p_window_seconds) * p_window_seconds);
    v_hits integer;
  begin
    if p_limit is null then
      return;
    end if;
    insert into core.rate_limit_windows as w (bucket, window_start, hits)
      values (v_bucket, v_window_start, 1)
      on conflict (bucket, window_start) do update set hits = w.hits + 1
      returning w.hits into v_hits;
    if v_hits > p_limit then
      raise exception 'rate limit reached: at most % % requests per % s', p_limit, p_action, p_window_seconds
        using errcode = 'PT429', hint = 'rate_limited',
              detail = json_build_object(
                'retryAfterSeconds', ceil(extract(epoch from v_window_start + make_interval(secs => p_window_seconds) - now()))::integer,
                'limit', p_limit, 'windowSeconds', p_window_seconds)::text;
    end if;
  end
  $$;

-- The gateway's way to count a hit in a statement of its own, before the operation's transaction:
-- as the request's role (a session's claims), or for an API key in one statement that enters the
-- key's scope first (invoker rights like core.enter_api_key_scope; every name qualified).
grant execute on function core.take_rate_limit(text, integer, integer) to authenticated;

create function core.take_api_key_rate_limit(p_key_hash bytea, p_required_permissions text[], p_action text, p_limit integer,
    p_window_seconds integer)
  returns core.object_id
  language plpgsql volatile
  as $$
  declare
    v_owner core.object_id := core.enter_api_key_scope(p_key_hash, p_required_permissions);
  begin
    perform core.take_rate_limit(p_action, p_limit, p_window_seconds);
    return v_owner;
  end
  $$;
revoke execute on function core.take_api_key_rate_limit(bytea, text[], text, integer, integer) from public;
grant execute on function core.take_api_key_rate_limit(bytea, text[], text, integer, integer) to api_gateway;
