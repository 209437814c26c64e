-- The assistant of chat-with-assistant acting in the chat schema: its OAuth grant, an answer given up
-- before anything was said, and the writes it waits for the person to confirm.
--
--   assistant_grant       the in-app assistant acts as the person through the public MCP tools, so it
--                         needs what every public MCP client has: a client id and a live grant of the
--                         person's (confirmation links are bound to both, the audit names them). One
--                         live grant per person for the client `eventhub-app-assistant`, made on
--                         first use and listed with the person's other grants: revoking it ends its
--                         pending confirmation links, and the next chat makes a new one. It issues no
--                         token (no authorization code or refresh token is ever made for it).
--   abandon_answer        an answer claimed (status streaming) whose provider failed before a word or
--                         a tool result: deleted, so a retry of the same messageId may ask again.
--   settle_confirmations  a write the model asked for is not run on its word: the answer stores it in
--                         tool_results with status awaiting_confirmation, and the person's next
--                         message in the room settles every such entry of the room's latest answer,
--                         once (under the answer's row lock): approved (the message said yes, within
--                         15 minutes of the question), declined or expired. Only an approved entry is
--                         run, by the service, with the arguments the person was shown.

-- ============================================================================================
-- The assistant's grant
-- ============================================================================================
create function chat.assistant_grant(p_scopes text[], p_resource text, out grant_id core.object_id, out client_id text)
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_user core.object_id := core.current_user_id();
    v_client constant text := 'eventhub-app-assistant';
    v_grant core.object_id;
  begin
    if v_user is null then
      raise exception 'the assistant acts for a signed-in person' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    -- One person's first requests, run at once, make one grant.
    perform from core.users u where u.id = v_user for update;
    update mcp_oauth.grants g set scopes = p_scopes, resource = p_resource, redirect_uri = p_resource, last_used_at = now()
      where g.id = (select l.id from mcp_oauth.grants l
                    where l.user_id = v_user and l.client_id = v_client and l.revoked_at is null
                    order by l.created_at desc limit 1)
      returning g.id into v_grant;
    if v_grant is null then
      insert into mcp_oauth.grants (user_id, client_id, client_name, redirect_uri, scopes, resource)
        values (v_user, v_client, 'Check-in app assistant', p_resource, p_scopes, p_resource)
        returning id into v_grant;
    end if;
    grant_id := v_grant;
    client_id := v_client;
  end
  $$;

-- ============================================================================================
-- Answers
-- ============================================================================================
-- Security definer: the person may not delete messages, only this one kind of row of theirs.
create function chat.abandon_answer(p_room_id text, p_in_reply_to text) returns boolean
  language sql volatile security definer
  set search_path = ''
  as $$
    with gone as (
      delete from chat.messages m
        where m.owner_id = core.current_user_id() and m.room_id = p_room_id and m.in_reply_to = p_in_reply_to
          and m.role = 'assistant' and m.status = 'streaming' and m.content = '' and m.tool_results is null
        returning 1)
    select exists (select from gone)
  $$;

-- Settles the writes the room's latest answer before `p_message_id` (the person's new message) waits
-- for: {decision, actions}, the entries settled now (none when nothing was waiting, or when another
-- request settled them first). Security invoker: RLS keeps it to the caller's own messages.
create function chat.settle_confirmations(p_room_id text, p_message_id text, p_approve boolean) returns jsonb
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_asked chat.messages;
    v_decision text;
  begin
    select a.* into v_asked
      from chat.messages a
      join chat.messages u on u.owner_id = a.owner_id and u.room_id = a.room_id and u.message_id = p_message_id and u.role = 'user'
      where a.owner_id = core.current_user_id() and a.room_id = p_room_id and a.role = 'assistant'
        and a.in_reply_to <> p_message_id and a.created_at < u.created_at
      order by a.created_at desc, a.message_id desc
      limit 1
      for update of a;
    if v_asked.message_id is null or not coalesce(v_asked.tool_results @> '[{"status": "awaiting_confirmation"}]', false) then
      return jsonb_build_object('decision', null, 'actions', '[]'::jsonb);
    end if;
    v_decision := case when not p_approve then 'declined'
                       when v_asked.updated_at < now() - interval '15 minutes' then 'expired'
                       else 'approved' end;
    update chat.messages m
      set tool_results = (select jsonb_agg(case when e ->> 'status' = 'awaiting_confirmation' then e || jsonb_build_object('status', v_decision) else e end
                                           order by i)
                          from jsonb_array_elements(v_asked.tool_results) with ordinality t (e, i))
      where m.owner_id = v_asked.owner_id and m.room_id = v_asked.room_id and m.message_id = v_asked.message_id;
    return jsonb_build_object('decision', v_decision, 'actions',
      (select jsonb_agg(e order by i) from jsonb_array_elements(v_asked.tool_results) with ordinality t (e, i)
       where e ->> 'status' = 'awaiting_confirmation'));
  end
  $$;

-- ============================================================================================
-- Grants
-- ============================================================================================
revoke execute on function chat.assistant_grant(text[], text), chat.abandon_answer(text, text),
  chat.settle_confirmations(text, text, boolean) from public;
grant execute on function chat.assistant_grant(text[], text), chat.abandon_answer(text, text),
  chat.settle_confirmations(text, text, boolean) to authenticated;
