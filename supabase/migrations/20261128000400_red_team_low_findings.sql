-- Low findings of a red-team pass.
--
--   promote_waitlisted   a capacity lowered below the approved count (the settings route allows
--                        it: no seat is taken away) approves nobody until the count falls below
--                        it, instead of failing on a negative LIMIT (400 with an SQLSTATE).

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
