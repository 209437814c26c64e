-- A room's name never carries Unicode bidirectional controls (U+202A-U+202E, U+2066-U+2069,
-- U+200E, U+200F, U+061C), whoever stores it: they would let a name shown in a chat list read in
-- another order than its characters (20261128000400_red_team_low_findings.sql). A name of nothing
-- else is no name.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.authenticate_as(:'alice');

insert into chat.rooms (room_id, name)
  values ('room-1', 'Pay ' || U&'\202E' || 'gnp.exe' || U&'\202C' || ' now');
select is((select name from chat.rooms where room_id = 'room-1'), 'Pay gnp.exe now', 'an insert stores the name without them');

update chat.rooms set name = U&'\2066\2067\2068' || 'Berlin' || U&'\2069\200E\200F\061C\202A\202B\202D' || ' meetup'
  where room_id = 'room-1';
select is((select name from chat.rooms where room_id = 'room-1'), 'Berlin meetup', 'so does an update, for each of them');

update chat.rooms set name = 'Ünïcödé ' || U&'\200D' || ' stays' where room_id = 'room-1';
select is((select name from chat.rooms where room_id = 'room-1'), 'Ünïcödé ' || U&'\200D' || ' stays',
  'other characters, a zero-width joiner included, are kept');

update chat.rooms set name = U&'\202E\202C' where room_id = 'room-1';
select is((select name from chat.rooms where room_id = 'room-1'), null, 'a name of bidirectional controls only is no name');

select is(chat.open_room('room-2')->>'name', null, 'a room opened without a name has none');

select * from finish();
rollback;
