// Venue search, for every surface: suggestions from the configured geocoder (_shared/geocoding), by
// default the project's own places and the venues of events the caller can see (RLS decides), or an
// external Photon or Nominatim server. The providers run their own statements, hence ownTransactions.
import type { z } from "@hono/zod-openapi";
import { scopeOf } from "../auth/principal.ts";
import { geocoderFor } from "../geocoding/provider.ts";
import { ok, operation } from "../operations/operation.ts";
import type { AutocompleteQuerySchema } from "./schemas.ts";

export const searchVenues = operation({
  name: "venues.search",
  scopes: ["venues:read"],
  ownTransactions: true,
  async run({ principal, database, config }, { q, take }: z.output<typeof AutocompleteQuerySchema>) {
    const geocoder = geocoderFor(config);
    // An upstream geocoder is paid per request: check the key before spending one on it.
    if (geocoder.name !== "postgres") await database.verify(scopeOf(principal));
    const items = await geocoder.suggest({ q, take }, { db: database, principal });
    return ok({ items });
  },
});
