// REST for gasless relays: each route runs its operation (_shared/relays/operations.ts) as the caller.
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as relays from "../../_shared/relays/operations.ts";
import * as routes from "./routes.ts";

export const relaysEndpoints = [
  endpoint(routes.venueGasless, relays.relayVenueCall, ({ json }) => json),
  endpoint(routes.collectionGasless, relays.relayCollectionMint, ({ param, json }) => ({ collectionId: param.collectionId, mint: json })),
  endpoint(routes.getVenueGasless, relays.getVenueRelay, ({ param }) => param),
  endpoint(routes.getCollectionGasless, relays.getCollectionRelay, ({ param }) => param),
];

