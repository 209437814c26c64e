// REST for the caller's MCP audit: the route runs its operation (_shared/audit/operations.ts) as the caller.
import * as audit from "../../_shared/audit/operations.ts";
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as routes from "./routes.ts";

export const meAuditEndpoints = [
  endpoint(routes.listMcpToolCalls, audit.listToolCalls, ({ query }) => query),
];

