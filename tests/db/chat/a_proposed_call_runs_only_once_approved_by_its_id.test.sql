-- A write the assistant asked about (chat.proposed_calls, 20261128000300_chat_approvals.sql) is
-- settled only by its id, named by the person's message in its room: approved once (the update that
-- takes it out of pending is the claim), never again, never by another person or in another room,
-- never once declined or expired; destructive calls one at a time; a request naming one id that
-- cannot be settled settles none.
begin;
select plan(16);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');
select chat.record_message('room-1', 'm-1', 'user', 'tidy up');
select chat.record_message('room-1', 'a-1', 'assistant', 'Shall I?', p_in_reply_to => 'm-1');
select chat.record_message('room-2', 'm-1', 'user', 'elsewhere');
select chat.propose_call('room-1', 'a-1', 'delete_event', '{"eventId": "0123456789abcdef01234567"}', true) ->> 'callId' as delete_1 \gset
select chat.propose_call('room-1', 'a-1', 'delete_hub', '{"hubId": "0123456789abcdef01234568"}', true) ->> 'callId' as delete_2 \gset
select chat.propose_call('room-1', 'a-1', 'join_hub', '{"hubId": "0123456789abcdef01234569"}', false) ->> 'callId' as join_1 \gset
select chat.propose_call('room-1', 'a-1', 'create_event', '{"name": "x"}', false) ->> 'callId' as create_1 \gset
select chat.record_message('room-1', 'm-2', 'user', 'OK.');
select chat.record_message('room-1', 'm-3', 'user', 'approved in the app');
select chat.record_message('room-1', 'm-4', 'user', 'again');

select throws_ok(format($$select chat.settle_proposed_calls('room-1', 'm-2', array[%L, %L]::uuid[], '{}')$$, :'delete_1', :'delete_2'),
  'PT409', 'destructive calls are approved one at a time', 'two destructive calls in one approval are refused');
select is((select count(*)::int from chat.proposed_calls where status = 'pending'), 4, 'and neither is settled');
select throws_ok(format($$select chat.settle_proposed_calls('room-1', 'm-2', array[%L, %L]::uuid[], '{}')$$, :'join_1', gen_random_uuid()),
  'PT409', null, 'an id that names no call is refused');
select is((select status from chat.proposed_calls where id = :'join_1'), 'pending', 'and the other id of the request is not settled either');
select throws_ok(format($$select chat.settle_proposed_calls('room-2', 'm-1', array[%L]::uuid[], '{}')$$, :'join_1'),
  'PT409', null, 'another room of the person does not approve it');

select tests.authenticate_as(:'bob');
select chat.record_message('room-1', 'm-1', 'user', 'hi');
select throws_ok(format($$select chat.settle_proposed_calls('room-1', 'm-1', array[%L]::uuid[], '{}')$$, :'join_1'),
  'PT409', null, 'bob does not approve alice''s call, even in his room of the same name');
select is_empty('select 1 from chat.proposed_calls', 'nor reads it');

select tests.authenticate_as(:'alice');
select is(chat.settle_proposed_calls('room-1', 'm-3', array[:'delete_1', :'join_1']::uuid[], array[:'create_1']::uuid[]),
  jsonb_build_array(
    jsonb_build_object('callId', :'delete_1', 'name', 'delete_event', 'arguments', '{"eventId": "0123456789abcdef01234567"}'::jsonb),
    jsonb_build_object('callId', :'join_1', 'name', 'join_hub', 'arguments', '{"hubId": "0123456789abcdef01234569"}'::jsonb)),
  'approving answers the stored calls to run, in the order they were asked');
select is((select string_agg(status || '/' || coalesce(settled_by, '-'), ',' order by created_at) from chat.proposed_calls),
  'approved/m-3,pending/-,approved/m-3,declined/m-3', 'each is settled by the message that named it; the declined one too');
select throws_ok(format($$select chat.settle_proposed_calls('room-1', 'm-4', array[%L]::uuid[], '{}')$$, :'delete_1'),
  'PT409', null, 'an approved call is not approved again');
select throws_ok(format($$select chat.settle_proposed_calls('room-1', 'm-4', array[%L]::uuid[], '{}')$$, :'create_1'),
  'PT409', null, 'nor a declined one');
select is(chat.settle_proposed_calls('room-1', 'm-4', '{}', '{}'), '[]'::jsonb, 'a message that names no call settles nothing');

-- Waiting for more than 15 minutes: expired.
select tests.clear_authentication();
update chat.proposed_calls set expires_at = now() - interval '1 second' where id = :'delete_2';
select tests.authenticate_as(:'alice');
select throws_ok(format($$select chat.settle_proposed_calls('room-1', 'm-4', array[%L]::uuid[], '{}')$$, :'delete_2'),
  'PT409', null, 'an expired call is not approved');

select throws_ok($$update chat.proposed_calls set status = 'pending'$$, '42501', null, 'the person cannot put a call back to pending');
select throws_ok(format($$insert into chat.proposed_calls (room_id, answer_id, tool_name, arguments, destructive, status)
  values ('room-1', 'a-1', 'delete_event', '{}', true, 'approved')$$), '42501', null, 'nor store a call already approved');

select tests.authenticate_as_anon();
select throws_ok($$select chat.settle_proposed_calls('room-1', 'm-1', '{}', '{}')$$, '42501', null, 'anon settles nothing');

select * from finish();
rollback;
