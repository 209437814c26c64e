// REST for liveness and readiness: each route runs its operation (_shared/health/operations.ts), anonymously.
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as health from "../../_shared/health/operations.ts";
import * as routes from "./routes.ts";

export const healthEndpoints = [
  endpoint(routes.health, health.health, () => ({})),
  endpoint(routes.ready, health.readiness, () => ({})),
];

