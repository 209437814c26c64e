// REST for NFT collections: each route runs its operation (_shared/collections/operations.ts) as the caller.
import * as collections from "../../_shared/collections/operations.ts";
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as routes from "./routes.ts";

export const collectionsEndpoints = [
  endpoint(routes.registerCollection, collections.registerCollection, ({ json }) => json),
  endpoint(routes.listCollections, collections.listCollections, () => ({})),
  endpoint(routes.getCollection, collections.getCollection, ({ param }) => param),
];

