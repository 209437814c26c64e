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

-- Functions may call functions defined further down this file or in a later one; their bodies
-- are checked when they run (pg_dump restores the same way).
set check_function_bodies = off;

CREATE SCHEMA chat;

GRANT USAGE ON SCHEMA chat TO authenticated;
GRANT USAGE ON SCHEMA chat TO service_jobs;

-- Deny by default: a new table or function is reachable only through its own grants.
alter default privileges in schema chat revoke all on tables from public;
alter default privileges in schema chat revoke all on functions from public;


-- Answers
-- Security definer: the person may not delete messages, only this one kind of row of theirs.
CREATE FUNCTION chat.abandon_answer(p_room_id text, p_in_reply_to text) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO ''
    AS $$
    with gone as (
      delete from chat.messages m
        where m.owner_id = core.current_user_id() and m.room_id = p_room_id and m.in_reply_to = p_in_reply_to
          and m.role = 'assistant' and m.status = 'streaming' and m.content = '' and m.tool_results is null
        returning 1)
    select exists (select from gone)
  $$;

REVOKE ALL ON FUNCTION chat.abandon_answer(p_room_id text, p_in_reply_to text) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.abandon_answer(p_room_id text, p_in_reply_to text) TO authenticated;


-- The caller's live assistant grant, its scopes brought up to date: made on first use; once the
-- person revoked it, made again only with `p_enable` (their explicit act), else 403 assistant_disabled.
CREATE FUNCTION chat.assistant_grant(p_scopes text[], p_resource text, p_enable boolean DEFAULT false, OUT grant_id core.object_id, OUT client_id text) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.assistant_grant(p_scopes text[], p_resource text, p_enable boolean, OUT grant_id core.object_id, OUT client_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.assistant_grant(p_scopes text[], p_resource text, p_enable boolean, OUT grant_id core.object_id, OUT client_id text) TO authenticated;


-- What chat-with-assistant does before it asks the model, in one transaction: record the person's
-- message, claim its one answer and, when the claim is new, read the conversation before it.
-- {created, answer, approved, history}: `answer` is the claimed answer (created) or the stored one (a
-- retry: nothing else is done, `approved` and `history` are null). `approved`: the calls this
-- message approved (settle_proposed_calls). `history` is the newest `p_history_messages` finished
-- messages before this one with text, newest first; the caller cuts it to its character budget.
-- Security invoker: RLS keeps every read and write to the caller's own.
CREATE FUNCTION chat.begin_answer(p_room_id text, p_message_id text, p_content text, p_origin text, p_answer_id text, p_model text, p_approve uuid[], p_decline uuid[], p_history_messages integer) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.begin_answer(p_room_id text, p_message_id text, p_content text, p_origin text, p_answer_id text, p_model text, p_approve uuid[], p_decline uuid[], p_history_messages integer) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.begin_answer(p_room_id text, p_message_id text, p_content text, p_origin text, p_answer_id text, p_model text, p_approve uuid[], p_decline uuid[], p_history_messages integer) TO authenticated;


-- The capability registry
CREATE TABLE chat.capabilities (
    id bigint NOT NULL,
    source text NOT NULL,
    server_name text NOT NULL,
    tool_name text NOT NULL,
    title text,
    description text DEFAULT ''::text NOT NULL,
    input_schema jsonb NOT NULL,
    annotations jsonb,
    enabled boolean DEFAULT true NOT NULL,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    withdrawn_at timestamp with time zone,
    CONSTRAINT capabilities_annotations_check CHECK (((annotations IS NULL) OR ((jsonb_typeof(annotations) = 'object'::text) AND (octet_length((annotations)::text) <= 4096)))),
    CONSTRAINT capabilities_description_check CHECK ((char_length(description) <= 4000)),
    CONSTRAINT capabilities_input_schema_check CHECK (((jsonb_typeof(input_schema) = 'object'::text) AND (octet_length((input_schema)::text) <= 65536))),
    CONSTRAINT capabilities_server_name_check CHECK (((char_length(server_name) >= 1) AND (char_length(server_name) <= 100))),
    CONSTRAINT capabilities_source_check CHECK (((source = 'service'::text) OR ((source ~ '^https?://'::text) AND (char_length(source) <= 2048)))),
    CONSTRAINT capabilities_title_check CHECK ((char_length(title) <= 200)),
    CONSTRAINT capabilities_tool_name_check CHECK ((tool_name ~ '^[A-Za-z0-9_.-]{1,128}$'::text)),
    CONSTRAINT capabilities_one_per_source_and_name UNIQUE (source, tool_name),
    CONSTRAINT capabilities_pkey PRIMARY KEY (id)
);

ALTER TABLE chat.capabilities ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME chat.capabilities_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE chat.capabilities ENABLE ROW LEVEL SECURITY;

create policy capabilities_select_authenticated on chat.capabilities for select to authenticated using (true);

GRANT SELECT ON TABLE chat.capabilities TO authenticated;


CREATE FUNCTION chat.capability_json(p_capability chat.capabilities) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.capability_json(p_capability chat.capabilities) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.capability_json(p_capability chat.capabilities) TO authenticated;


-- What the app may send as a roomId or messageId (a UUID, an ObjectId, a client's own scheme).
CREATE FUNCTION chat.is_client_id(p_id text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO ''
    AS $_$ select p_id ~ '^[A-Za-z0-9._:-]{1,128}$' $_$;

REVOKE ALL ON FUNCTION chat.is_client_id(p_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.is_client_id(p_id text) TO authenticated;


-- Messages
CREATE TABLE chat.messages (
    owner_id core.object_id DEFAULT core.current_user_id() NOT NULL,
    room_id text NOT NULL,
    message_id text NOT NULL,
    role text NOT NULL,
    content text DEFAULT ''::text NOT NULL,
    origin text DEFAULT 'text'::text NOT NULL,
    status text DEFAULT 'complete'::text NOT NULL,
    in_reply_to text,
    tool_results jsonb,
    model text,
    transcription text,
    transcribed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT messages_answers_reply_to_a_user_message CHECK (((role = 'user'::text) = (in_reply_to IS NULL))),
    CONSTRAINT messages_content_check CHECK ((char_length(content) <= 200000)),
    CONSTRAINT messages_message_id_check CHECK (chat.is_client_id(message_id)),
    CONSTRAINT messages_model_check CHECK (((char_length(model) >= 1) AND (char_length(model) <= 200))),
    CONSTRAINT messages_origin_check CHECK ((origin = ANY (ARRAY['text'::text, 'audio'::text, 'image'::text]))),
    CONSTRAINT messages_role_check CHECK ((role = ANY (ARRAY['user'::text, 'assistant'::text, 'tool'::text]))),
    CONSTRAINT messages_status_check CHECK ((status = ANY (ARRAY['streaming'::text, 'complete'::text, 'incomplete'::text]))),
    CONSTRAINT messages_tool_results_check CHECK (((tool_results IS NULL) OR ((jsonb_typeof(tool_results) = 'array'::text) AND (octet_length((tool_results)::text) <= 1048576)))),
    CONSTRAINT messages_transcription_check CHECK ((char_length(transcription) <= 200000)),
    CONSTRAINT messages_transcription_has_its_time CHECK (((transcription IS NULL) = (transcribed_at IS NULL))),
    CONSTRAINT messages_pkey PRIMARY KEY (owner_id, room_id, message_id)
);

create unique index messages_one_answer_per_message on chat.messages (owner_id, room_id, in_reply_to) where role = 'assistant';

create index messages_room_order_idx on chat.messages (owner_id, room_id, created_at);

CREATE TRIGGER messages_touch_updated_at BEFORE UPDATE ON chat.messages FOR EACH ROW EXECUTE FUNCTION core.touch_updated_at();

ALTER TABLE chat.messages ENABLE ROW LEVEL SECURITY;

create policy messages_insert_owner on chat.messages for insert to authenticated
  with check (owner_id = (select core.current_user_id()));

create policy messages_select_owner on chat.messages for select to authenticated
  using (owner_id = (select core.current_user_id()));

create policy messages_update_owner on chat.messages for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id()));

GRANT SELECT ON TABLE chat.messages TO authenticated;

GRANT INSERT(owner_id) ON TABLE chat.messages TO authenticated;

GRANT INSERT(room_id) ON TABLE chat.messages TO authenticated;

GRANT INSERT(message_id) ON TABLE chat.messages TO authenticated;

GRANT INSERT(role) ON TABLE chat.messages TO authenticated;

GRANT INSERT(content),UPDATE(content) ON TABLE chat.messages TO authenticated;

GRANT INSERT(origin) ON TABLE chat.messages TO authenticated;

GRANT INSERT(status),UPDATE(status) ON TABLE chat.messages TO authenticated;

GRANT INSERT(in_reply_to) ON TABLE chat.messages TO authenticated;

GRANT INSERT(tool_results),UPDATE(tool_results) ON TABLE chat.messages TO authenticated;

GRANT INSERT(model),UPDATE(model) ON TABLE chat.messages TO authenticated;

GRANT UPDATE(transcription) ON TABLE chat.messages TO authenticated;

GRANT UPDATE(transcribed_at) ON TABLE chat.messages TO authenticated;

ALTER TABLE ONLY chat.messages
    ADD CONSTRAINT messages_owner_id_room_id_in_reply_to_fkey FOREIGN KEY (owner_id, room_id, in_reply_to) REFERENCES chat.messages(owner_id, room_id, message_id) ON DELETE CASCADE;


CREATE FUNCTION chat.message_json(p_message chat.messages) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.message_json(p_message chat.messages) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.message_json(p_message chat.messages) TO authenticated;


-- The caller's room `p_room_id`, created when missing. With `p_event_id`, the room is tied to that
-- event (404 event_not_found unless the caller can see it); without, an existing tie is kept.
-- Opening a room that exists, with no event to tie it to, takes no lock on it, so two messages of
-- one room do not wait for each other's whole turn.
CREATE FUNCTION chat.open_room(p_room_id text, p_event_id core.object_id DEFAULT NULL::text) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.open_room(p_room_id text, p_event_id core.object_id) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.open_room(p_room_id text, p_event_id core.object_id) TO authenticated;


-- Stores a write the model asked for in the caller's answer `p_answer_id`: {callId, expiresAt}.
CREATE FUNCTION chat.propose_call(p_room_id text, p_answer_id text, p_tool_name text, p_arguments jsonb, p_destructive boolean) RETURNS jsonb
    LANGUAGE sql
    SET search_path TO ''
    AS $$
    insert into chat.proposed_calls (room_id, answer_id, tool_name, arguments, destructive)
      values (p_room_id, p_answer_id, p_tool_name, p_arguments, p_destructive)
      returning jsonb_build_object('callId', id, 'expiresAt', community.iso_time(expires_at))
  $$;

REVOKE ALL ON FUNCTION chat.propose_call(p_room_id text, p_answer_id text, p_tool_name text, p_arguments jsonb, p_destructive boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.propose_call(p_room_id text, p_answer_id text, p_tool_name text, p_arguments jsonb, p_destructive boolean) TO authenticated;


-- The message written into the caller's room `p_room_id` (which the caller opened), or, when the room
-- already holds `p_message_id` or (for an answer) the answer to `p_in_reply_to`, the stored one with
-- created = false. begin_answer opens the room once for the message and its answer.
CREATE FUNCTION chat.put_message(p_room_id text, p_message_id text, p_role text, p_content text, p_origin text DEFAULT 'text'::text, p_status text DEFAULT 'complete'::text, p_in_reply_to text DEFAULT NULL::text, p_model text DEFAULT NULL::text, OUT created boolean, OUT message chat.messages) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.put_message(p_room_id text, p_message_id text, p_role text, p_content text, p_origin text, p_status text, p_in_reply_to text, p_model text, OUT created boolean, OUT message chat.messages) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.put_message(p_room_id text, p_message_id text, p_role text, p_content text, p_origin text, p_status text, p_in_reply_to text, p_model text, OUT created boolean, OUT message chat.messages) TO authenticated;


-- Records a message in the caller's room (opened when missing): {created, message}, chat.put_message
-- after chat.open_room. When the room already holds `p_message_id`, or `p_role` is 'assistant' and
-- the room already holds the answer to `p_in_reply_to`, nothing is written and the stored message is
-- answered with created = false: the caller of a retried request learns what exists instead of
-- doing the work twice.
CREATE FUNCTION chat.record_message(p_room_id text, p_message_id text, p_role text, p_content text, p_origin text DEFAULT 'text'::text, p_status text DEFAULT 'complete'::text, p_in_reply_to text DEFAULT NULL::text, p_model text DEFAULT NULL::text) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  declare
    v_put record;
  begin
    perform chat.open_room(p_room_id);
    select * into v_put from chat.put_message(p_room_id, p_message_id, p_role, p_content, p_origin, p_status, p_in_reply_to, p_model);
    return jsonb_build_object('created', v_put.created, 'message', chat.message_json(v_put.message));
  end
  $$;

REVOKE ALL ON FUNCTION chat.record_message(p_room_id text, p_message_id text, p_role text, p_content text, p_origin text, p_status text, p_in_reply_to text, p_model text) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.record_message(p_room_id text, p_message_id text, p_role text, p_content text, p_origin text, p_status text, p_in_reply_to text, p_model text) TO authenticated;


-- Stores `p_transcription` on the caller's message `p_message_id` of room `p_room_id`, recording it
-- first when missing (no text, origin audio): the message's JSON, or null when that id is not one of
-- the person's messages (an answer's id).
CREATE FUNCTION chat.record_transcription(p_room_id text, p_message_id text, p_transcription text) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.record_transcription(p_room_id text, p_message_id text, p_transcription text) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.record_transcription(p_room_id text, p_message_id text, p_transcription text) TO authenticated;


-- Registers what `p_source` lists now: `p_tools` is a JSON array of {name, title, description,
-- inputSchema, annotations}. New tools are inserted (enabled), known ones updated and seen again;
-- the source's tools missing from the list are marked withdrawn. Answers {newCount, capabilities},
-- each capability with `new` (registered by this call). Concurrent calls agree: a tool is new
-- for exactly one of them.
CREATE FUNCTION chat.register_capabilities(p_source text, p_server_name text, p_tools jsonb) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.register_capabilities(p_source text, p_server_name text, p_tools jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.register_capabilities(p_source text, p_server_name text, p_tools jsonb) TO service_jobs;


-- Rooms
CREATE TABLE chat.rooms (
    owner_id core.object_id DEFAULT core.current_user_id() NOT NULL,
    room_id text NOT NULL,
    event_id core.object_id,
    name text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT rooms_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 200))),
    CONSTRAINT rooms_room_id_check CHECK (chat.is_client_id(room_id)),
    CONSTRAINT rooms_pkey PRIMARY KEY (owner_id, room_id),
    CONSTRAINT rooms_event_id_fkey FOREIGN KEY (event_id) REFERENCES community.events(id) ON DELETE SET NULL,
    CONSTRAINT rooms_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE
);

