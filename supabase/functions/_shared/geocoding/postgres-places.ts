// The default provider: community.places (GeoNames cities, loaded by scripts/lib/places.ts) plus the
// venues of events the caller can see, ranked by community.suggest_venues (migration
// 20261123000900_community.sql, which says how), called as the caller so that RLS applies.
//
// Not done: typo tolerance. Trigram similarity over the 171,000 labels (the GiST index the first
// migration had) cost 20-100 ms for texts with no close match.
import { scopeOf } from "../auth/principal.ts";
import {
  cleanAddress, countryName, type GeocodingProvider, joinLabel, type Suggestion, type SuggestContext, type SuggestQuery,
} from "./types.ts";

interface Row {
  source: "places" | "events";
  name: string;
  region: string | null;
  country_code: string | null;
  country: string | null;
  address: Record<string, unknown> | null;
  lat: number;
  lng: number;
}

/**
 * Words of the query for the tier-3 tsquery: letters, marks and digits only, so to_tsquery cannot
 * fail on them; single letters are left out (a word starting with "b" is a third of the world).
 */
export function queryWords(q: string): string[] {
  return q.toLowerCase().split(/[^\p{L}\p{M}\p{N}]+/u).filter((w) => /[\p{L}\p{N}]/u.test(w) && [...w].length >= 2).slice(0, 8);
}

function toSuggestion(row: Row): Suggestion {
  const coordinates = { lat: row.lat, lng: row.lng };
  if (row.source === "places") {
    const address = cleanAddress({ city: row.name, region: row.region ?? undefined, country: row.country_code ?? undefined });
    return {
      label: joinLabel([row.name, row.region, row.country ?? row.country_code]),
      name: row.name,
      address,
      coordinates,
      source: "places",
    };
  }
  const address = cleanAddress(row.address ?? {});
  return {
    label: joinLabel([row.name, address.line1, address.city, address.region, countryName(address.country) ?? address.country]),
    name: row.name,
    address,
    coordinates,
    source: "events",
  };
}

export const postgresPlacesProvider: GeocodingProvider = {
  name: "postgres",
  async suggest({ q, take }: SuggestQuery, { db, principal }: SuggestContext): Promise<Suggestion[]> {
    const words = queryWords(q);
    const tsquery = words.length ? words.map((w) => `${w}:*`).join(" & ") : null;
    const firstWord = words[0] ?? "";
    const rows = await db.statement(scopeOf(principal), (tx) => tx<Row[]>`
      select * from community.suggest_venues(${q}::text, ${take}::integer, ${tsquery}::text, ${firstWord}::text)`);
    return rows.map(toSuggestion);
  },
};
