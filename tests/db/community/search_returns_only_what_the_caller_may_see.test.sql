-- search_event_ids and search_hub_ids run as the owner (so the trigram indexes serve them under
-- RLS), but apply the policies' own visibility rules: they never name a row the caller could not
-- read through RLS.
begin;
select plan(10);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset

select tests.create_event(:'alice', 'PUBLISHED', 'public', 'zebra public') as public_event \gset
select tests.create_event(:'alice', 'PUBLISHED', 'unlisted', 'zebra unlisted') as unlisted_event \gset
select tests.create_event(:'alice', 'PUBLISHED', 'private', 'zebra private') as private_event \gset
select tests.create_event(:'alice', 'INCOMPLETE', 'public', 'zebra draft') as draft_event \gset

select tests.create_hub(:'alice', 'PUBLISHED', false) as public_hub \gset
select tests.create_hub(:'alice', 'PUBLISHED', true) as private_hub \gset
select tests.create_hub(:'alice', 'INCOMPLETE', false) as draft_hub \gset
select tests.add_member(:'private_hub', :'carol');
update community.hubs set name = 'zebra ' || name;

select tests.authenticate_as(:'alice');
select set_eq(
  $$select community.search_event_ids('%zebra%')::text$$,
  array[:'public_event', :'unlisted_event', :'private_event', :'draft_event'],
  'the owner finds all her events'
);
select set_eq(
  $$select community.search_hub_ids('%zebra%')::text$$,
  array[:'public_hub', :'private_hub', :'draft_hub'],
  'the owner finds all her hubs'
);

select tests.authenticate_as(:'bob');
select set_eq(
  $$select community.search_event_ids('%zebra%')::text$$,
  array[:'public_event', :'unlisted_event'],
  'another user finds only published public and unlisted events'
);
select set_eq(
  $$select community.search_hub_ids('%zebra%')::text$$,
  array[:'public_hub'],
  'another user finds only the published public hub'
);
select is_empty(
  $$select community.search_hub_ids('%zebra%') except select id from community.hubs$$,
  'search names no hub that RLS hides from that user'
);

select tests.authenticate_as(:'carol');
select set_eq(
  $$select community.search_hub_ids('%zebra%')::text$$,
  array[:'public_hub', :'private_hub'],
  'a member also finds the private hub she belongs to'
);

select tests.authenticate_as_anon();
select set_eq(
  $$select community.search_event_ids('%zebra%')::text$$,
  array[:'public_event', :'unlisted_event'],
  'anon finds only published public and unlisted events'
);
select set_eq(
  $$select community.search_hub_ids('%zebra%')::text$$,
  array[:'public_hub'],
  'anon finds only the published public hub'
);

-- And they search through the trigram indexes, which is why they exist: under RLS a plain ILIKE is
-- not leakproof, so it could not use them. Sequential scans are off, as a big table would make them.
select tests.clear_authentication();
select pg_stat_get_xact_numscans('community.events_search_text_idx'::regclass) as event_scans_before,
       pg_stat_get_xact_numscans('community.hubs_search_text_idx'::regclass) as hub_scans_before \gset
set local enable_seqscan = off;
select tests.authenticate_as(:'alice');
select count(*) from community.search_event_ids('%zebra%');
select count(*) from community.search_hub_ids('%zebra%');
select tests.clear_authentication();
select ok(
  pg_stat_get_xact_numscans('community.events_search_text_idx'::regclass) > :event_scans_before,
  'event search reads the trigram index'
);
select ok(
  pg_stat_get_xact_numscans('community.hubs_search_text_idx'::regclass) > :hub_scans_before,
  'hub search reads the trigram index'
);
reset enable_seqscan;

select tests.clear_authentication();
select * from finish();
rollback;
