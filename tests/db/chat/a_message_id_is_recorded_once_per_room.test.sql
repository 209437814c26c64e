-- A messageId is recorded once in its room (20261125000500_chat.sql): recording it again (a retried
-- request) answers the stored message with created = false and changes nothing; a user message has
-- at most one assistant answer, so a retry finds the answer instead of asking the model again.
begin;
select plan(12);

select tests.create_user('alice@example.com') as alice \gset
select tests.authenticate_as(:'alice');

select is((chat.record_message('room-1', 'm-1', 'user', 'first words'))->>'created', 'true', 'the first recording creates the message');
select is((select count(*)::int from chat.rooms where room_id = 'room-1'), 1, 'and opens the room');

select is(chat.record_message('room-1', 'm-1', 'user', 'other words') #>> '{message,content}', 'first words',
  'recording the same messageId again answers the stored message');
select is((chat.record_message('room-1', 'm-1', 'user', 'other words'))->>'created', 'false', 'with created = false');
select is((select count(*)::int from chat.messages where message_id = 'm-1'), 1, 'and stores nothing more');

select is((chat.record_message('room-2', 'm-1', 'user', 'elsewhere'))->>'created', 'true', 'another room has its own m-1');

-- The answer: claimed once per user message, whatever id a retry gives it.
select is((chat.record_message('room-1', 'a-1', 'assistant', '', p_status => 'streaming', p_in_reply_to => 'm-1', p_model => 'gpt-test'))->>'created',
  'true', 'the first answer to m-1 is recorded (streaming)');
select is(chat.record_message('room-1', 'a-2', 'assistant', '', p_status => 'streaming', p_in_reply_to => 'm-1') #>> '{message,messageId}',
  'a-1', 'a second answer to m-1 is refused: the first one is answered');
select is((select count(*)::int from chat.messages where role = 'assistant'), 1, 'one answer in all');

update chat.messages set content = 'two events tonight', status = 'complete' where room_id = 'room-1' and message_id = 'a-1';
select is(chat.record_message('room-1', 'a-3', 'assistant', '', p_in_reply_to => 'm-1') #>> '{message,status}', 'complete',
  'a retry after the stream finished finds the complete answer');

select throws_ok($$select chat.record_message('room-1', 'a-4', 'assistant', 'x', p_in_reply_to => 'nope')$$, '23503', null,
  'an answer must reply to a message of the room');
select throws_ok($$select chat.record_message('room-1', 'bad id!', 'user', 'x')$$, '23514', null,
  'a messageId outside the allowed characters is refused');

select * from finish();
rollback;
