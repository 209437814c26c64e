// REST for Sui event-pass collections: each route runs its operation (_shared/sui/operations.ts) as the caller.
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as sui from "../../_shared/sui/operations.ts";
import * as routes from "./routes.ts";

export const suiEndpoints = [
  endpoint(routes.publishSuiCollection, sui.publishSuiCollection, ({ json }) => json),
  endpoint(routes.listSuiCollections, sui.listSuiCollections, () => ({})),
  endpoint(routes.getSuiCollection, sui.getSuiCollection, ({ param }) => param),
];
