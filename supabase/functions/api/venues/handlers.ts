// REST for venue search: both spellings of the path run searchVenues (_shared/venues/operations.ts) as the caller.
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as venues from "../../_shared/venues/operations.ts";
import * as routes from "./routes.ts";

export const venuesEndpoints = [
  endpoint(routes.autocomplete, venues.searchVenues, ({ query }) => query),
  endpoint(routes.autocompleteAlias, venues.searchVenues, ({ query }) => query),
];

