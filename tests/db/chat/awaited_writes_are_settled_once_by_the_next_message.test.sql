-- The writes an answer waits for (20261125000600_chat_assistant.sql) are settled by the person's next
-- message in the room, once: approved with a yes within 15 minutes of the question, else declined or
-- expired; only the room's latest answer counts, and a second settlement finds nothing left.
begin;
select plan(10);

select tests.create_user('alice@example.com') as alice \gset

-- Messages of one transaction share now(): each is dated by its place in the conversation instead
-- (as the owner: the person may not change a message's date).
create function pg_temp.say(p_message_id text, p_role text, p_content text, p_in_reply_to text default null, p_results jsonb default null)
  returns void
  language plpgsql security definer
  as $$
  begin
    perform chat.record_message('room-1', p_message_id, p_role, p_content, p_in_reply_to => p_in_reply_to);
    update chat.messages set tool_results = p_results, created_at = clock_timestamp() where room_id = 'room-1' and message_id = p_message_id;
  end
  $$;
create temporary table waiting as select '[{"id": "call_1", "name": "list_events", "status": "ok"},
  {"id": "call_2", "name": "delete_event", "arguments": {"eventId": "0123456789abcdef01234567"}, "status": "awaiting_confirmation"}]'::jsonb as results;
grant select on waiting to authenticated;

select tests.authenticate_as(:'alice');
select pg_temp.say('m-1', 'user', 'delete my test event');
select pg_temp.say('a-1', 'assistant', 'Shall I delete it?', 'm-1', (select results from waiting));
select pg_temp.say('m-2', 'user', 'yes');
select is(chat.settle_confirmations('room-1', 'm-2', true) ->> 'decision', 'approved', 'a yes approves what the latest answer waits for');
select is((select tool_results -> 1 ->> 'status' from chat.messages where message_id = 'a-1'), 'approved', 'and marks it approved');
select is((select tool_results -> 0 ->> 'status' from chat.messages where message_id = 'a-1'), 'ok', 'leaving the other results as they were');
select is(chat.settle_confirmations('room-1', 'm-2', true) -> 'actions', '[]'::jsonb, 'settling again finds nothing left to run');

-- Another question, answered by something else: declined.
select pg_temp.say('a-2', 'assistant', 'Done. Delete the other one too?', 'm-2', (select results from waiting));
select pg_temp.say('m-3', 'user', 'what is on tonight?');
select is(chat.settle_confirmations('room-1', 'm-3', false) ->> 'decision', 'declined', 'any other message declines');
select is(chat.settle_confirmations('room-1', 'm-3', true) -> 'actions', '[]'::jsonb, 'and a later yes cannot take it back');

-- An older answer's waiting write is not the latest answer's: a yes now does not reach it.
select pg_temp.say('a-3', 'assistant', 'Two events.', 'm-3');
update chat.messages set tool_results = (select results from waiting) where message_id = 'a-1';
select pg_temp.say('m-4', 'user', 'yes');
select is(chat.settle_confirmations('room-1', 'm-4', true) -> 'actions', '[]'::jsonb, 'only the room''s latest answer is answered');

-- A question left for more than 15 minutes expires.
select pg_temp.say('a-4', 'assistant', 'Shall I?', 'm-4', (select results from waiting));
select pg_temp.say('m-5', 'user', 'yes');
select tests.clear_authentication();
alter table chat.messages disable trigger messages_touch_updated_at;
update chat.messages set updated_at = now() - interval '16 minutes' where message_id = 'a-4';
alter table chat.messages enable trigger messages_touch_updated_at;
select tests.authenticate_as(:'alice');
select is(chat.settle_confirmations('room-1', 'm-5', true) ->> 'decision', 'expired', 'a yes after 15 minutes finds the question expired');
select is(chat.settle_confirmations('room-1', 'm-5', true) -> 'actions', '[]'::jsonb, 'nothing is left to run');

select tests.create_user('bob@example.com') as bob \gset
select tests.authenticate_as(:'bob');
select is(chat.settle_confirmations('room-1', 'm-5', true) -> 'actions', '[]'::jsonb, 'bob settles nothing of alice''s');

select * from finish();
rollback;
