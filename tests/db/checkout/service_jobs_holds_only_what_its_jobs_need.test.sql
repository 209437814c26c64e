-- service_jobs in the checkout schema: exactly what expire_sessions and the webhook dispatcher
-- (claim_webhook_deliveries, record_webhook_attempt) need, and policies that keep even its own
-- statements to those rows; the reconciler's two functions are security definer and need no table
-- grant. (tests/db/core/ lists its grants in core.)
begin;
select plan(7);

select results_eq(
  $$
    select a.privilege_type
    from pg_namespace n, aclexplode(n.nspacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname = 'checkout'
  $$,
  $$values ('USAGE')$$,
  'schema: usage on checkout'
);

select results_eq(
  $$
    select format('%I.%I', n.nspname, c.relname) collate "default", a.privilege_type
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    cross join aclexplode(c.relacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname = 'checkout'
    order by 1, 2
  $$,
  $$values ('checkout.webhook_deliveries', 'SELECT')$$,
  'tables: select on checkout.webhook_deliveries only (the rest by column)'
);

select results_eq(
  $$
    select format('%I.%I.%I', n.nspname, c.relname, t.attname) collate "default", a.privilege_type
    from pg_attribute t
    join pg_class c on c.oid = t.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    cross join aclexplode(t.attacl) a
    where a.grantee = 'service_jobs'::regrole and n.nspname = 'checkout'
    order by 1, 2
  $$,
  $$values
    ('checkout.sessions.expires_at', 'SELECT'),
    ('checkout.sessions.id', 'SELECT'),
    ('checkout.sessions.status', 'SELECT'),
    ('checkout.sessions.status', 'UPDATE'),
    ('checkout.webhook_attempts.delivery_id', 'INSERT'),
    ('checkout.webhook_attempts.error', 'INSERT'),
    ('checkout.webhook_attempts.status_code', 'INSERT'),
    ('checkout.webhook_deliveries.attempts', 'UPDATE'),
    ('checkout.webhook_deliveries.claimed_until', 'UPDATE'),
    ('checkout.webhook_deliveries.delivered_at', 'UPDATE'),
    ('checkout.webhook_deliveries.last_error', 'UPDATE'),
    ('checkout.webhook_deliveries.last_status_code', 'UPDATE'),
    ('checkout.webhook_deliveries.next_attempt_at', 'UPDATE'),
    ('checkout.webhook_deliveries.status', 'UPDATE'),
    ('checkout.webhook_secrets.owner_id', 'SELECT'),
    ('checkout.webhook_secrets.previous_secret_ciphertext', 'SELECT'),
    ('checkout.webhook_secrets.previous_valid_until', 'SELECT'),
    ('checkout.webhook_secrets.secret_ciphertext', 'SELECT'),
    ('checkout.webhook_secrets.webhook_url', 'SELECT')
  $$,
  'columns: what the expiry and the dispatcher read and write'
);

select results_eq(
  $$
    select p.oid::regprocedure::text
    from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace
    cross join aclexplode(p.proacl) a
    where a.grantee = 'service_jobs'::regrole and a.privilege_type = 'EXECUTE' and n.nspname = 'checkout'
    order by 1
  $$,
  $$values
    ('checkout.claim_webhook_deliveries(integer,integer)'),
    ('checkout.complete_session_as_job(core.object_id,text,text,numeric[],numeric,text,bigint)'),
    ('checkout.expire_sessions()'),
    ('checkout.fail_session_as_job(core.object_id,text)'),
    ('checkout.payment_attempts_to_reconcile(integer)'),
    ('checkout.record_webhook_attempt(core.object_id,integer,text,timestamp with time zone)'),
    ('checkout.sessions_to_search_for_mints(integer)')
  $$,
  'functions: the expiry job, the dispatcher''s two and the reconciler''s four'
);

-- In practice: no client secret, no payload writes, no session but expired ones.
grant usage on schema extensions to service_jobs;
select tests.create_user('alice@example.com') as alice \gset
select tests.create_collection(:'alice') as collection \gset
select tests.create_checkout_session(:'alice', :'collection', 'order-1', 'secret-1') as session \gset
set local role service_jobs;
select is_empty($$select id from checkout.sessions$$, 'service_jobs sees no live session');
select throws_ok($$select client_secret_hash from checkout.sessions$$, '42501', null, 'nor any client secret');
select throws_ok(
  format($$update checkout.webhook_deliveries set payload = '{}' where session_id = %L$$, :'session'),
  '42501', null, 'and cannot write a payload'
);
reset role;

select * from finish();
rollback;
