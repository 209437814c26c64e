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