create index rooms_event_idx on chat.rooms (event_id) where event_id is not null;

CREATE TRIGGER rooms_touch_updated_at BEFORE UPDATE ON chat.rooms FOR EACH ROW EXECUTE FUNCTION core.touch_updated_at();

ALTER TABLE chat.rooms ENABLE ROW LEVEL SECURITY;

create policy rooms_insert_owner on chat.rooms for insert to authenticated
  with check (owner_id = (select core.current_user_id())
              and (event_id is null or exists (select from community.events e where e.id = event_id)));

create policy rooms_select_owner on chat.rooms for select to authenticated
  using (owner_id = (select core.current_user_id()));

create policy rooms_update_owner on chat.rooms for update to authenticated
  using (owner_id = (select core.current_user_id()))
  with check (owner_id = (select core.current_user_id())
              and (event_id is null or exists (select from community.events e where e.id = event_id)));

GRANT SELECT ON TABLE chat.rooms TO authenticated;

GRANT INSERT(owner_id) ON TABLE chat.rooms TO authenticated;

GRANT INSERT(room_id) ON TABLE chat.rooms TO authenticated;

GRANT INSERT(event_id),UPDATE(event_id) ON TABLE chat.rooms TO authenticated;

GRANT INSERT(name),UPDATE(name) ON TABLE chat.rooms TO authenticated;


