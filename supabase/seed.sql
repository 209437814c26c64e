-- Demo data for local runs (`npm start`). Tests never need it. Idempotent.
-- The demo API key is printed by `npm start`; it is a local convenience, never a production key.
insert into core.users (id, auth_user_id, email)
values ('65f000000000000000000001', '00000000-0000-4000-8000-000000000001', 'demo@example.com')
on conflict (id) do nothing;

update core.profiles set username = 'demo', display_name = 'Demo Organiser'
where user_id = '65f000000000000000000001' and username is null;

insert into core.api_keys (owner_id, name, prefix, key_hash, permissions)
values (
  '65f000000000000000000001', 'demo key', 'sk_demo0000',
  sha256(convert_to('sk_demo0000_local-demo-key-not-secret', 'UTF8')),
  '{"checkout": ["create", "retry"], "sponsorship": ["write"]}'
)
on conflict (prefix) do nothing;

-- A few published events and hubs of the demo user, so the first list calls and the docs page's
-- "try it" return something. Fixed ids keep the seed idempotent; dates are relative to the seeding.
insert into community.events (id, owner_id, name, slug, description, starts_at, ends_at, time_zone,
                              venue_name, venue_address, venue_lat, venue_lng, visibility, status, access_rules)
values
  ('65f0000000000000000000e1', '65f000000000000000000001', 'Berlin Web3 Night', 'berlin-web3-night',
   'Talks and drinks for builders. Holders of the demo collection check in at the door.',
   date_trunc('day', now()) + interval '14 days 19 hours', date_trunc('day', now()) + interval '14 days 23 hours',
   'Europe/Berlin', 'Kulturbrauerei', '{"line1": "Schönhauser Allee 36", "city": "Berlin", "postalCode": "10435", "country": "DE"}',
   52.5390, 13.4130, 'public', 'PUBLISHED',
   '[{"chain": "evm", "chainId": 31337, "collection": "0x5FbDB2315678afecb367f032d93F642f64180aa3", "minBalance": 1, "grants": ["checkIn"]}]'),
  ('65f0000000000000000000e2', '65f000000000000000000001', 'Lisbon Collectors Brunch', 'lisbon-collectors-brunch',
   'A morning for NFT collectors, open to everyone.',
   date_trunc('day', now()) + interval '30 days 10 hours', date_trunc('day', now()) + interval '30 days 13 hours',
   'Europe/Lisbon', 'LX Factory', '{"line1": "Rua Rodrigues de Faria 103", "city": "Lisboa", "postalCode": "1300-501", "country": "PT"}',
   38.7030, -9.1780, 'public', 'PUBLISHED', '[]'),
  ('65f0000000000000000000e3', '65f000000000000000000001', 'Demo Draft', 'demo-draft',
   'An unpublished draft: only its owner sees it.',
   date_trunc('day', now()) + interval '60 days 18 hours', date_trunc('day', now()) + interval '60 days 20 hours',
   'UTC', null, null, null, null, 'private', 'INCOMPLETE', '[]')
on conflict (id) do nothing;

insert into community.hubs (id, owner_id, hub_type, status, name, slug, description, is_private)
values
  ('65f0000000000000000000b1', '65f000000000000000000001', 'group', 'PUBLISHED', 'Berlin Builders', 'berlin-builders',
   'Monthly meetups of the Berlin web3 scene.', false),
  ('65f0000000000000000000b2', '65f000000000000000000001', 'nftCollection', 'PUBLISHED', 'Demo Collection Holders',
   'demo-collection-holders', 'Events for holders of the demo collection.', false)
on conflict (id) do nothing;

insert into community.hub_events (hub_id, event_id)
values ('65f0000000000000000000b1', '65f0000000000000000000e1'),
       ('65f0000000000000000000b1', '65f0000000000000000000e2'),
       ('65f0000000000000000000b2', '65f0000000000000000000e1')
on conflict do nothing;
