-- Chat: the assistant's rooms and messages (each person's own), and the registry of the MCP tools the
-- assistant may offer (the service's, everyone's).
--
--   rooms         named by the app (`roomId`), owned by the person, optionally tied to an event the
--                 person can see. Keys are (owner, roomId): two people may use the same roomId and
--                 never meet.
--   messages      keyed by the app's `messageId`, unique in its room: recording a message id a second
--                 time (a retry) answers the stored message and changes nothing. An assistant message
--                 answers one user message (`in_reply_to`) and there is at most one such answer, so a
--                 retried request finds the answer (or the one being streamed) instead of asking the
--                 model again. `origin` is how the person sent it (text, audio, image); a transcription
--                 is stored on the message it transcribes.
--   capabilities  the tools discover-mcp-capabilities found: on the service's own public MCP surface
--                 (source 'service') or on a configured external server (source: its URL without
--                 query or credentials), unique per source and tool name. `enabled` is the operator's
--                 switch (new tools start enabled; discovery never turns one back on); `withdrawn_at`
--                 is set when the tool's source stops listing it, and cleared if it lists it again.
--
-- Who does what:
--   authenticated  (the person, through the app functions) rooms and messages under RLS, their own only;
--                  reads the registry.
--   service_jobs   writes the registry, through chat.register_capabilities only: what is registered is
--                  the service's decision (its own surface and the servers it is configured with),
--                  never a person's.

-- ============================================================================================
-- Schema and privileges
-- ============================================================================================
create schema chat;
revoke all on schema chat from public;
grant usage on schema chat to authenticated, service_jobs;
alter default privileges in schema chat revoke all on tables from public;
alter default privileges in schema chat revoke all on functions from public;

-- What the app may send as a roomId or messageId (a UUID, an ObjectId, a client's own scheme).
create function chat.is_client_id(p_id text) returns boolean
  language sql immutable
  set search_path = ''
  as $$ select p_id ~ '^[A-Za-z0-9._:-]{1,128}$' $$;

-- ============================================================================================
-- Rooms
-- ============================================================================================
create table chat.rooms (
  owner_id   core.object_id not null default core.current_user_id() references core.users (id) on delete cascade,
  room_id    text not null check (chat.is_client_id(room_id)),
  event_id   core.object_id references community.events (id) on delete set null,
  name       text check (char_length(name) between 1 and 200),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (owner_id, room_id)
);
-- For the event's deletion (set null) and for finding the rooms of an event.
create index rooms_event_idx on chat.rooms (event_id) where event_id is not null;
create trigger rooms_touch_updated_at before update on chat.rooms for each row execute function core.touch_updated_at();
alter table chat.rooms enable row level security;

create policy rooms_select_owner on chat.rooms for select to authenticated
  using (owner_id = (select core.current_user_id()));
-- A room is tied only to an event its owner can see (the subquery reads community.events under its RLS).
create policy rooms_insert_owner on chat.rooms for insert to authenticated
  with check (owner_id = (select core.current_user_id())
              and (event_id is null or exists (select from community.events e where e.id = event_id)));
create policy rooms_update_owner on chat.rooms for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id())
              and (event_id is null or exists (select from community.events e where e.id = event_id)));

grant select on chat.rooms to authenticated;
grant insert (owner_id, room_id, event_id, name) on chat.rooms to authenticated;
grant update (event_id, name) on chat.rooms to authenticated;

create function chat.room_json(p_room chat.rooms) returns jsonb
  language sql stable
  set search_path = ''
  as $$
    select jsonb_build_object(
      'roomId', p_room.room_id,
      'eventId', p_room.event_id,
      'name', p_room.name,
      'createdAt', community.iso_time(p_room.created_at),
      'updatedAt', community.iso_time(p_room.updated_at))
  $$;

-- The caller's room `p_room_id`, created when missing. With `p_event_id`, the room is tied to that
-- event (404 event_not_found unless the caller can see it); without, an existing tie is kept.
create function chat.open_room(p_room_id text, p_event_id core.object_id default null) returns jsonb
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_room chat.rooms;
  begin
    if core.current_user_id() is null then
      raise exception 'a room belongs to a signed-in person' using errcode = 'PT401', hint = 'unauthenticated';
    end if;
    if p_event_id is not null and not exists (select from community.events e where e.id = p_event_id) then
      raise exception 'no event % is visible to you', p_event_id using errcode = 'PT404', hint = 'event_not_found';
    end if;
    insert into chat.rooms as r (owner_id, room_id, event_id)
      values (core.current_user_id(), p_room_id, p_event_id)
      on conflict (owner_id, room_id) do update set event_id = excluded.event_id
        where excluded.event_id is not null and r.event_id is distinct from excluded.event_id
      returning * into v_room;
    if v_room.room_id is null then
      select * into v_room from chat.rooms r where r.owner_id = core.current_user_id() and r.room_id = p_room_id;
    end if;
    return chat.room_json(v_room);
  end
  $$;