CREATE FUNCTION chat.room_json(p_room chat.rooms) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO ''
    AS $$
    select jsonb_build_object(
      'roomId', p_room.room_id,
      'eventId', p_room.event_id,
      'name', p_room.name,
      'createdAt', community.iso_time(p_room.created_at),
      'updatedAt', community.iso_time(p_room.updated_at))
  $$;

REVOKE ALL ON FUNCTION chat.room_json(p_room chat.rooms) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.room_json(p_room chat.rooms) TO authenticated;


-- Approves `p_approve` and declines `p_decline`, the caller's pending calls of room `p_room_id`, in
-- the name of their message `p_message_id`: the approved calls [{callId, name, arguments}] in the
-- order they were asked, for the caller to run. All or nothing: an id that is not the caller's, not
-- this room's, settled or expired answers 409 approval_not_pending, and two approved destructive
-- calls 409 one_destructive_call_at_a_time. Security definer: the person may not change a call.
CREATE FUNCTION chat.settle_proposed_calls(p_room_id text, p_message_id text, p_approve uuid[], p_decline uuid[]) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO ''
    AS $$
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

REVOKE ALL ON FUNCTION chat.settle_proposed_calls(p_room_id text, p_message_id text, p_approve uuid[], p_decline uuid[]) FROM PUBLIC;
GRANT ALL ON FUNCTION chat.settle_proposed_calls(p_room_id text, p_message_id text, p_approve uuid[], p_decline uuid[]) TO authenticated;


