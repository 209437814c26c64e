// REST for hubs: each route runs its operation (_shared/hubs/operations.ts) as the caller.
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as hubs from "../../_shared/hubs/operations.ts";
import * as routes from "./routes.ts";

export const hubsEndpoints = [
  endpoint(routes.listHubs, hubs.listHubs, ({ query }) => query),
  endpoint(routes.createHub, hubs.createHub, ({ json }) => json),
  endpoint(routes.getHub, hubs.getHub, ({ param }) => param),
  endpoint(routes.updateHub, hubs.updateHub, ({ param, json }) => ({ hubId: param.hubId, changes: json })),
  endpoint(routes.deleteHub, hubs.deleteHub, ({ param }) => param),
  endpoint(routes.joinHub, hubs.joinHub, ({ param }) => param),
  endpoint(routes.leaveHub, hubs.leaveHub, ({ param }) => param),
];

