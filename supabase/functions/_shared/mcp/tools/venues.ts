// MCP tools of the venues domain (_shared/venues).
import { define } from "../tools.ts";
import { AutocompleteQuerySchema, VenueSuggestionsSchema } from "../../venues/schemas.ts";
import * as venues from "../../venues/operations.ts";
import { READ } from "./common.ts";

/** The venues tools, by name. */
export const venueTools = {
  search_venues: define({
    name: "search_venues", toolset: "venues", operation: venues.searchVenues, title: "Find a venue",
    description: "Venue suggestions with coordinates for typed text (GET /api/v3/adresses/autocomplete).",
    input: AutocompleteQuerySchema, output: VenueSuggestionsSchema, annotations: { ...READ, openWorldHint: true },
  }),
};