-- ============================================================================================
-- Messages
-- ============================================================================================
create table chat.messages (
  owner_id       core.object_id not null default core.current_user_id(),
  room_id        text not null,
  message_id     text not null check (chat.is_client_id(message_id)),
  role           text not null check (role in ('user', 'assistant', 'tool')),
  content        text not null default '' check (char_length(content) <= 200000),
  -- How the person sent it (SPEC's originalType); an answer is text.
  origin         text not null default 'text' check (origin in ('text', 'audio', 'image')),
  status         text not null default 'complete' check (status in ('streaming', 'complete', 'incomplete')),
  -- The user message this assistant or tool message answers.
  in_reply_to    text,
  tool_results   jsonb check (tool_results is null or (jsonb_typeof(tool_results) = 'array' and octet_length(tool_results::text) <= 1048576)),
  model          text check (char_length(model) between 1 and 200),
  transcription  text check (char_length(transcription) <= 200000),
  transcribed_at timestamptz,
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now(),
  primary key (owner_id, room_id, message_id),
  foreign key (owner_id, room_id) references chat.rooms (owner_id, room_id) on delete cascade,
  foreign key (owner_id, room_id, in_reply_to) references chat.messages (owner_id, room_id, message_id) on delete cascade,
  constraint messages_answers_reply_to_a_user_message check ((role = 'user') = (in_reply_to is null)),
  constraint messages_transcription_has_its_time check ((transcription is null) = (transcribed_at is null))
);
-- One answer per user message: a retry finds it instead of asking the model again.
create unique index messages_one_answer_per_message on chat.messages (owner_id, room_id, in_reply_to) where role = 'assistant';
-- A room's history in order.
create index messages_room_order_idx on chat.messages (owner_id, room_id, created_at, message_id);
create trigger messages_touch_updated_at before update on chat.messages for each row execute function core.touch_updated_at();
alter table chat.messages enable row level security;

-- The room's owner is the message's (the foreign key names both), so owner_id alone decides.
create policy messages_select_owner on chat.messages for select to authenticated
  using (owner_id = (select core.current_user_id()));
create policy messages_insert_owner on chat.messages for insert to authenticated
  with check (owner_id = (select core.current_user_id()));
create policy messages_update_owner on chat.messages for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));

grant select on chat.messages to authenticated;
grant insert (owner_id, room_id, message_id, role, content, origin, status, in_reply_to, tool_results, model)
  on chat.messages to authenticated;
-- Finishing a streamed answer, storing a transcription.
grant update (content, status, tool_results, model, transcription, transcribed_at) on chat.messages to authenticated;

create function chat.message_json(p_message chat.messages) returns jsonb
  language sql stable
  set search_path = ''
  as $$
    select jsonb_build_object(
      'roomId', p_message.room_id,
      'messageId', p_message.message_id,
      'role', p_message.role,
      'content', p_message.content,
      'origin', p_message.origin,
      'status', p_message.status,
      'inReplyTo', p_message.in_reply_to,
      'toolResults', p_message.tool_results,
      'model', p_message.model,
      'transcription', p_message.transcription,
      'transcribedAt', community.iso_time(p_message.transcribed_at),
      'createdAt', community.iso_time(p_message.created_at),
      'updatedAt', community.iso_time(p_message.updated_at))
  $$;

-- Records a message in the caller's room (opened when missing): {created, message}. When the room
-- already holds `p_message_id`, or `p_role` is 'assistant' and the room already holds the answer to
-- `p_in_reply_to`, nothing is written and the stored message is answered with created = false: the
-- caller of a retried request learns what exists instead of doing the work twice.
create function chat.record_message(
  p_room_id text, p_message_id text, p_role text, p_content text,
  p_origin text default 'text', p_status text default 'complete', p_in_reply_to text default null, p_model text default null
) returns jsonb
  language plpgsql volatile
  set search_path = ''
  as $$
  declare
    v_message chat.messages;
  begin
    perform chat.open_room(p_room_id);
    insert into chat.messages (owner_id, room_id, message_id, role, content, origin, status, in_reply_to, model)
      values (core.current_user_id(), p_room_id, p_message_id, p_role, coalesce(p_content, ''), p_origin, p_status, p_in_reply_to, p_model)
      on conflict do nothing
      returning * into v_message;
    if v_message.message_id is not null then
      return jsonb_build_object('created', true, 'message', chat.message_json(v_message));
    end if;
    select * into v_message from chat.messages m
      where m.owner_id = core.current_user_id() and m.room_id = p_room_id
        and (m.message_id = p_message_id or (p_role = 'assistant' and m.role = 'assistant' and m.in_reply_to = p_in_reply_to))
      order by m.message_id = p_message_id desc
      limit 1;
    return jsonb_build_object('created', false, 'message', chat.message_json(v_message));
  end
  $$;

