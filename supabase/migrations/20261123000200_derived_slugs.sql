-- Slugs: an event or hub created without a `slug` gets one derived from its name, made unique per
-- owner by a numeric suffix ("weekly-meetup", "weekly-meetup-2", ...). Only an explicit duplicate
-- answers 409 slug_taken: the caller chose it. The database derives the slug, so replicas agree.

-- ============================================================================================
-- Slugify: "Berlin Web3 Night!" -> "berlin-web3-night" (accents folded, at most 120 characters)
-- ============================================================================================
create function community.slugify(p_name text, p_fallback text) returns text
  language sql immutable
  set search_path = ''
  as $$
    select coalesce(nullif(rtrim(left(trim(both '-' from
      pg_catalog.regexp_replace(lower(pg_catalog.regexp_replace(normalize(p_name, NFKD), '[\u0300-\u036f]', '', 'g')), '[^a-z0-9]+', '-', 'g')),
      120), '-'), ''), p_fallback)
  $$;
revoke execute on function community.slugify(text, text) from public;
grant execute on function community.slugify(text, text) to authenticated, service_role;

-- ============================================================================================
-- The trigger: derive when no slug was given, and serialise slug writes per owner and table
-- ============================================================================================
-- Every insert, and every update that sets a slug, takes a transaction lock on (table, owner).
-- Two requests deriving from the same name therefore run one after the other, and the second sees
-- the first's row (each statement of a volatile function reads what has committed): no 409 for a
-- slug nobody sent. The lock is per owner, so owners never wait for each other.
--
-- Invoker rights: the owner's own rows are visible to them under RLS, which is all the search
-- needs. TG_ARGV[0] is the fallback for names with no latin letter or digit ("event", "hub").
create function community.derive_slug() returns trigger
  language plpgsql
  set search_path = ''
  as $$
  declare
    v_stem text;
    v_base_taken boolean;
    v_highest_suffix bigint;
  begin
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended(tg_table_name || ':' || new.owner_id, 0));
    if new.slug is not null then
      return new;
    end if;
    new.slug := community.slugify(new.name, tg_argv[0]);
    -- Room for "-<n>" within the 120 characters a slug may have.
    v_stem := rtrim(left(new.slug, 110), '-');
    execute pg_catalog.format(
      'select coalesce(bool_or(slug = $2), false),
              max(pg_catalog.substring(slug, ''-([0-9]{1,9})$'')::bigint) filter (where slug ~ (''^'' || $3 || ''-[0-9]{1,9}$''))
       from %I.%I where owner_id = $1', tg_table_schema, tg_table_name)
      into v_base_taken, v_highest_suffix
      using new.owner_id, new.slug, v_stem;
    if v_base_taken then
      new.slug := v_stem || '-' || (greatest(coalesce(v_highest_suffix, 1), 1) + 1);
    end if;
    return new;
  end
  $$;

-- A trigger function needs no EXECUTE of the writer (only the table owner's, when the trigger is made).
revoke execute on function community.derive_slug() from public;

create trigger events_derive_slug before insert or update of slug on community.events
  for each row execute function community.derive_slug('event');
create trigger hubs_derive_slug before insert or update of slug on community.hubs
  for each row execute function community.derive_slug('hub');
