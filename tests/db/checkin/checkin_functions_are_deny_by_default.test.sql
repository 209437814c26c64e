-- Check-in (20261125000200_checkin.sql, 20261125000300_sponsored_check_in.sql,
-- 20261128000100_checkin_door_hardening.sql) is deny by default: no function is executable by
-- PUBLIC; anon runs only what event listings need; authenticated runs the door's and the person's
-- functions, never checkin.decide_scan (which trusts its caller to have checked the staff);
-- service_jobs records attendance mints; the SUN tags' marks are read and written by definer
-- functions only.
begin;
select plan(5);

select is_empty($$select * from tests.functions_executable_by_public('checkin')$$, 'no checkin function is executable by PUBLIC');
select set_eq($$select * from tests.functions_executable_by('anon', 'checkin')$$, array[
  'checkin.holdings_view_seconds()',
  'checkin.may_scan(core.object_id)',
  'checkin.may_view_in_lists(core.object_id,core.object_id,jsonb)'
], 'anon: what listings read');
select set_eq($$select * from tests.functions_executable_by('authenticated', 'checkin')$$, array[
  'checkin.add_staff(core.object_id,core.object_id,text)',
  'checkin.attendance_mint_plan(core.object_id,core.object_id,core.object_id)',
  'checkin.bind_bracelet(core.object_id,core.object_id,text,text)',
  'checkin.bracelet_json(checkin.bracelets)',
  'checkin.cancel_reservation(core.object_id,core.object_id)',
  'checkin.counts(core.object_id)',
  'checkin.decide_reservation(core.object_id,core.object_id,boolean)',
  'checkin.hold_attendance_mint(core.object_id,core.object_id,core.object_id,text,text,numeric,integer)',
  'checkin.holdings_decide_seconds()',
  'checkin.holdings_view_seconds()',
  'checkin.list_staff(core.object_id)',
  'checkin.manifest(core.object_id,json)',
  'checkin.may_scan(core.object_id)',
  'checkin.may_view_in_lists(core.object_id,core.object_id,jsonb)',
  'checkin.my_addresses()',
  'checkin.read_settings(core.object_id)',
  'checkin.record_offline_scans(core.object_id,text,jsonb)',
  'checkin.reissue_ticket(core.object_id,core.object_id)',
  'checkin.release_bracelet(core.object_id,core.object_id,text)',
  'checkin.remember_my_holdings(jsonb)',
  'checkin.remove_staff(core.object_id,core.object_id)',
  'checkin.require_staff(core.object_id)',
  'checkin.reservation_json(checkin.reservations)',
  'checkin.reserve(core.object_id,jsonb)',
  'checkin.save_settings(core.object_id,integer,boolean,boolean,timestamp with time zone,timestamp with time zone,text[])',
  'checkin.scan(core.object_id,text,core.object_id,integer,text,integer,text,text,text,timestamp with time zone,jsonb,boolean,text)',
  'checkin.scan_json(checkin.scans,text,boolean)',
  'checkin.undo_scan(core.object_id,core.object_id)'
], 'authenticated: the door''s and the person''s functions, not decide_scan');
select set_eq($$select * from tests.functions_executable_by('service_jobs', 'checkin')$$, array[
  'checkin.record_attendance_mint(core.object_id,core.object_id,core.object_id,core.object_id)'
], 'service_jobs: recording an attendance mint');
select is_empty($$
  select r.rolname from pg_roles r
  where r.rolname in ('anon', 'authenticated', 'service_role', 'service_jobs', 'api_gateway')
    and (has_table_privilege(r.oid, 'checkin.sun_tags', 'select') or has_table_privilege(r.oid, 'checkin.sun_tags', 'insert')
      or has_table_privilege(r.oid, 'checkin.sun_tags', 'update') or has_table_privilege(r.oid, 'checkin.sun_tags', 'delete'))
$$, 'no request or job role reads or writes checkin.sun_tags directly');

select * from finish();
rollback;
