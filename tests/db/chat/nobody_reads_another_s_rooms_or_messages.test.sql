-- Chat rooms and messages (20261125000500_chat.sql) are their owner's alone: another person neither
-- reads nor changes them, may reuse the same roomId without meeting them, and anon reaches nothing.
begin;
select plan(11);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');
select chat.record_message('room-1', 'm-1', 'user', 'what is on tonight?');
select chat.record_message('room-1', 'a-1', 'assistant', 'two events', p_in_reply_to => 'm-1');

select is((select count(*)::int from chat.rooms), 1, 'alice reads her room');
select is((select count(*)::int from chat.messages), 2, 'and its two messages');

select tests.authenticate_as(:'bob');
select is((select count(*)::int from chat.rooms), 0, 'bob reads none of alice''s rooms');
select is((select count(*)::int from chat.messages), 0, 'nor her messages');

update chat.messages set content = 'changed' where room_id = 'room-1';
update chat.rooms set name = 'mine now' where room_id = 'room-1';
select throws_ok(
  format($$insert into chat.messages (owner_id, room_id, message_id, role, content) values (%L, 'room-1', 'm-9', 'user', 'hi')$$, :'alice'),
  '42501', null, 'bob cannot write into alice''s room'
);

-- The same roomId is bob's own room, apart from alice's.
select is((chat.record_message('room-1', 'm-1', 'user', 'hello'))->>'created', 'true',
  'bob records his own m-1 in his own room-1');
select is((select count(*)::int from chat.messages), 1, 'bob reads only his message');

select tests.clear_authentication();
select results_eq(
  $$select content from chat.messages where owner_id = (select id from core.users where email = 'alice@example.com') order by message_id$$,
  $$values ('two events'), ('what is on tonight?')$$,
  'alice''s messages are as she left them'
);
select is((select name from chat.rooms where owner_id = :'alice' and room_id = 'room-1'), null, 'and her room too');

select tests.authenticate_as_anon();
select throws_ok($$select count(*) from chat.rooms$$, '42501', null, 'anon reads no room');
select throws_ok($$select chat.record_message('r', 'm', 'user', 'x')$$, '42501', null, 'anon records nothing');

select * from finish();
rollback;
