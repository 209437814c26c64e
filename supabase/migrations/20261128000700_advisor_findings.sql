-- What Supabase's database linter (splinter: Studio's Security and Performance Advisors) found, and
-- the project rules behind each lint, enforced by tests/db/advisor/ (docs/operations.md: "Database
-- advisor").
--
-- 1. Every function pins its search_path, but a short list of deliberate exceptions (with the
--    reason and the measured cost in tests/db/advisor/every_function_pins_its_search_path.test.sql
--    and docs/operations.md): the inlinable SQL helpers (a SET clause stops the planner inlining
--    them) and the API-key path, which qualifies every name and only the login role may call. The
--    two constants below are immutable, so the planner still folds them with a SET clause.
--    `alter function ... set` keeps each body and its grants.
alter function checkin.holdings_decide_seconds() set search_path = '';
alter function checkin.holdings_view_seconds() set search_path = '';

-- 2. Every foreign key has an index led by its columns: deleting or re-keying the referenced row
--    (a cascade, or the check that nothing still points at it) and the joins along the key read it
--    instead of scanning the referencing table.
create index attendance_mints_collection_id_idx on checkin.attendance_mints (collection_id);
create index attendance_mints_scan_id_idx on checkin.attendance_mints (scan_id);
create index scans_bracelet_id_idx on checkin.scans (bracelet_id);
create index scans_scanned_by_idx on checkin.scans (scanned_by);
create index scans_undone_by_idx on checkin.scans (undone_by);
create index token_claims_reservation_id_idx on checkin.token_claims (reservation_id);
create index token_claims_scan_id_idx on checkin.token_claims (scan_id);
create index webhook_deliveries_owner_id_idx on checkout.webhook_deliveries (owner_id);
create index tool_calls_api_key_id_idx on mcp.tool_calls (api_key_id);
create index authorization_codes_grant_id_idx on mcp_oauth.authorization_codes (grant_id);
create index browser_sessions_user_id_idx on mcp_oauth.browser_sessions (user_id);
create index revoked_access_tokens_grant_id_idx on mcp_oauth.revoked_access_tokens (grant_id);
create index relays_usage_id_idx on relays.relays (usage_id);
create index ledger_entries_deposit_id_idx on sponsorship.ledger_entries (deposit_id);
create index ledger_entries_reservation_id_idx on sponsorship.ledger_entries (reservation_id);
create index ledger_entries_usage_id_idx on sponsorship.ledger_entries (usage_id);

-- 3. A table that only security definer functions read and write (RLS on, no policy) says so with a
--    restrictive policy that admits nothing. No permissive policy means no row already; this names
--    the choice where a reader (and the advisor) looks for it.
do $$
declare
  v_table regclass;
begin
  foreach v_table in array array[
    'app_auth.refresh_tokens', 'app_auth.sessions', 'chat.assistant_access', 'checkin.attendance_mints',
    'checkin.event_settings', 'checkin.staff', 'checkin.sun_tags', 'checkin.token_claims',
    'mcp_confirmations.confirmations', 'mcp_oauth.authorization_codes', 'mcp_oauth.browser_sessions',
    'mcp_oauth.clients', 'mcp_oauth.refresh_tokens', 'mcp_oauth.revoked_access_tokens',
    'mcp_oauth.sign_in_codes', 'relays.attempts', 'relays.relayer_accounts', 'relays.relays',
    'sponsorship.sponsor_days', 'sponsorship.verifications', 'sui.signer_leases'
  ]::regclass[] loop
    execute format('create policy deny_all on %s as restrictive to public using (false) with check (false)', v_table);
  end loop;
end
$$;

-- 4. Policies read the caller's id once per statement, through a sub-select (as every other policy).
alter policy collections_select_owner on sui.collections
  using (owner_id = (select core.current_user_id()));
