// The newest migration this code needs; /ready reports not ready until the database has it.
// tests/health guard that it names the newest file in supabase/migrations.
export const REQUIRED_SCHEMA_VERSION = "20261128000720";
