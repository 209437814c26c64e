// REST for events: each route runs its operation (_shared/events/operations.ts) as the caller.
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as events from "../../_shared/events/operations.ts";
import * as routes from "./routes.ts";

export const eventsEndpoints = [
  endpoint(routes.listEvents, events.listEvents, ({ query }) => query),
  endpoint(routes.createEvent, events.createEvent, ({ json }) => json),
  endpoint(routes.getEvent, events.getEvent, ({ param }) => param),
  endpoint(routes.updateEvent, events.updateEvent, ({ param, json }) => ({ eventId: param.eventId, changes: json })),
  endpoint(routes.deleteEvent, events.deleteEvent, ({ param }) => param),
];

