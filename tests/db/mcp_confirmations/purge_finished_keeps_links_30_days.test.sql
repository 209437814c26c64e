-- The purge job of confirmation links (mcp_confirmations.purge_finished, run by pg_cron as
-- service_jobs; 20261123001500_mcp_confirmations.sql): a link goes 30 days after it was decided (or,
-- undecided, after it expired), the cutoff create_confirmation applies to its own person's links,
-- for every person at once. Recently expired or decided links stay, so an assistant polling
-- get_confirmation_status still reads their outcome. Only service_jobs may run it.
begin;
select plan(10);

grant usage on schema extensions to service_jobs; -- pgTAP, for the assertions made as service_jobs

select tests.create_user('rita@example.com') as rita \gset
select tests.create_user('sam@example.com') as sam \gset
insert into mcp_oauth.grants (id, user_id, client_id, client_name, redirect_uri, scopes, resource) values
  ('c00000000000000000000001', :'rita', 'client-a', 'Client A', 'http://127.0.0.1/cb', '{wallet:link}', 'http://api.test/mcp'),
  ('c00000000000000000000002', :'sam', 'client-a', 'Client A', 'http://127.0.0.1/cb', '{wallet:link}', 'http://api.test/mcp');

-- A link created p_created_ago (expiring 15 minutes later), decided p_decided_ago (null: undecided).
-- An approving link was claimed a minute after its creation (claimed_at is stamped where that
-- column exists: 20261123001500_mcp_confirmations.sql requires it of a claim).
create function pg_temp.link(p_id text, p_user text, p_grant text, p_status text, p_created_ago interval, p_decided_ago interval)
  returns void language plpgsql as $$
begin
  insert into mcp_confirmations.confirmations (id, user_id, client_id, grant_id, kind, action, action_hash, binding, token_hash,
      status, outcome, created_at, expires_at, decided_at)
    values (p_id, p_user, 'client-a', p_grant, 'wallet_link', '{"chainId": 1}', sha256('action'), sha256('binding'),
      sha256(convert_to(p_id, 'UTF8')), case when p_status = 'approving' then 'pending' else p_status end,
      case when p_decided_ago is not null then '{"done": true}'::jsonb end,
      now() - p_created_ago, now() - p_created_ago + interval '15 minutes', now() - p_decided_ago);
  if p_status = 'approving' then
    execute format('update mcp_confirmations.confirmations set status = %L%s where id = %L', 'approving',
      case when exists (select from pg_attribute where attrelid = 'mcp_confirmations.confirmations'::regclass
                        and attname = 'claimed_at' and not attisdropped)
           then ', claimed_at = created_at + interval ''1 minute''' else '' end, p_id);
  end if;
end $$;

-- Gone: decided 40 and 31 days ago, or undecided and expired 40 days ago (pending, or an approval
-- that never finished); Sam's too, though he never makes another link.
select pg_temp.link('d00000000000000000000001', :'rita', 'c00000000000000000000001', 'refused', '40 days 10 minutes', '40 days');
select pg_temp.link('d00000000000000000000002', :'rita', 'c00000000000000000000001', 'approved', '31 days 10 minutes', '31 days');
select pg_temp.link('d00000000000000000000003', :'rita', 'c00000000000000000000001', 'pending', '40 days 15 minutes', null);
select pg_temp.link('d00000000000000000000004', :'sam', 'c00000000000000000000002', 'approving', '40 days 15 minutes', null);
-- Kept: decided 29 days ago, expired 7 days or an hour ago, live, being approved right now.
select pg_temp.link('d00000000000000000000005', :'rita', 'c00000000000000000000001', 'failed', '29 days 10 minutes', '29 days');
select pg_temp.link('d00000000000000000000006', :'rita', 'c00000000000000000000001', 'pending', '7 days 15 minutes', null);
select pg_temp.link('d00000000000000000000007', :'rita', 'c00000000000000000000001', 'pending', '75 minutes', null);
select pg_temp.link('d00000000000000000000008', :'rita', 'c00000000000000000000001', 'pending', '1 minute', null);
select pg_temp.link('d00000000000000000000009', :'sam', 'c00000000000000000000002', 'approving', '2 minutes', null);

set local role service_jobs;
select is(mcp_confirmations.purge_finished(), 4, 'the job deletes the four links finished more than 30 days ago');
select is(mcp_confirmations.purge_finished(), 0, 'a second run finds nothing');
select throws_ok($$select count(*) from mcp_confirmations.confirmations$$, '42501', null, 'service_jobs reads no link itself');
select throws_ok($$delete from mcp_confirmations.confirmations$$, '42501', null, 'nor deletes one itself');
reset role;

select set_eq($$select id::text from mcp_confirmations.confirmations$$,
  array['d00000000000000000000005', 'd00000000000000000000006', 'd00000000000000000000007', 'd00000000000000000000008',
        'd00000000000000000000009'],
  'links decided or expired within 30 days, live ones and one being approved stay');

-- Polling still answers for the recently expired link, and no longer for a purged one.
select tests.authenticate_as_person(:'rita', 'client-a');
select is((select status from mcp_confirmations.confirmation_status('d00000000000000000000006')), 'expired',
  'the link that expired a week ago still polls as expired');
select is((select outcome from mcp_confirmations.confirmation_status('d00000000000000000000005')), '{"done": true}'::jsonb,
  'the one decided 29 days ago still carries its outcome');
select is_empty($$select * from mcp_confirmations.confirmation_status('d00000000000000000000001')$$, 'a purged link polls as unknown');
select throws_ok($$select mcp_confirmations.purge_finished()$$, '42501', null, 'a signed-in person cannot run the job');
select tests.clear_authentication();

select is(tests.roles_executing('mcp_confirmations.purge_finished()'), '{service_jobs}'::text[], 'service_jobs may run the job; anon, authenticated, api_gateway, service_role and PUBLIC may not');

select * from finish();
rollback;
