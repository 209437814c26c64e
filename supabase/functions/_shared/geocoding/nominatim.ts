// Nominatim protocol (OpenStreetMap): GET {url}/search?q=&format=jsonv2&addressdetails=1&limit=
import { z } from "zod";
import { endpoint, fetchJson } from "./http.ts";
import { cleanAddress, type GeocodingProvider, type Suggestion } from "./types.ts";

const text = z.string().optional().catch(undefined);
// Nominatim sends coordinates as decimal strings.
const coordinate = (limit: number) =>
  z.union([z.string(), z.number()]).transform(Number).pipe(z.number().min(-limit).max(limit));

const NominatimPlace = z.object({
  display_name: z.string().min(1),
  lat: coordinate(90),
  lon: coordinate(180),
  name: text,
  address: z.object({
    road: text,
    pedestrian: text,
    house_number: text,
    city: text,
    town: text,
    village: text,
    hamlet: text,
    municipality: text,
    state: text,
    postcode: text,
    country_code: text,
  }).optional(),
});

export const NominatimResponse = z.array(NominatimPlace).max(1000);

export function nominatimSuggestion(place: z.infer<typeof NominatimPlace>): Suggestion {
  const a = place.address ?? {};
  const road = a.road ?? a.pedestrian;
  const address = cleanAddress({
    line1: road ? [road, a.house_number].filter(Boolean).join(" ") : undefined,
    city: a.city ?? a.town ?? a.village ?? a.hamlet ?? a.municipality,
    region: a.state,
    postalCode: a.postcode,
    country: a.country_code,
  });
  const name = place.name?.trim() || place.display_name.split(",")[0]!.trim() || place.display_name;
  return { label: place.display_name, name, address, coordinates: { lat: place.lat, lng: place.lon }, source: "nominatim" };
}

export function nominatimProvider(baseUrl: string, timeoutMs: number): GeocodingProvider {
  return {
    name: "nominatim",
    async suggest({ q, take }) {
      const url = endpoint(baseUrl, "search", {
        q, format: "jsonv2", addressdetails: "1", limit: String(take), "accept-language": "en",
      });
      const body = await fetchJson("nominatim", url, NominatimResponse, timeoutMs);
      return body.map(nominatimSuggestion).slice(0, take);
    },
  };
}