-- Chat: room names without bidirectional controls
-- U+202A-U+202E (embeddings, overrides), U+2066-U+2069 (isolates), U+200E/U+200F (marks) and U+061C
-- (the Arabic letter mark) make a name in a chat list read in another order than its characters
-- ("Pay <RLO>gnp.exe" shows as "Pay exe.png"). A name of nothing else is no name.
CREATE FUNCTION chat.strip_room_name_bidi_controls() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
  begin
    new.name := nullif(pg_catalog.regexp_replace(new.name, '[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]', '', 'g'), '');
    return new;
  end
  $$;

REVOKE ALL ON FUNCTION chat.strip_room_name_bidi_controls() FROM PUBLIC;


-- The assistant's grant, and whether the person turned the assistant off
CREATE TABLE chat.assistant_access (
    owner_id core.object_id NOT NULL,
    grant_id core.object_id NOT NULL,
    enabled_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT assistant_access_pkey PRIMARY KEY (owner_id),
    CONSTRAINT assistant_access_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES core.users(id) ON DELETE CASCADE
);

ALTER TABLE chat.assistant_access ENABLE ROW LEVEL SECURITY;

-- Only security definer functions read and write it: this policy, admitting nothing, says so.
CREATE POLICY deny_all ON chat.assistant_access AS RESTRICTIVE USING (false) WITH CHECK (false);


