-- Reservations (20261125000200_checkin.sql): seats are given in order until the capacity, then the
-- waitlist; one active reservation per person; cancelling or declining promotes the oldest
-- waitlisted one in the same transaction; approval-required events start pending and approving
-- needs a free seat; the registration window and drafts refuse; only the owner decides.
begin;
select plan(24);

select tests.create_user('host@example.com') as host \gset
select tests.create_user('a@example.com') as a \gset
select tests.create_user('b@example.com') as b \gset
select tests.create_user('c@example.com') as c \gset
select tests.create_user('d@example.com') as d \gset
select tests.create_event(:'host') as ev \gset
select tests.create_event(:'host', 'INCOMPLETE') as draft \gset

select tests.authenticate_as(:'a');
select is(tests.error_of(format('select checkin.save_settings(%L, 2, null, null, null, null)', :'ev'))->>'hint', 'not_event_owner',
  'only the owner changes the settings');
select tests.authenticate_as(:'host');
select is((checkin.save_settings(:'ev', 2, null, null, null, null))->>'capacity', '2', 'the owner sets a capacity of 2');

create function pg_temp.reserve(p_user text, p_event text) returns jsonb language plpgsql as $$
  declare v jsonb;
  begin
    perform tests.authenticate_as(p_user);
    select reservation into v from checkin.reserve(p_event);
    return v;
  end $$;

select is(pg_temp.reserve(:'a', :'ev')->>'status', 'approved', 'the first person gets a seat');
select is((select created from checkin.reserve(:'ev')), false, 'reserving again answers the same reservation, not a new one');
select is((select count(*) from checkin.reservations where event_id = :'ev'), 1::bigint, 'and writes nothing');
select is(pg_temp.reserve(:'b', :'ev')->>'status', 'approved', 'the second gets the last seat');
select is(pg_temp.reserve(:'c', :'ev')->>'status', 'waitlisted', 'the third is waitlisted');
select is(pg_temp.reserve(:'d', :'ev')->>'status', 'waitlisted', 'and the fourth');
select pg_temp.reserve(:'a', :'ev')->>'id' as res_a \gset
select pg_temp.reserve(:'c', :'ev')->>'id' as res_c \gset
select pg_temp.reserve(:'d', :'ev')->>'id' as res_d \gset
select pg_temp.reserve(:'b', :'ev')->>'id' as res_b \gset

select tests.authenticate_as(:'b');
select is(tests.error_of(format('select checkin.cancel_reservation(%L, %L)', :'ev', :'res_a'))->>'hint', 'reservation_not_found',
  'nobody cancels another person''s reservation (it is not even visible)');
select tests.authenticate_as(:'a');
select is((checkin.cancel_reservation(:'ev', :'res_a'))->>'status', 'cancelled', 'the person cancels');
select is((select status::text from checkin.reservations where id = :'res_c'), null, 'another attendee''s row is not readable');
select tests.clear_authentication();
select is((select status::text from checkin.reservations where id = :'res_c'), 'approved', 'the oldest waitlisted one got the seat at once');
select is((select status::text from checkin.reservations where id = :'res_d'), 'waitlisted', 'the next one still waits');
select is(pg_temp.reserve(:'a', :'ev')->>'status', 'waitlisted', 'reserving again after cancelling is a new reservation, at the back');

select tests.authenticate_as(:'c');
select is(tests.error_of(format('select checkin.decide_reservation(%L, %L, false)', :'ev', :'res_b'))->>'hint', 'not_event_owner',
  'an attendee does not decide');
select tests.authenticate_as(:'host');
select is((checkin.decide_reservation(:'ev', :'res_b', false))->>'status', 'declined', 'the host declines an approved one');
select tests.clear_authentication();
select is((select status::text from checkin.reservations where id = :'res_d'), 'approved', 'its seat goes to the oldest waitlisted one');
select tests.authenticate_as(:'host');
select is(tests.error_of(format('select checkin.decide_reservation(%L, %L, true)', :'ev', :'res_b'))->>'hint', 'event_full',
  'approving needs a free seat');
select is((checkin.save_settings(:'ev', 3, null, null, null, null))->>'capacity', '3', 'a larger capacity');
select tests.clear_authentication();
select is((select count(*) from checkin.reservations where event_id = :'ev' and status = 'approved'), 3::bigint,
  'promotes the waitlist at once');

select tests.authenticate_as(:'host');
select checkin.save_settings(:'ev', null, true, null, null, null, '{capacity}');
select is(pg_temp.reserve(:'b', :'ev')->>'status', 'pending', 'with approval required a reservation starts pending');

select tests.authenticate_as(:'host');
select checkin.save_settings(:'ev', null, false, null, now() + interval '1 day', null);
select is(tests.error_of(format('select pg_temp.reserve(%L, %L)', :'c', :'ev'))->>'hint', null,
  'a person with an active reservation gets it back even when registration is closed');
select tests.create_user('e@example.com') as e \gset
select is(tests.error_of(format('select pg_temp.reserve(%L, %L)', :'e', :'ev'))->>'hint', 'registration_closed',
  'before the window opens a new reservation is refused');
select tests.authenticate_as(:'host');
select is(tests.error_of(format('select pg_temp.reserve(%L, %L)', :'e', :'draft'))->>'hint', 'event_not_found',
  'a draft is not visible to others, so it cannot be reserved');

select * from finish();
rollback;
