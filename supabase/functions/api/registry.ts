// Every REST operation of the API, as route definition + operation: what the app serves, and what
// the backend MCP endpoint's call_api dispatches through by OpenAPI operation id. Order is the
// order routes are registered in (and listed in the OpenAPI document).
import type { AnyEndpoint } from "../_shared/http/endpoint.ts";
import { eventsEndpoints } from "./events/handlers.ts";

export const endpoints: readonly AnyEndpoint[] = [
  ...eventsEndpoints,
];
