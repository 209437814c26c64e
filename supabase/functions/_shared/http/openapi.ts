// Pieces every route definition uses. A field's description is set with zod's `.describe()`, last in
// its chain: the OpenAPI document and the MCP tools' JSON Schemas both read it (a description given
// only through `.openapi({ description })` would reach the document but not the tools).
import { z } from "@hono/zod-openapi";

/** The service's public ids: 24-hex ObjectIDs generated in SQL. */
export const ObjectId = z.string().regex(/^[0-9a-f]{24}$/, "must be a 24-hex id").openapi({ example: "65f1c0a2b3d4e5f601234567" })
  .describe("A 24-hex id the service generated");

/** An instant in an answer: always UTC with milliseconds. */
export const Timestamp = z.string().openapi({ format: "date-time", example: "2026-12-05T18:00:00.000Z" })
  .describe("UTC, RFC 3339 with milliseconds");
export const CreatedAt = Timestamp.describe("When it was created (UTC, RFC 3339)");
export const UpdatedAt = Timestamp.describe("When it last changed (UTC, RFC 3339)");

/** The path parameters the API takes, each described once; a route's `params` come from `pathIds`. */
const PATH_IDS = {
  eventId: "The event's id (as `createEvent` or `listEvents` gave it).",
  reservationId: "The reservation's id (as `createReservation` or `listEventReservations` gave it).",
  userId: "The staff member's user id (as `listEventStaff` gave it).",
  scanId: "The scan's id (as `scanTicket` or `recordOfflineScans` gave it).",
  braceletId: "The bracelet's id (as `bindBracelet` gave it).",
  hubId: "The hub's id (as `createHub` or `listHubs` gave it).",
  collectionId: "The collection's record id at this service (as `registerCollection` or `publishSuiCollection` gave it), not its chain address or object id.",
  relayId: "The gasless relay's id (as `createVenueGaslessRelay` or `createCollectionGaslessRelay` gave it).",
  checkoutId: "The checkout session's id (as `createCheckoutSession` gave it).",
  attemptId: "The payment attempt's id (as `preparePayment` gave it).",
  grantId: "The MCP grant's id (as `listMcpGrants` gave it).",
} as const;

/** A `params` schema of the named path ids, each with its description (the parameter's, in the document). */
export function pathIds<K extends keyof typeof PATH_IDS>(...names: K[]): z.ZodObject<{ [P in K]: typeof ObjectId }> {
  return z.object(Object.fromEntries(names.map((name) => [name, ObjectId.openapi({ description: PATH_IDS[name] })])) as { [P in K]: typeof ObjectId });
}

/** `security` of a route authenticated by `x-api-key` (the scheme registered by the docs routes). */
export const apiKeySecurity = [{ ApiKeyAuth: [] }];

/** `content` of a JSON request or response body. */
export const jsonContent = <T extends z.ZodTypeAny>(schema: T) => ({ content: { "application/json": { schema } } });

/** What an instant the API accepts looks like; a field that takes one says what it means, then this. */
export const INSTANT_FORMAT = "RFC 3339 date-time with `Z` or an offset such as `+01:00`, at most 3 fractional digits (milliseconds), " +
  "from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once converted to UTC. Answers give it in UTC with milliseconds.";

const EARLIEST_INSTANT = Date.UTC(1970, 0, 1);
const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An instant the API accepts: RFC 3339 with an offset, at most millisecond precision, from
 * 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once taken to UTC. The driver sends
 * timestamptz parameters through JavaScript's Date (finer digits were silently cut) and answers
 * carry milliseconds, so what is accepted is exactly what is stored and returned; an instant past
 * year 9999 in UTC became `+010000-...`, which PostgreSQL refused with a 500.
 */
export const Instant = z
  .string()
  .datetime({ offset: true, abort: true })
  .refine((value) => !/\.\d{4}/.test(value), { message: "at most 3 fractional digits (milliseconds)", abort: true })
  .refine((value) => {
    const time = Date.parse(value);
    return time >= EARLIEST_INSTANT && time <= LATEST_INSTANT;
  }, "must lie between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (in UTC)")
  .describe(INSTANT_FORMAT);
