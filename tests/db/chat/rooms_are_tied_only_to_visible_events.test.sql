-- A room is tied only to an event its owner can see (20261125000500_chat.sql): another person's
-- draft is refused as if it did not exist, whether through chat.open_room or a direct write.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_event(:'bob') as public_event \gset
select tests.create_event(:'bob', 'INCOMPLETE') as draft_event \gset

select tests.authenticate_as(:'alice');
select is(chat.open_room('room-1', :'public_event')->>'eventId', :'public_event', 'a visible event ties the room');
select is(chat.open_room('room-1')->>'eventId', :'public_event', 'opening it again without an event keeps the tie');
select is(tests.error_of(format($$select chat.open_room('room-2', %L)$$, :'draft_event')),
  '{"code": "PT404", "hint": "event_not_found"}'::jsonb, 'another person''s draft is not found');
select throws_ok(format($$update chat.rooms set event_id = %L where room_id = 'room-1'$$, :'draft_event'), '42501', null,
  'nor can a direct update tie it');
select is((select event_id::text from chat.rooms where room_id = 'room-1'), :'public_event', 'the room keeps its event');

select * from finish();
rollback;
