-- The purge job (core.purge_expired_siwe_nonces, run by pg_cron as service_jobs) deletes every
-- user's expired nonces, and only those: live nonces stay usable. service_jobs reaches nothing
-- else, and even a statement of its own cannot delete a live nonce (the RLS policies).
begin;
select plan(9);

-- pgTAP lives in `extensions`, which service_jobs may not use; the rollback takes the grant back.
grant usage on schema extensions to service_jobs;

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset

select tests.authenticate_as(:'alice');
select core.issue_siwe_nonce('aliceLive0001'), core.issue_siwe_nonce('aliceOld00001'), core.issue_siwe_nonce('aliceOld00002');
select tests.authenticate_as(:'bob');
select core.issue_siwe_nonce('bobLive00001'), core.issue_siwe_nonce('bobOld000001');

select tests.clear_authentication();
update core.siwe_nonces set expires_at = now() - interval '1 day' where nonce = 'aliceOld00001';
update core.siwe_nonces set expires_at = now() - interval '1 second' where nonce = 'bobOld000001';
update core.siwe_nonces set expires_at = now() where nonce = 'aliceOld00002'; -- live means after now

set local role service_jobs;
select is(core.purge_expired_siwe_nonces(), 3, 'the job deletes the three expired nonces of both users');
select is(core.purge_expired_siwe_nonces(), 0, 'a second run finds nothing');

reset role;
select results_eq(
  $$select nonce from core.siwe_nonces order by nonce$$,
  $$values ('aliceLive0001'), ('bobLive00001')$$,
  'the live nonces are kept'
);

-- What the role can reach without the function: expired nonces only
set local role service_jobs;
select is_empty($$select nonce from core.siwe_nonces$$, 'service_jobs sees no live nonce');
select is_empty($$delete from core.siwe_nonces returning nonce$$, 'service_jobs cannot delete a live nonce');
select throws_ok($$select from core.users$$, '42501', 'permission denied for table users', 'service_jobs cannot read users');
select throws_ok(
  $$insert into core.siwe_nonces (nonce, user_id, expires_at) values ('jobNonce0001', '000000000000000000000000', now())$$,
  '42501',
  'permission denied for table siwe_nonces',
  'service_jobs cannot issue nonces'
);

-- The live nonces still link
reset role;
select tests.authenticate_as(:'alice');
select is(
  (select count(*)::int from core.link_crypto_address('aliceLive0001', '0xA11CE00000000000000000000000000000000001', '1', 'injected')),
  1,
  'alice''s live nonce still links after the purge'
);
select tests.authenticate_as(:'bob');
select is(
  (select count(*)::int from core.link_crypto_address('bobLive00001', '0xB0B0000000000000000000000000000000000001', '1', 'injected')),
  1,
  'bob''s live nonce still links after the purge'
);

select tests.clear_authentication();
select * from finish();
rollback;