-- Proposed calls
CREATE TABLE chat.proposed_calls (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    owner_id core.object_id DEFAULT core.current_user_id() NOT NULL,
    room_id text NOT NULL,
    answer_id text NOT NULL,
    settled_by text,
    tool_name text NOT NULL,
    arguments jsonb NOT NULL,
    destructive boolean NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    expires_at timestamp with time zone DEFAULT (now() + '00:15:00'::interval) NOT NULL,
    settled_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT proposed_calls_arguments_check CHECK (((jsonb_typeof(arguments) = 'object'::text) AND (octet_length((arguments)::text) <= 65536))),
    CONSTRAINT proposed_calls_settled_once CHECK ((((status = 'pending'::text) = (settled_at IS NULL)) AND ((settled_at IS NULL) = (settled_by IS NULL)))),
    CONSTRAINT proposed_calls_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'declined'::text]))),
    CONSTRAINT proposed_calls_tool_name_check CHECK (((char_length(tool_name) >= 1) AND (char_length(tool_name) <= 128))),
    CONSTRAINT proposed_calls_pkey PRIMARY KEY (id),
    CONSTRAINT proposed_calls_owner_id_room_id_answer_id_fkey FOREIGN KEY (owner_id, room_id, answer_id) REFERENCES chat.messages(owner_id, room_id, message_id) ON DELETE CASCADE,
    CONSTRAINT proposed_calls_owner_id_room_id_settled_by_fkey FOREIGN KEY (owner_id, room_id, settled_by) REFERENCES chat.messages(owner_id, room_id, message_id) ON DELETE CASCADE
);

create index proposed_calls_answer_idx on chat.proposed_calls (owner_id, room_id, answer_id);

create index proposed_calls_settled_by_idx on chat.proposed_calls (owner_id, room_id, settled_by) where settled_by is not null;

ALTER TABLE chat.proposed_calls ENABLE ROW LEVEL SECURITY;

create policy proposed_calls_insert_owner on chat.proposed_calls for insert to authenticated
  with check (owner_id = (select core.current_user_id()) and status = 'pending');

create policy proposed_calls_select_owner on chat.proposed_calls for select to authenticated
  using (owner_id = (select core.current_user_id()));

GRANT SELECT ON TABLE chat.proposed_calls TO authenticated;

GRANT INSERT(room_id) ON TABLE chat.proposed_calls TO authenticated;

GRANT INSERT(answer_id) ON TABLE chat.proposed_calls TO authenticated;

GRANT INSERT(tool_name) ON TABLE chat.proposed_calls TO authenticated;

GRANT INSERT(arguments) ON TABLE chat.proposed_calls TO authenticated;

GRANT INSERT(destructive) ON TABLE chat.proposed_calls TO authenticated;


-- Foreign keys and policies that name a table or function defined below their own table.
ALTER TABLE ONLY chat.messages
    ADD CONSTRAINT messages_owner_id_room_id_fkey FOREIGN KEY (owner_id, room_id) REFERENCES chat.rooms(owner_id, room_id) ON DELETE CASCADE;

CREATE TRIGGER rooms_name_without_bidi_controls BEFORE INSERT OR UPDATE OF name ON chat.rooms FOR EACH ROW EXECUTE FUNCTION chat.strip_room_name_bidi_controls();

