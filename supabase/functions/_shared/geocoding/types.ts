// Venue suggestions and the providers that make them: the project's own places table (default) or
// an external geocoder speaking the Photon or Nominatim protocol.
import type { Principal } from "../auth/principal.ts";
import type { Database } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";

export type SuggestionSource = "places" | "events" | "photon" | "nominatim";

/** Address parts in the shape of an event venue's address, so a suggestion can be used as one. */
export interface SuggestionAddress {
  line1?: string;
  line2?: string;
  city?: string;
  region?: string;
  postalCode?: string;
  /** ISO 3166-1 alpha-2 */
  country?: string;
}

export interface Suggestion {
  label: string;
  name: string;
  address: SuggestionAddress;
  coordinates: { lat: number; lng: number };
  source: SuggestionSource;
}

export interface SuggestQuery {
  /** Trimmed, 2 to 200 characters, no control characters (the route validates). */
  q: string;
  /** 1 to 20 */
  take: number;
}

/** Who asks: the Postgres provider runs as the caller so that RLS decides which event venues it sees. */
export interface SuggestContext {
  db: Database;
  principal: Principal;
}

export interface GeocodingProvider {
  readonly name: "postgres" | "photon" | "nominatim";
  suggest(query: SuggestQuery, context: SuggestContext): Promise<Suggestion[]>;
}

/** The upstream geocoder failed, timed out or answered something that is not its protocol. */
export function geocoderUnavailable(provider: string, reason: string): ApiError {
  return new ApiError(502, "geocoder_unavailable", "The geocoding service did not answer usably; try again later.", { provider, reason });
}

// Limits of an event venue's address (_shared/events/schemas.ts AddressSchema): longer values are dropped
// rather than handed out as suggestions the events API would refuse.
const FIELD_LIMITS: Record<keyof SuggestionAddress, number> = {
  line1: 200, line2: 200, city: 120, region: 120, postalCode: 20, country: 2,
};

/** Keeps the address parts that are non-empty strings within the venue limits; country as alpha-2. */
export function cleanAddress(parts: Record<string, unknown>): SuggestionAddress {
  const address: SuggestionAddress = {};
  for (const key of Object.keys(FIELD_LIMITS) as Array<keyof SuggestionAddress>) {
    const raw = parts[key];
    if (typeof raw !== "string") continue;
    const value = key === "country" ? raw.trim().toUpperCase() : raw.trim();
    if (value === "" || [...value].length > FIELD_LIMITS[key]) continue;
    if (key === "country" && !/^[A-Z]{2}$/.test(value)) continue;
    address[key] = value;
  }
  return address;
}

const countryNames = new Intl.DisplayNames(["en"], { type: "region" });

/** "Germany" for "DE"; undefined for what Intl does not know. */
export function countryName(code: string | undefined): string | undefined {
  if (!code || !/^[A-Z]{2}$/.test(code)) return undefined;
  try {
    const name = countryNames.of(code);
    return name && name !== code ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Non-empty parts joined with ", ", each at most once. */
export function joinLabel(parts: Array<string | undefined | null>): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const part of parts) {
    const value = part?.trim();
    if (!value || seen.has(value.toLowerCase())) continue;
    seen.add(value.toLowerCase());
    kept.push(value);
  }
  return kept.join(", ");
}
