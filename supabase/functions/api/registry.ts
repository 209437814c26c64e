// Every REST operation of the API, as route definition + operation: what the app serves (in this
// order, which is also the OpenAPI document's), and what the backend MCP endpoint's call_api
// dispatches through by OpenAPI operation id.
import type { AnyEndpoint } from "../_shared/http/endpoint.ts";
import { checkinEndpoints } from "./checkin/handlers.ts";
import { checkoutEndpoints } from "./checkout/handlers.ts";
import { collectionsEndpoints } from "./collections/handlers.ts";
import { eventsEndpoints } from "./events/handlers.ts";
import { healthEndpoints } from "./health/handlers.ts";
import { hubsEndpoints } from "./hubs/handlers.ts";
import { identityEndpoints } from "./identity/handlers.ts";
import { meAuditEndpoints } from "./me-audit/handlers.ts";
import { meGrantsEndpoints } from "./me-grants/handlers.ts";
import { relaysEndpoints } from "./relays/handlers.ts";
import { sponsorshipEndpoints } from "./sponsorship/handlers.ts";
import { suiEndpoints } from "./sui/handlers.ts";
import { venuesEndpoints } from "./venues/handlers.ts";

export const endpoints: readonly AnyEndpoint[] = [
  ...healthEndpoints,
  ...identityEndpoints,
  ...eventsEndpoints,
  ...checkinEndpoints,
  ...hubsEndpoints,
  ...venuesEndpoints,
  ...collectionsEndpoints,
  ...suiEndpoints,
  ...checkoutEndpoints,
  ...sponsorshipEndpoints,
  ...relaysEndpoints,
  ...meGrantsEndpoints,
  ...meAuditEndpoints,
];
