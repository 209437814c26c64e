-- community.is_time_zone accepts IANA zone names PostgreSQL knows and refuses anything else,
-- including strings that try to smuggle SQL; an event's time_zone is held to it.
begin;
select plan(16);

select is(community.is_time_zone('Europe/Berlin'), true, 'Europe/Berlin is a time zone');
select is(community.is_time_zone('UTC'), true, 'UTC is a time zone');
select is(community.is_time_zone('America/Argentina/Buenos_Aires'), true, 'a three-part name is a time zone');
select is(community.is_time_zone('America/Port-au-Prince'), true, 'a name with a hyphen is a time zone');

select is(community.is_time_zone('Mars/Base'), false, 'Mars/Base is refused');
-- Aliases of the server's own settings and legacy names without an area.
select is(community.is_time_zone('localtime'), false, 'localtime is refused');
select is(community.is_time_zone('posixrules'), false, 'posixrules is refused');
select is(community.is_time_zone('Factory'), false, 'Factory is refused');
select is(community.is_time_zone($$UTC'; drop table community.events; --$$), false, 'a quote and a statement are refused');
select is(community.is_time_zone('UTC; select 1'), false, 'a semicolon is refused');
select is(community.is_time_zone('Europe/Berlin '), false, 'a trailing space is refused');
select is(community.is_time_zone('../../etc/passwd'), false, 'a path is refused');
select is(community.is_time_zone(''), false, 'the empty string is refused');
select is(community.is_time_zone(null), false, 'null is refused');

select tests.create_user('alice@example.com') as alice \gset
select tests.authenticate_as(:'alice');

select throws_ok(
  format(
    $$insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone)
      values (%L, 'On Mars', 'on-mars', now(), now(), 'Mars/Base')$$,
    :'alice'
  ),
  '23514', null,
  'an event in Mars/Base is refused by its CHECK constraint'
);
select lives_ok(
  format(
    $$insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone)
      values (%L, 'In Berlin', 'in-berlin', now(), now(), 'Europe/Berlin')$$,
    :'alice'
  ),
  'an event in Europe/Berlin is stored'
);

select tests.clear_authentication();
select * from finish();
rollback;
