-- A hub ↔ event connection is visible only when the caller can see both the hub and the event.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_user('carol@example.com') as carol \gset
select tests.create_user('dave@example.com') as dave \gset

-- alice owns a public hub and a private one (carol is a member of the private one).
select tests.create_hub(:'alice', 'PUBLISHED', false) as public_hub \gset
select tests.create_hub(:'alice', 'PUBLISHED', true) as private_hub \gset
select tests.add_member(:'private_hub', :'carol');
select tests.create_event(:'alice', 'PUBLISHED', 'public') as public_event \gset
select tests.create_event(:'alice', 'PUBLISHED', 'private') as alices_private_event \gset
-- dave's event became private after it was connected to alice's public hub.
select tests.create_event(:'dave', 'PUBLISHED', 'private') as daves_private_event \gset

select tests.connect_event(:'public_hub', :'public_event');
select tests.connect_event(:'public_hub', :'alices_private_event');
select tests.connect_event(:'public_hub', :'daves_private_event');
select tests.connect_event(:'private_hub', :'public_event');

select tests.authenticate_as_anon();
select set_eq(
  'select hub_id::text, event_id::text from community.hub_events',
  format('values (%L, %L)', :'public_hub', :'public_event'),
  'anon sees only the public event in the public hub'
);

select tests.authenticate_as(:'bob');
select set_eq(
  'select hub_id::text, event_id::text from community.hub_events',
  format('values (%L, %L)', :'public_hub', :'public_event'),
  'another user sees only the public event in the public hub'
);

select tests.authenticate_as(:'carol');
select set_eq(
  'select hub_id::text, event_id::text from community.hub_events',
  format('values (%L, %L), (%L, %L)', :'public_hub', :'public_event', :'private_hub', :'public_event'),
  'a member of the private hub also sees its connection to a public event, but no private event'
);

select tests.authenticate_as(:'alice');
select set_eq(
  'select hub_id::text, event_id::text from community.hub_events',
  format(
    'values (%L, %L), (%L, %L), (%L, %L)',
    :'public_hub', :'public_event', :'public_hub', :'alices_private_event', :'private_hub', :'public_event'
  ),
  'the hub owner sees every connection except the one to dave''s private event'
);

select tests.authenticate_as(:'dave');
select set_eq(
  'select hub_id::text, event_id::text from community.hub_events',
  format('values (%L, %L), (%L, %L)', :'public_hub', :'public_event', :'public_hub', :'daves_private_event'),
  'dave sees his own private event in the public hub, but nothing of the private hub'
);

select tests.clear_authentication();
select * from finish();
rollback;
