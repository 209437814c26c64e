-- An event or hub inserted without a slug gets one derived from its name, with a numeric suffix
-- when the owner already has it; other owners' slugs do not count, explicit slugs are kept.
begin;
select plan(8);

select is(community.slugify('Berlin Web3 Night!', 'event'), 'berlin-web3-night', 'slugify lowercases and joins words with dashes');
select is(community.slugify('Fête à Montréal', 'event'), 'fete-a-montreal', 'slugify folds accents');
select is(community.slugify('東京', 'hub'), 'hub', 'slugify falls back when nothing latin is left');
select is(length(community.slugify(repeat('ab ', 100), 'event')), 119, 'slugify keeps at most 120 characters and no trailing dash');

select tests.create_user() as alice \gset
select tests.create_user() as bob \gset

insert into community.events (owner_id, name, starts_at, ends_at, time_zone)
  values (:'alice', 'Weekly Meetup', now(), now(), 'UTC'), (:'alice', 'Weekly Meetup', now(), now(), 'UTC');
insert into community.events (owner_id, name, starts_at, ends_at, time_zone)
  values (:'bob', 'Weekly Meetup', now(), now(), 'UTC');
insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone)
  values (:'alice', 'Chosen', 'weekly-meetup-7', now(), now(), 'UTC');
insert into community.events (owner_id, name, starts_at, ends_at, time_zone)
  values (:'alice', 'Weekly Meetup', now(), now(), 'UTC');

select results_eq(
  format($$select slug from community.events where owner_id = %L order by created_at, slug$$, :'alice'),
  array['weekly-meetup', 'weekly-meetup-2', 'weekly-meetup-7', 'weekly-meetup-8'],
  'the second derived slug gets -2, an explicit slug is kept, and the next one follows the highest suffix'
);
select results_eq(
  format($$select slug from community.events where owner_id = %L$$, :'bob'),
  array['weekly-meetup'],
  'another owner''s slugs do not count'
);

insert into community.hubs (owner_id, hub_type, name) values (:'alice', 'group', 'Berlin DJs'), (:'alice', 'group', 'Berlin DJs');
select results_eq(
  format($$select slug from community.hubs where owner_id = %L order by slug$$, :'alice'),
  array['berlin-djs', 'berlin-djs-2'],
  'hubs derive their slugs the same way'
);

select throws_ok(
  format($$insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone) values (%L, 'x', 'weekly-meetup', now(), now(), 'UTC')$$, :'alice'),
  '23505', null,
  'an explicit duplicate slug is still refused'
);

select * from finish();
rollback;
