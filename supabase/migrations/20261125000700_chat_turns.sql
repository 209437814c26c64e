-- A turn of the chat in one statement, and a transcription that arrives before its message.
--
--   begin_answer          what chat-with-assistant does before it asks the model, in one transaction:
--                         record the person's message (filling the text of a transcription's
--                         placeholder), claim its one answer, and, when the claim is new, settle the
--                         writes the room's previous answer waits for and read the conversation before
--                         the message. One round trip instead of four, and the history is read from
--                         the message's own time down the room's order index, so it costs the same in
--                         a room of ten messages or ten thousand.
--                         The message and its answer are written in one transaction, whose now() they
--                         would share: a message is dated by the clock instead, so that a room's order
--                         (created_at) puts every question before its answer.
--   put_message           record_message's write without opening the room, answering the row itself:
--                         begin_answer opens the room once for the message and its answer, and
--                         reads the message's time from the row it wrote.
--   record_transcription  transcribe-audio stores the text on the person's message, recording that
--                         message first (no text yet, origin audio) when the app transcribes before it
--                         sends: the chat then fills in its text and keeps the transcription.

alter table chat.messages alter column created_at set default clock_timestamp();

-- A room's order is its messages' times (the clock's, so two never share one in practice): the
-- index no longer carries message_id as a tie-break, with which a generic plan took it for a lookup
-- by message_id (an index-only scan over the whole room) instead of the primary key.
drop index chat.messages_room_order_idx;
create index messages_room_order_idx on chat.messages (owner_id, room_id, created_at);

-- As in 20261125000600_chat_assistant.sql, the message's time read first by its key, then the
-- latest answer before it straight down the room's order.
create or replace function chat.settle_confirmations(p_room_id text, p_message_id text, p_approve boolean) returns jsonb
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_sent_at timestamptz;
    v_asked chat.messages;
    v_decision text;
  begin
    select u.created_at into v_sent_at from chat.messages u
      where u.owner_id = core.current_user_id() and u.room_id = p_room_id and u.message_id = p_message_id and u.role = 'user';
    select a.* into v_asked
      from chat.messages a
      where a.owner_id = core.current_user_id() and a.room_id = p_room_id and a.created_at < v_sent_at
        and a.role = 'assistant' and a.in_reply_to <> p_message_id
      order by a.created_at desc
      limit 1
      for update;
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

-- Opening a room that exists, with no event to tie it to, takes no lock on it (the upsert of
-- 20261125000500_chat.sql locked the room's row until the end of the transaction, so that two
-- messages of one room waited for each other's whole turn).
create or replace function chat.open_room(p_room_id text, p_event_id core.object_id default null) returns jsonb
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_room chat.rooms;
  begin
    if core.current_user_id() is null then
      raise exception 'a room belongs to a signed-in person' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    if p_event_id is null then
      insert into chat.rooms as r (owner_id, room_id) values (core.current_user_id(), p_room_id)
        on conflict (owner_id, room_id) do nothing
        returning * into v_room;
    else
      if not exists (select from community.events e where e.id = p_event_id) then
        raise exception 'no event % is visible to you', p_event_id using errcode = 'PT404', hint = 'event_not_found';
      end if;
      insert into chat.rooms as r (owner_id, room_id, event_id) values (core.current_user_id(), p_room_id, p_event_id)
        on conflict (owner_id, room_id) do update set event_id = excluded.event_id
          where r.event_id is distinct from excluded.event_id
        returning * into v_room;
    end if;
    if v_room.room_id is null then
      select * into v_room from chat.rooms r where r.owner_id = core.current_user_id() and r.room_id = p_room_id;
    end if;
    return chat.room_json(v_room);
  end
  $$;

-- The message written into the caller's room `p_room_id` (which the caller opened), or, when the room
-- already holds `p_message_id` or (for an answer) the answer to `p_in_reply_to`, the stored one with
-- created = false. record_message (20261125000500_chat.sql) is now this after opening the room;
-- begin_answer opens the room once for the message and its answer.
create function chat.put_message(
  p_room_id text, p_message_id text, p_role text, p_content text,
  p_origin text default 'text', p_status text default 'complete', p_in_reply_to text default null, p_model text default null,
  out created boolean, out message chat.messages
)
  language plpgsql volatile
  set search_path = ''
  as $$
  begin
    insert into chat.messages (owner_id, room_id, message_id, role, content, origin, status, in_reply_to, model)
      values (core.current_user_id(), p_room_id, p_message_id, p_role, coalesce(p_content, ''), p_origin, p_status, p_in_reply_to, p_model)
      on conflict do nothing
      returning * into message;
    created := message.message_id is not null;
    if created then
      return;
    end if;
    select * into message from chat.messages m
      where m.owner_id = core.current_user_id() and m.room_id = p_room_id
        and (m.message_id = p_message_id or (p_role = 'assistant' and m.role = 'assistant' and m.in_reply_to = p_in_reply_to))
      order by m.message_id = p_message_id desc
      limit 1;
  end
  $$;

create or replace function chat.record_message(
  p_room_id text, p_message_id text, p_role text, p_content text,
  p_origin text default 'text', p_status text default 'complete', p_in_reply_to text default null, p_model text default null
) returns jsonb
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_put record;
  begin
    perform chat.open_room(p_room_id);
    select * into v_put from chat.put_message(p_room_id, p_message_id, p_role, p_content, p_origin, p_status, p_in_reply_to, p_model);
    return jsonb_build_object('created', v_put.created, 'message', chat.message_json(v_put.message));
  end
  $$;

-- {created, answer, settled, history}: `answer` is the claimed answer (created) or the stored one
-- (a retry: nothing else is done, `settled` and `history` are null). `history` is the newest
-- `p_history_messages` finished messages before this one with text, newest first; the caller cuts
-- it to its character budget. Security invoker: RLS keeps every read and write to the caller's own.
create function chat.begin_answer(
  p_room_id text, p_message_id text, p_content text, p_origin text,
  p_answer_id text, p_model text, p_approve boolean, p_history_messages integer
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
      return jsonb_build_object('created', false, 'answer', chat.message_json(v_claim.message), 'settled', null, 'history', null);
    end if;
    return jsonb_build_object(
      'created', true,
      'answer', chat.message_json(v_claim.message),
      'settled', chat.settle_confirmations(p_room_id, p_message_id, p_approve),
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

-- Stores `p_transcription` on the caller's message `p_message_id` of room `p_room_id`, recording it
-- first when missing (no text, origin audio): the message's JSON, or null when that id is not one of
-- the person's messages (an answer's id).
create function chat.record_transcription(p_room_id text, p_message_id text, p_transcription text) returns jsonb
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_message chat.messages;
  begin
    perform chat.open_room(p_room_id);
    perform chat.put_message(p_room_id, p_message_id, 'user', '', 'audio');
    update chat.messages m set transcription = p_transcription, transcribed_at = now()
      where m.owner_id = core.current_user_id() and m.room_id = p_room_id and m.message_id = p_message_id and m.role = 'user'
      returning * into v_message;
    return case when v_message.message_id is null then null else chat.message_json(v_message) end;
  end
  $$;

revoke execute on function chat.put_message(text, text, text, text, text, text, text, text),
  chat.begin_answer(text, text, text, text, text, text, boolean, integer), chat.record_transcription(text, text, text) from public;
grant execute on function chat.put_message(text, text, text, text, text, text, text, text),
  chat.begin_answer(text, text, text, text, text, text, boolean, integer), chat.record_transcription(text, text, text) to authenticated;