-- ============================================================================================
-- The capability registry
-- ============================================================================================
create table chat.capabilities (
  id            bigint generated always as identity primary key,
  -- 'service' (the service's own public MCP surface) or the external server's URL.
  source        text not null check (source = 'service' or (source ~ '^https?://' and char_length(source) <= 2048)),
  -- The server's name: the service's MCP server name, or the configured name of the external server.
  server_name   text not null check (char_length(server_name) between 1 and 100),
  tool_name     text not null check (tool_name ~ '^[A-Za-z0-9_.-]{1,128}$'),
  title         text check (char_length(title) <= 200),
  description   text not null default '' check (char_length(description) <= 4000),
  input_schema  jsonb not null check (jsonb_typeof(input_schema) = 'object' and octet_length(input_schema::text) <= 65536),
  annotations   jsonb check (annotations is null or (jsonb_typeof(annotations) = 'object' and octet_length(annotations::text) <= 4096)),
  enabled       boolean not null default true,
  first_seen_at timestamptz not null default now(),
  last_seen_at  timestamptz not null default now(),
  withdrawn_at  timestamptz,
  constraint capabilities_one_per_source_and_name unique (source, tool_name)
);
alter table chat.capabilities enable row level security;

create policy capabilities_select_authenticated on chat.capabilities for select to authenticated using (true);
grant select on chat.capabilities to authenticated;

create function chat.capability_json(p_capability chat.capabilities) returns jsonb
  language sql stable
  set search_path = ''
  as $$
    select jsonb_build_object(
      'name', p_capability.tool_name,
      'title', p_capability.title,
      'description', p_capability.description,
      'server', p_capability.server_name,
      'source', case when p_capability.source = 'service' then 'service' else 'external' end,
      'inputSchema', p_capability.input_schema,
      'annotations', p_capability.annotations,
      'enabled', p_capability.enabled,
      'firstSeenAt', community.iso_time(p_capability.first_seen_at),
      'lastSeenAt', community.iso_time(p_capability.last_seen_at))
  $$;

-- Registers what `p_source` lists now: `p_tools` is a JSON array of {name, title, description,
-- inputSchema, annotations}. New tools are inserted (enabled), known ones updated and seen again;
-- the source's tools missing from the list are marked withdrawn. Answers {newCount, capabilities},
-- each capability with `new` (registered by this call). Concurrent calls agree: a tool is new
-- for exactly one of them.
create function chat.register_capabilities(p_source text, p_server_name text, p_tools jsonb) returns jsonb
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_registered jsonb;
  begin
    if jsonb_typeof(p_tools) is distinct from 'array' then
      raise exception 'p_tools must be a JSON array' using errcode = 'PT400', hint = 'validation_failed';
    end if;
    with listed as (
      select distinct on (t ->> 'name') t ->> 'name' as tool_name, t ->> 'title' as title,
             coalesce(t ->> 'description', '') as description, coalesce(t -> 'inputSchema', '{"type": "object"}') as input_schema,
             nullif(t -> 'annotations', 'null') as annotations
      from jsonb_array_elements(p_tools) t
    ), upserted as (
      insert into chat.capabilities as c (source, server_name, tool_name, title, description, input_schema, annotations)
        select p_source, p_server_name, l.tool_name, l.title, l.description, l.input_schema, l.annotations from listed l
        on conflict (source, tool_name) do update
          set server_name = excluded.server_name, title = excluded.title, description = excluded.description,
              input_schema = excluded.input_schema, annotations = excluded.annotations,
              last_seen_at = now(), withdrawn_at = null
        -- xmax is 0 on a row this statement inserted, and the updating transaction's id on one it updated.
        returning c.tool_name, c.xmax = 0 as inserted, chat.capability_json(c) as capability
    ), withdrawn as (
      update chat.capabilities c set withdrawn_at = now()
        where c.source = p_source and c.withdrawn_at is null
          and c.tool_name not in (select l.tool_name from listed l where l.tool_name is not null)
    )
    select jsonb_build_object(
      'newCount', count(*) filter (where u.inserted),
      'capabilities', coalesce(jsonb_agg(u.capability || jsonb_build_object('new', u.inserted) order by u.tool_name), '[]'))
      into v_registered
      from upserted u;
    return v_registered;
  end
  $$;

-- ============================================================================================
-- Grants
-- ============================================================================================
revoke execute on all functions in schema chat from public;
grant execute on function
  chat.is_client_id(text), chat.room_json(chat.rooms), chat.open_room(text, core.object_id),
  chat.message_json(chat.messages), chat.record_message(text, text, text, text, text, text, text, text),
  chat.capability_json(chat.capabilities)
  to authenticated;
grant execute on function chat.register_capabilities(text, text, jsonb) to service_jobs;
