-- community.connect_hub_events refuses a batch that names any event the caller cannot see
-- (unknown, someone's private event, someone's draft) with PT400 and the hint unknown_event_ids,
-- listing those ids; the raise aborts the caller's transaction, so none of the batch is connected.
begin;
select plan(5);

select tests.create_user('alice@example.com') as alice \gset
select tests.create_user('bob@example.com') as bob \gset
select tests.create_hub(:'alice') as hub \gset
select tests.create_event(:'alice') as already_connected \gset
select tests.create_event(:'alice') as valid \gset
select tests.create_event(:'bob', 'PUBLISHED', 'private') as bobs_private \gset
select tests.create_event(:'bob', 'INCOMPLETE', 'public') as bobs_draft \gset
select core.new_object_id() as unknown \gset
select tests.connect_event(:'hub', :'already_connected');
select set_config('tests.hub', :'hub', true), set_config('tests.unknown', :'unknown', true);

select tests.authenticate_as(:'alice');

select throws_ok(
  format('select community.connect_hub_events(%L, array[%L, %L]::core.object_id[])', :'hub', :'valid', :'unknown'),
  'PT400',
  format('unknown or inaccessible event ids: %s; nothing was changed', :'unknown'),
  'an unknown id is refused with PT400, named in the message'
);

select throws_ok(
  format('select community.connect_hub_events(%L, array[%L, %L]::core.object_id[])', :'hub', :'valid', :'bobs_private'),
  'PT400',
  format('unknown or inaccessible event ids: %s; nothing was changed', :'bobs_private'),
  'someone else''s private event is refused like an unknown one'
);

select throws_ok(
  format(
    'select community.connect_hub_events(%L, array[%L, %L, %L]::core.object_id[])',
    :'hub', :'bobs_draft', :'valid', :'unknown'
  ),
  'PT400',
  format(
    'unknown or inaccessible event ids: %s; nothing was changed',
    (select string_agg(x, ', ' order by x) from unnest(array[:'bobs_draft', :'unknown']) as x)
  ),
  'someone else''s draft is refused, and every refused id is listed'
);

-- The refusal carries the hint the API maps to its error code.
do $$
declare
  v_hint text;
begin
  perform community.connect_hub_events(
    current_setting('tests.hub')::core.object_id,
    array[current_setting('tests.unknown')]::core.object_id[]
  );
exception when sqlstate 'PT400' then
  get stacked diagnostics v_hint = pg_exception_hint;
  perform set_config('tests.hint', v_hint, true);
end
$$;
select is(current_setting('tests.hint', true), 'unknown_event_ids', 'the refusal carries the hint unknown_event_ids');

-- That a refused batch leaves nothing behind is the transaction's doing (a raise aborts it), so it
-- is proven where a transaction is whole: tests/hubs/hubs.security.test.ts. Here every call runs in
-- a subtransaction, which undoes a partial write whatever the function does.
select tests.clear_authentication();

select tests.authenticate_as(:'alice');
select lives_ok(
  format('select community.connect_hub_events(%L, array[%L]::core.object_id[])', :'hub', :'valid'),
  'the valid event alone is connected (so the refusals above were about the other ids)'
);

select tests.clear_authentication();
select * from finish();
rollback;
