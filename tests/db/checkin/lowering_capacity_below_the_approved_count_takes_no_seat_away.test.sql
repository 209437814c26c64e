-- A host may lower an event's capacity below its approved count (the settings route says so): the
-- change is saved, nobody approved loses their seat, and nobody waitlisted is approved until the
-- approved count falls below the new capacity.
begin;
select plan(6);

select tests.create_user('host@example.com') as host \gset
select tests.create_user('a@example.com') as a \gset
select tests.create_user('b@example.com') as b \gset
select tests.create_user('c@example.com') as c \gset
select tests.create_user('d@example.com') as d \gset
select tests.create_event(:'host') as ev \gset

create function pg_temp.reserve(p_user text, p_event text) returns jsonb language plpgsql as $$
  declare v jsonb;
  begin
    perform tests.authenticate_as(p_user);
    select reservation into v from checkin.reserve(p_event);
    return v;
  end $$;

select tests.authenticate_as(:'host');
select checkin.save_settings(:'ev', 3, null, null, null, null);
select pg_temp.reserve(:'a', :'ev')->>'id' as res_a \gset
select pg_temp.reserve(:'b', :'ev');
select pg_temp.reserve(:'c', :'ev');
select is(pg_temp.reserve(:'d', :'ev')->>'status', 'waitlisted', 'three seats taken, the fourth person waits');

select tests.authenticate_as(:'host');
select is(tests.error_of(format('select checkin.save_settings(%L, 1, null, null, null, null)', :'ev')), null,
  'lowering the capacity to 1 below 3 approved is accepted');
select is((checkin.save_settings(:'ev', 1, null, null, null, null))->>'capacity', '1', 'and saved');
select tests.clear_authentication();
select is((select count(*) from checkin.reservations where event_id = :'ev' and status = 'approved'), 3::bigint,
  'nobody approved loses their seat');

select tests.authenticate_as(:'a');
select checkin.cancel_reservation(:'ev', :'res_a');
select tests.clear_authentication();
select is((select count(*) from checkin.reservations where event_id = :'ev' and status = 'waitlisted'), 1::bigint,
  'a cancellation while still over the capacity approves nobody from the waitlist');
select is((select count(*) from checkin.reservations where event_id = :'ev' and status = 'approved'), 2::bigint,
  'two approved remain');

select * from finish();
rollback;
