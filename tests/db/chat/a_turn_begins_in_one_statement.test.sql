-- chat.begin_answer (20261125000700_chat_turns.sql, 20261128000300_chat_approvals.sql) records the person's message and claims its one
-- answer; a new claim brings the conversation before the message (finished messages with text,
-- newest first, capped), a retry the stored answer and nothing else. chat.record_transcription
-- records a message the app transcribes before it sends, and the chat fills in its text.
begin;
select plan(17);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

-- Messages of one transaction share now(): the earlier conversation is dated an hour back, each
-- message a second after the last (as the owner: the person may not change a message's date).
create function pg_temp.say(p_message_id text, p_role text, p_content text, p_in_reply_to text default null, p_status text default 'complete')
  returns void
  language plpgsql security definer
  as $$
  begin
    perform chat.record_message('room-1', p_message_id, p_role, p_content, p_status => p_status, p_in_reply_to => p_in_reply_to);
    update chat.messages set created_at = now() - interval '1 hour' + (select count(*) from chat.messages) * interval '1 second'
      where room_id = 'room-1' and message_id = p_message_id;
  end
  $$;

select tests.authenticate_as(:'alice');
select pg_temp.say('m-1', 'user', 'first');
select pg_temp.say('a-1', 'assistant', 'one', 'm-1');
select pg_temp.say('m-2', 'user', 'second');
select pg_temp.say('a-2', 'assistant', '', 'm-2', 'streaming');
select pg_temp.say('m-3', 'user', '');

create temporary table begun as select chat.begin_answer('room-1', 'm-4', 'third', 'text', 'a-4', 'gpt-test', '{}', '{}', 20) as turn;
select is((select turn ->> 'created' from begun), 'true', 'a new message claims its answer');
select is((select turn #>> '{answer,messageId}' || '/' || (turn #>> '{answer,status}') || '/' || (turn #>> '{answer,inReplyTo}') from begun),
  'a-4/streaming/m-4', 'the claim is the answer being written, in reply to the message');
select is((select jsonb_path_query_array(turn -> 'history', '$[*].content') from begun), '["second", "one", "first"]'::jsonb,
  'the history: finished messages with text before this one, newest first');
select is((select turn -> 'approved' from begun), '[]'::jsonb, 'no call was approved');
select is((select content from chat.messages where message_id = 'm-4'), 'third', 'the message is recorded');
select ok((select created_at from chat.messages where message_id = 'm-4') < (select created_at from chat.messages where message_id = 'a-4'),
  'dated before its answer, though both are written in one transaction');

select is(jsonb_array_length(chat.begin_answer('room-1', 'm-5', 'fourth', 'text', 'a-5', 'gpt-test', '{}', '{}', 2) -> 'history'), 2,
  'the history holds at most the messages asked for');

create temporary table retried as select chat.begin_answer('room-1', 'm-4', 'third again', 'text', 'a-6', 'gpt-test', '{}', '{}', 20) as turn;
select is((select (turn ->> 'created') || '/' || (turn #>> '{answer,messageId}') from retried), 'false/a-4', 'a retry finds the answer claimed before');
select ok((select turn -> 'history' = 'null'::jsonb and turn -> 'approved' = 'null'::jsonb from retried), 'and reads and settles nothing');
select is((select content from chat.messages where message_id = 'm-4'), 'third', 'the message keeps its first text');
select is((select count(*)::int from chat.messages where message_id = 'a-6'), 0, 'and no second answer is claimed');

select is(chat.record_transcription('room-1', 'v-1', 'is it open?') #>> '{origin}', 'audio', 'a transcription before its message records the message, from audio');
select is((select content from chat.messages where message_id = 'v-1'), '', 'without text yet');
select chat.begin_answer('room-1', 'v-1', 'Is it open?', 'audio', 'a-v', 'gpt-test', '{}', '{}', 20);
select is((select content || ' / ' || transcription from chat.messages where message_id = 'v-1'), 'Is it open? / is it open?',
  'the chat gives it its text and keeps the transcription');
select is(chat.record_transcription('room-1', 'a-1', 'planted'), null, 'an answer takes no transcription');

select tests.authenticate_as(:'bob');
select is(chat.begin_answer('room-1', 'm-4', 'bob here', 'text', 'b-4', 'gpt-test', '{}', '{}', 20) -> 'history', '[]'::jsonb,
  'bob''s room-1 is his own: he reads none of alice''s conversation');

select tests.authenticate_as_anon();
select throws_ok($$select chat.begin_answer('room-1', 'x', 'x', 'text', 'y', 'm', '{}', '{}', 20)$$, '42501', null, 'anon begins nothing');

select * from finish();
rollback;
