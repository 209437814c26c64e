-- Low findings of a red-team pass.
--
--   promote_waitlisted   a capacity lowered below the approved count (the settings route allows
--                        it: no seat is taken away) approves nobody until the count falls below
--                        it, instead of failing on a negative LIMIT (400 with an SQLSTATE).
--   room names           a chat room's name is stored without Unicode bidirectional controls,
--                        whoever writes it (rename-chat-for-event, or the app directly under RLS).

-- ============================================================================================
-- Check-in: a capacity below the approved count
-- ============================================================================================
-- Approves the oldest waitlisted reservations while seats are free (the caller holds the event's lock).
create or replace function checkin.promote_waitlisted(p_event_id core.object_id) returns integer
  language plpgsql volatile security definer
  set search_path = ''
  as $$
  declare
    v_capacity integer := (select capacity from checkin.event_settings where event_id = p_event_id);
    v_free bigint;
    v_promoted integer;
  begin
    v_free := case when v_capacity is null then null
      else greatest(v_capacity - (select count(*) from checkin.reservations where event_id = p_event_id and status = 'approved'), 0) end;
    with oldest as (
      select id from checkin.reservations where event_id = p_event_id and status = 'waitlisted'
      order by created_at, id limit v_free
    )
    update checkin.reservations r set status = 'approved', decided_at = now(), updated_at = now()
      from oldest where r.id = oldest.id;
    get diagnostics v_promoted = row_count;
    return v_promoted;
  end
  $$;

-- ============================================================================================
-- Chat: room names without bidirectional controls
-- ============================================================================================
-- U+202A-U+202E (embeddings, overrides), U+2066-U+2069 (isolates), U+200E/U+200F (marks) and U+061C
-- (the Arabic letter mark) make a name in a chat list read in another order than its characters
-- ("Pay <RLO>gnp.exe" shows as "Pay exe.png"). A name of nothing else is no name.
create function chat.strip_room_name_bidi_controls() returns trigger
  language plpgsql
  set search_path = ''
  as $$
  begin
    new.name := nullif(pg_catalog.regexp_replace(new.name, '[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]', '', 'g'), '');
    return new;
  end
  $$;
revoke execute on function chat.strip_room_name_bidi_controls() from public;

create trigger rooms_name_without_bidi_controls before insert or update of name on chat.rooms
  for each row execute function chat.strip_room_name_bidi_controls();
