-- An event as the API returns it, built in SQL: a page of 20 events then reaches the gateway as 20
-- ready JSON texts instead of 340 columns to decode, convert and re-serialise (which made the
-- events list CPU-bound in the gateway). routes.ts (EventSchema) documents the same shape.

-- ISO 8601 in UTC with milliseconds, as JavaScript's toISOString() writes it.
create function community.iso_time(p_time timestamptz) returns text
  language sql stable
  as $$ select to_char(p_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- Inlinable (plain SQL, one expression), so selecting it costs no function call per row.
create function community.event_json(e community.events) returns json
  language sql stable
  as $$
    select json_build_object(
      'id', e.id,
      'ownerId', e.owner_id,
      'name', e.name,
      'slug', e.slug,
      'description', e.description,
      'startsAt', community.iso_time(e.starts_at),
      'endsAt', community.iso_time(e.ends_at),
      'timeZone', e.time_zone,
      'venue', case when e.venue_name is not null then json_build_object(
        'name', e.venue_name,
        'address', coalesce(e.venue_address, '{}'),
        'coordinates', case when e.venue_lat is not null then json_build_object('lat', e.venue_lat, 'lng', e.venue_lng) end
      ) end,
      'visibility', e.visibility,
      'status', e.status,
      'accessRules', e.access_rules,
      'createdAt', community.iso_time(e.created_at),
      'updatedAt', community.iso_time(e.updated_at))
  $$;

revoke execute on function community.iso_time(timestamptz), community.event_json(community.events) from public;
grant execute on function community.iso_time(timestamptz), community.event_json(community.events)
  to authenticated, service_role;
