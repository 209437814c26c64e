// REST for the caller's MCP grants: each route runs its operation (_shared/grants/operations.ts) as the caller.
import * as grants from "../../_shared/grants/operations.ts";
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as routes from "./routes.ts";

export const meGrantsEndpoints = [
  endpoint(routes.listMcpGrants, grants.listGrants, () => undefined),
  endpoint(routes.revokeMcpGrant, grants.revokeGrant, ({ param }) => param),
];

