import { createRoute } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { ErrorBodySchema, errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent } from "../../_shared/http/openapi.ts";
import { AutocompleteQuerySchema, VenueSuggestionsSchema } from "../../_shared/venues/schemas.ts";

const responses = {
  200: { description: "Suggestions, best first (possibly none)", ...jsonContent(VenueSuggestionsSchema) },
  ...errorResponses(400, 401),
  502: {
    description: "The configured external geocoder failed, timed out or answered garbage (code `geocoder_unavailable`)",
    ...jsonContent(ErrorBodySchema),
  },
};

const DESCRIPTION =
  "Suggestions for an event's venue as the user types: a label to show, and a name, address parts and coordinates " +
  "to store as the event's `venue`. By default they come from the service's own copy of the GeoNames cities of the " +
  "world (places with more than 1,000 inhabitants; GeoNames, CC-BY-4.0) and from the venues of events visible to " +
  "you whose name starts with the text; a deployment may use a Photon or Nominatim geocoder instead.\n\n" +
  "Ranking: a name equal to the text, then names that start with it, then places whose label has a word starting " +
  "with each word of the text (`paris france`, `berlin de`). Within each: venues of events first, then one place " +
  "per country before a second from any, then bigger built-up areas. Case-insensitive; no typo tolerance.";

export const autocomplete = createRoute({
  operationId: "autocompleteAddresses",
  method: "get",
  path: "/api/v3/adresses/autocomplete",
  tags: ["Venues"],
  summary: "Venue suggestions with coordinates (path spelled as in the v3 API)",
  description: DESCRIPTION,
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { query: AutocompleteQuerySchema },
  responses,
});

export const autocompleteAlias = createRoute({
  operationId: "autocompleteAddressesAlias",
  method: "get",
  path: "/api/v3/addresses/autocomplete",
  tags: ["Venues"],
  summary: "Alias of GET /api/v3/adresses/autocomplete (correct spelling)",
  description: "The same operation as `GET /api/v3/adresses/autocomplete`, which is the path the v3 API publishes.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { query: AutocompleteQuerySchema },
  responses,
});
