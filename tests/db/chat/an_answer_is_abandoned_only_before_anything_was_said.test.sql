-- chat.abandon_answer (20261125000600_chat_assistant.sql) deletes an answer whose provider failed
-- before it said anything, so a retry of the same messageId may ask again; an answer with text or
-- tool results, a finished one, another person's and a user message all stay.
begin;
select plan(7);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');
select chat.record_message('room-1', 'm-1', 'user', 'hi');
select chat.record_message('room-1', 'a-1', 'assistant', '', p_status => 'streaming', p_in_reply_to => 'm-1');
select chat.record_message('room-1', 'm-2', 'user', 'and now?');
select chat.record_message('room-1', 'a-2', 'assistant', 'Let me', p_status => 'streaming', p_in_reply_to => 'm-2');
select chat.record_message('room-1', 'm-3', 'user', 'and then?');
select chat.record_message('room-1', 'a-3', 'assistant', '', p_status => 'streaming', p_in_reply_to => 'm-3');
update chat.messages set tool_results = '[{"id": "call_1", "status": "ok"}]' where message_id = 'a-3';

select tests.authenticate_as(:'bob');
select is(chat.abandon_answer('room-1', 'm-1'), false, 'bob cannot abandon alice''s answer');

select tests.authenticate_as(:'alice');
select is(chat.abandon_answer('room-1', 'm-2'), false, 'an answer that said something stays');
select is(chat.abandon_answer('room-1', 'm-3'), false, 'and one with a tool result');
select is(chat.abandon_answer('room-1', 'a-1'), false, 'a messageId that is not answered is no answer');
select is(chat.abandon_answer('room-1', 'm-1'), true, 'an empty streaming answer is abandoned');
select is((select count(*)::int from chat.messages where in_reply_to = 'm-1'), 0, 'so m-1 has no answer');
select is((chat.record_message('room-1', 'a-4', 'assistant', '', p_status => 'streaming', p_in_reply_to => 'm-1'))->>'created', 'true',
  'and a retry may claim it again');

select * from finish();
rollback;
