-- The assistant's approvals: a write the model asks for runs only when the person approves that exact
-- call in the app, by its id; and the assistant, once the person revoked its grant, stays off until
-- they turn it on again.
--
--   proposed_calls         one row per write the model asked for and the person was shown: the tool,
--                          its exact arguments, whether it is destructive, and its id (random, made
--                          here, never the model's). It waits (pending) for 15 minutes. The person's
--                          next requests name ids to approve or decline (chat-with-assistant's
--                          `approve`, `decline`); conversational text approves nothing. The update
--                          that moves a call out of pending is its claim: only the request whose
--                          update took the row runs it, with the stored tool and arguments, so an id
--                          approved twice, even at the same instant, runs once.
--   settle_proposed_calls  that claim, for the calls of one room named by one message of the person:
--                          every id named must be theirs, in this room and pending, and at most one
--                          approved call may be destructive (destructive calls are approved one by
--                          one), else nothing is settled (409).
--   assistant_access       the person's assistant grant once made. It outlives the grant's revocation
--                          (and the grant's purge), so that a revoked assistant is not silently made
--                          again by the next chat: chat.assistant_grant answers 403
--                          assistant_disabled until the person turns it on (p_enable).
--   begin_answer           as in 20261125000700_chat_turns.sql, settling the calls the request names
--                          instead of taking the person's text as a yes; chat.settle_confirmations,
--                          which did that, is gone.

-- ============================================================================================
-- Proposed calls
-- ============================================================================================
create table chat.proposed_calls (
  id          uuid primary key default gen_random_uuid(),
  owner_id    core.object_id not null default core.current_user_id(),
  room_id     text not null,
  -- The answer that asked, and the person's message that settled it.
  answer_id   text not null,
  settled_by  text,
  tool_name   text not null check (char_length(tool_name) between 1 and 128),
  arguments   jsonb not null check (jsonb_typeof(arguments) = 'object' and octet_length(arguments::text) <= 65536),
  destructive boolean not null,
  status      text not null default 'pending' check (status in ('pending', 'approved', 'declined')),
  expires_at  timestamptz not null default now() + interval '15 minutes',
  settled_at  timestamptz,
  created_at  timestamptz not null default clock_timestamp(),
  foreign key (owner_id, room_id, answer_id) references chat.messages (owner_id, room_id, message_id) on delete cascade,
  foreign key (owner_id, room_id, settled_by) references chat.messages (owner_id, room_id, message_id) on delete cascade,
  constraint proposed_calls_settled_once check ((status = 'pending') = (settled_at is null) and (settled_at is null) = (settled_by is null))
);
create index proposed_calls_answer_idx on chat.proposed_calls (owner_id, room_id, answer_id);
create index proposed_calls_settled_by_idx on chat.proposed_calls (owner_id, room_id, settled_by) where settled_by is not null;
alter table chat.proposed_calls enable row level security;

-- The person reads and proposes their own; only settle_proposed_calls changes a call.
create policy proposed_calls_select_owner on chat.proposed_calls for select to authenticated
  using (owner_id = (select core.current_user_id()));
create policy proposed_calls_insert_owner on chat.proposed_calls for insert to authenticated
  with check (owner_id = (select core.current_user_id()) and status = 'pending');
grant select on chat.proposed_calls to authenticated;
grant insert (room_id, answer_id, tool_name, arguments, destructive) on chat.proposed_calls to authenticated;

-- Stores a write the model asked for in the caller's answer `p_answer_id`: {callId, expiresAt}.
create function chat.propose_call(p_room_id text, p_answer_id text, p_tool_name text, p_arguments jsonb, p_destructive boolean)
  returns jsonb
  language sql volatile
  set search_path = ''
  as $$
    insert into chat.proposed_calls (room_id, answer_id, tool_name, arguments, destructive)
      values (p_room_id, p_answer_id, p_tool_name, p_arguments, p_destructive)
      returning jsonb_build_object('callId', id, 'expiresAt', community.iso_time(expires_at))
  $$;

-- Approves `p_approve` and declines `p_decline`, the caller's pending calls of room `p_room_id`, in
-- the name of their message `p_message_id`: the approved calls [{callId, name, arguments}] in the
-- order they were asked, for the caller to run. All or nothing: an id that is not the caller's, not
-- this room's, settled or expired answers 409 approval_not_pending, and two approved destructive
-- calls 409 one_destructive_call_at_a_time. Security definer: the person may not change a call.
create function chat.settle_proposed_calls(p_room_id text, p_message_id text, p_approve uuid[], p_decline uuid[]) returns jsonb
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
    v_named uuid[] := array(select distinct unnest(coalesce(p_approve, '{}') || coalesce(p_decline, '{}')));
    v_settled uuid[];
    v_destructive integer;
    v_approved jsonb;
  begin
    if v_user is null then
      raise exception 'calls are approved by a signed-in person' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    if cardinality(v_named) = 0 then
      return '[]'::jsonb;
    end if;
    -- The update is the claim: a request that finds a call no longer pending (another request took
    -- it, even one still running, whose row lock it waited for) settles nothing.
    with settled as (
      update chat.proposed_calls c
        set status = case when c.id = any(coalesce(p_approve, '{}')) then 'approved' else 'declined' end,
            settled_by = p_message_id, settled_at = now()
        where c.id = any(v_named) and c.owner_id = v_user and c.room_id = p_room_id
          and c.status = 'pending' and c.expires_at > now()
        returning c.*)
    select array_agg(s.id),
           count(*) filter (where s.status = 'approved' and s.destructive),
           coalesce(jsonb_agg(jsonb_build_object('callId', s.id, 'name', s.tool_name, 'arguments', s.arguments) order by s.created_at)
                      filter (where s.status = 'approved'), '[]'::jsonb)
      into v_settled, v_destructive, v_approved
      from settled s;
    if coalesce(cardinality(v_settled), 0) < cardinality(v_named) then
      raise exception 'a call you named is not waiting for your approval in this room: unknown, already settled or expired'
        using errcode = 'PT409', hint = 'approval_not_pending',
              detail = jsonb_build_object('callIds', (select jsonb_agg(n) from unnest(v_named) n where n <> all(coalesce(v_settled, '{}'))))::text;
    end if;
    if v_destructive > 1 then
      raise exception 'destructive calls are approved one at a time'
        using errcode = 'PT409', hint = 'one_destructive_call_at_a_time';
    end if;
    return v_approved;
  end
  $$;

-- ============================================================================================
-- The assistant's grant, and whether the person turned the assistant off
-- ============================================================================================
create table chat.assistant_access (
  owner_id   core.object_id primary key references core.users (id) on delete cascade,
  -- No foreign key: the grant's purge must not turn the assistant back on.
  grant_id   core.object_id not null,
  enabled_at timestamptz not null default now()
);
-- Read and written by chat.assistant_grant only (security definer): no policy, no privilege.
alter table chat.assistant_access enable row level security;

insert into chat.assistant_access (owner_id, grant_id, enabled_at)
  select distinct on (g.user_id) g.user_id, g.id, g.created_at
  from mcp_oauth.grants g
  where g.client_id = 'eventhub-app-assistant'
  order by g.user_id, g.created_at desc;

drop function chat.assistant_grant(text[], text);

-- The caller's live assistant grant, its scopes brought up to date: made on first use; once the
-- person revoked it, made again only with `p_enable` (their explicit act), else 403 assistant_disabled.
create function chat.assistant_grant(p_scopes text[], p_resource text, p_enable boolean default false,
  out grant_id core.object_id, out client_id text)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
    v_client constant text := 'eventhub-app-assistant';
    v_known core.object_id;
    v_grant core.object_id;
  begin
    if v_user is null then
      raise exception 'the assistant acts for a signed-in person' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    -- One person's first requests, run at once, make one grant.
    perform from core.users u where u.id = v_user for update;
    select a.grant_id into v_known from chat.assistant_access a where a.owner_id = v_user;
    update mcp_oauth.grants g set scopes = p_scopes, resource = p_resource, redirect_uri = p_resource, last_used_at = now()
      where g.id = v_known and g.user_id = v_user and g.revoked_at is null
      returning g.id into v_grant;
    if v_grant is null then
      if v_known is not null and not p_enable then
        raise exception 'you turned the assistant off by revoking its grant; turn it on again to use its tools'
          using errcode = 'PT403', hint = 'assistant_disabled';
      end if;
      insert into mcp_oauth.grants (user_id, client_id, client_name, redirect_uri, scopes, resource)
        values (v_user, v_client, 'Check-in app assistant', p_resource, p_scopes, p_resource)
        returning id into v_grant;
      insert into chat.assistant_access as a (owner_id, grant_id) values (v_user, v_grant)
        on conflict (owner_id) do update set grant_id = excluded.grant_id, enabled_at = now();
    end if;
    grant_id := v_grant;
    client_id := v_client;
  end
  $$;

-- ============================================================================================
-- A turn begins
-- ============================================================================================
drop function chat.begin_answer(text, text, text, text, text, text, boolean, integer);
drop function chat.settle_confirmations(text, text, boolean);

-- {created, answer, approved, history}: as in 20261125000700_chat_turns.sql, with `approved` the
-- calls this message approved (settle_proposed_calls) in place of `settled`; a retry settles nothing.
create function chat.begin_answer(
  p_room_id text, p_message_id text, p_content text, p_origin text,
  p_answer_id text, p_model text, p_approve uuid[], p_decline uuid[], p_history_messages integer
) returns jsonb
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_person record;
    v_claim record;
  begin
    perform chat.open_room(p_room_id);
    select * into v_person from chat.put_message(p_room_id, p_message_id, 'user', p_content, p_origin);
    if not v_person.created and (v_person.message).content = '' then
      update chat.messages m set content = coalesce(p_content, '')
        where m.owner_id = core.current_user_id() and m.room_id = p_room_id and m.message_id = p_message_id
          and m.role = 'user' and m.content = '';
    end if;
    select * into v_claim from chat.put_message(p_room_id, p_answer_id, 'assistant', '', 'text', 'streaming', p_message_id, p_model);
    if not v_claim.created then
      return jsonb_build_object('created', false, 'answer', chat.message_json(v_claim.message), 'approved', null, 'history', null);
    end if;
    return jsonb_build_object(
      'created', true,
      'answer', chat.message_json(v_claim.message),
      'approved', chat.settle_proposed_calls(p_room_id, p_message_id, p_approve, p_decline),
      'history', coalesce((
        select jsonb_agg(jsonb_build_object('role', h.role, 'content', h.content, 'origin', h.origin) order by h.created_at desc)
        from (
          select m.role, m.content, m.origin, m.created_at
          from chat.messages m
          where m.owner_id = core.current_user_id() and m.room_id = p_room_id and m.created_at <= (v_person.message).created_at
            and m.role in ('user', 'assistant') and m.status <> 'streaming' and m.content <> ''
            and m.message_id <> p_message_id and m.in_reply_to is distinct from p_message_id
          order by m.created_at desc
          limit p_history_messages) h), '[]'::jsonb));
  end
  $$;

-- ============================================================================================
-- Grants
-- ============================================================================================
revoke execute on function chat.propose_call(text, text, text, jsonb, boolean),
  chat.settle_proposed_calls(text, text, uuid[], uuid[]),
  chat.assistant_grant(text[], text, boolean),
  chat.begin_answer(text, text, text, text, text, text, uuid[], uuid[], integer) from public;
grant execute on function chat.propose_call(text, text, text, jsonb, boolean),
  chat.settle_proposed_calls(text, text, uuid[], uuid[]),
  chat.assistant_grant(text[], text, boolean),
  chat.begin_answer(text, text, text, text, text, text, uuid[], uuid[], integer) to authenticated;
