-- service_jobs in the checkout schema: exactly what expire_sessions and the webhook dispatcher
-- (claim_webhook_deliveries, record_webhook_attempt) need, and policies that keep even its own
-- statements to those rows; the reconciler's two functions are security definer and need no table
-- grant. (tests/db/core/ lists its grants in core.)
begin;
select plan(4);

select bag_eq(
  $$select * from tests.privileges_of('service_jobs', '{checkout}')$$,
  array[
    'schema checkout: USAGE',
    -- select on the deliveries only, the rest by column: what the expiry and the dispatcher read and write
    'table checkout.webhook_deliveries: SELECT',
    'column checkout.sessions.expires_at: SELECT',
    'column checkout.sessions.id: SELECT',
    'column checkout.sessions.status: SELECT',
    'column checkout.sessions.status: UPDATE',
    'column checkout.webhook_attempts.delivery_id: INSERT',
    'column checkout.webhook_attempts.error: INSERT',
    'column checkout.webhook_attempts.status_code: INSERT',
    'column checkout.webhook_deliveries.attempts: UPDATE',
    'column checkout.webhook_deliveries.claimed_until: UPDATE',
    'column checkout.webhook_deliveries.delivered_at: UPDATE',
    'column checkout.webhook_deliveries.last_error: UPDATE',
    'column checkout.webhook_deliveries.last_status_code: UPDATE',
    'column checkout.webhook_deliveries.next_attempt_at: UPDATE',
    'column checkout.webhook_deliveries.status: UPDATE',
    'column checkout.webhook_secrets.owner_id: SELECT',
    'column checkout.webhook_secrets.previous_secret_ciphertext: SELECT',
    'column checkout.webhook_secrets.previous_valid_until: SELECT',
    'column checkout.webhook_secrets.secret_ciphertext: SELECT',
    'column checkout.webhook_secrets.webhook_url: SELECT',
    -- the expiry job, the dispatcher's two and the reconciler's four
    'function checkout.claim_webhook_deliveries(integer,integer): EXECUTE',
    'function checkout.complete_session_as_job(core.object_id,text,text,numeric[],numeric,text,bigint): EXECUTE',
    'function checkout.expire_sessions(): EXECUTE',
    'function checkout.fail_session_as_job(core.object_id,text): EXECUTE',
    'function checkout.payment_attempts_to_reconcile(integer): EXECUTE',
    'function checkout.record_webhook_attempt(core.object_id,integer,text,timestamp with time zone): EXECUTE',
    'function checkout.sessions_to_search_for_mints(integer): EXECUTE',
    -- what keeps even its own statements to the rows of its jobs
    'policy checkout.sessions.sessions_select_jobs: SELECT',
    'policy checkout.sessions.sessions_update_jobs: UPDATE',
    'policy checkout.webhook_attempts.webhook_attempts_insert_jobs: INSERT',
    'policy checkout.webhook_deliveries.webhook_deliveries_select_jobs: SELECT',
    'policy checkout.webhook_deliveries.webhook_deliveries_update_jobs: UPDATE',
    'policy checkout.webhook_secrets.webhook_secrets_select_jobs: SELECT'
  ],
  'usage on checkout; select on webhook_deliveries, the rest by column; the expiry job, the dispatcher''s two '
    || 'and the reconciler''s four functions; its policies'
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
