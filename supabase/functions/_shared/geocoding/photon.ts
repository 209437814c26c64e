// Photon protocol (komoot/photon): GET {url}/api?q=&limit= → a GeoJSON FeatureCollection of points.
import { z } from "zod";
import { endpoint, fetchJson } from "./http.ts";
import { cleanAddress, countryName, type GeocodingProvider, joinLabel, type Suggestion } from "./types.ts";

const text = z.string().optional().catch(undefined);

const PhotonFeature = z.object({
  type: z.literal("Feature").optional(),
  geometry: z.object({
    type: z.literal("Point").optional(),
    // GeoJSON order: [longitude, latitude]
    coordinates: z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]).rest(z.number()),
  }),
  properties: z.object({
    name: text,
    street: text,
    housenumber: text,
    postcode: text,
    city: text,
    state: text,
    country: text,
    countrycode: text,
    type: text,
  }),
});

export const PhotonResponse = z.object({
  type: z.literal("FeatureCollection").optional(),
  features: z.array(PhotonFeature).max(1000),
});

/** Photon types that are a settlement: their name is the city. */
const SETTLEMENTS = new Set(["city", "town", "village", "hamlet", "locality"]);

export function photonSuggestion(feature: z.infer<typeof PhotonFeature>): Suggestion | null {
  const p = feature.properties;
  const [lng, lat] = feature.geometry.coordinates;
  const street = p.street ? [p.street, p.housenumber].filter(Boolean).join(" ") : undefined;
  const address = cleanAddress({
    line1: street,
    city: p.city ?? (p.type && SETTLEMENTS.has(p.type) ? p.name : undefined),
    region: p.state,
    postalCode: p.postcode,
    country: p.countrycode,
  });
  const name = p.name ?? street ?? address.city ?? p.state ?? p.country;
  if (!name) return null;
  return {
    label: joinLabel([
      name,
      address.line1,
      [address.postalCode, address.city].filter(Boolean).join(" "),
      address.region === address.city ? undefined : address.region, // Berlin, Berlin
      p.country ?? countryName(address.country),
    ]),
    name,
    address,
    coordinates: { lat, lng },
    source: "photon",
  };
}

export function photonProvider(baseUrl: string, timeoutMs: number): GeocodingProvider {
  return {
    name: "photon",
    async suggest({ q, take }) {
      const url = endpoint(baseUrl, "api", { q, limit: String(take), lang: "en" });
      const body = await fetchJson("photon", url, PhotonResponse, timeoutMs);
      return body.features.map(photonSuggestion).filter((s): s is Suggestion => s !== null).slice(0, take);
    },
  };
}
