-- service_jobs in chat (20261125000500_chat.sql): usage on the schema and execute on the registry's
-- writer (security definer), nothing else: no table, column or sequence grant and no policy, so
-- its own statements read and change nothing there. (tests/db/core/ lists its grants in core.)
begin;
select plan(1);

select bag_eq(
  $$select * from tests.privileges_of('service_jobs', '{chat}')$$,
  array[
    'schema chat: USAGE',
    'function chat.register_capabilities(text,text,jsonb): EXECUTE'
  ],
  'usage on chat and the registry''s writer, nothing else'
);

select * from finish();
rollback;
