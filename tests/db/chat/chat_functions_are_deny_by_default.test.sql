-- Chat (20261125000500_chat.sql, 20261125000600_chat_assistant.sql, 20261125000700_chat_turns.sql,
-- 20261128000300_chat_approvals.sql) is deny by default: no function is executable by PUBLIC or anon;
-- authenticated executes the room and message functions; service_jobs executes the registry's
-- writer only, which is security definer with an empty search_path and the only way to write the
-- registry; every function pins its search_path.
begin;
select plan(6);

select is_empty($$select * from tests.functions_executable_by_public('chat')$$, 'no chat function is executable by PUBLIC');
select is_empty($$select * from tests.functions_executable_by('anon', 'chat')$$, 'nor by anon');

select set_eq($$select * from tests.functions_executable_by('authenticated', 'chat')$$, array[
  'chat.abandon_answer(text,text)',
  'chat.assistant_grant(text[],text,boolean)',
  'chat.begin_answer(text,text,text,text,text,text,uuid[],uuid[],integer)',
  'chat.capability_json(chat.capabilities)',
  'chat.is_client_id(text)',
  'chat.message_json(chat.messages)',
  'chat.open_room(text,core.object_id)',
  'chat.propose_call(text,text,text,jsonb,boolean)',
  'chat.put_message(text,text,text,text,text,text,text,text)',
  'chat.record_message(text,text,text,text,text,text,text,text)',
  'chat.record_transcription(text,text,text)',
  'chat.room_json(chat.rooms)',
  'chat.settle_proposed_calls(text,text,uuid[],uuid[])'
], 'authenticated: rooms, messages and their JSON, the assistant''s grant, its proposed calls and their approval');

select is(tests.roles_writing('chat.capabilities'), '{}'::text[], 'no role writes the registry directly');

select ok(
  (select p.prosecdef and p.proconfig @> array['search_path=""'] from pg_proc p
   where p.oid = 'chat.register_capabilities(text,text,jsonb)'::regprocedure),
  'the registry''s writer is security definer with an empty search_path'
);

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'chat' and not coalesce(p.proconfig @> array['search_path=""'], false)
$$, 'every chat function pins an empty search_path');

select * from finish();
rollback;
