// Venue search's shapes: the text typed so far, and suggestions in the shape of an event's venue
// (_shared/events/schemas.ts), so a suggestion can be stored as one.
import { z } from "@hono/zod-openapi";
import { AddressSchema } from "../events/schemas.ts";
import { type RefusedParameter, refuseUnknownParameters } from "../http/unknown-parameters.ts";

export const QUERY_MIN_CHARACTERS = 2;
export const QUERY_MAX_CHARACTERS = 200;

export const VenueSuggestionSchema = z
  .object({
    label: z.string().openapi({ example: "Berlin, State of Berlin, Germany" }).describe("One line to show in a picker"),
    name: z.string().openapi({ example: "Berlin" }).describe("Use as the venue's `name` of an event"),
    address: AddressSchema.describe("Use as the venue's `address` of an event; `country` is ISO 3166-1 alpha-2"),
    coordinates: z.object({
      lat: z.number().min(-90).max(90).describe("Latitude in degrees, -90 to 90 (WGS 84)"),
      lng: z.number().min(-180).max(180).describe("Longitude in degrees, -180 to 180 (WGS 84)"),
    })
      .openapi({ example: { lat: 52.52437, lng: 13.41053 } })
      .describe("Use as the venue's `coordinates` of an event"),
    source: z.enum(["places", "events", "photon", "nominatim"]).describe("places: the open GeoNames data set (CC-BY-4.0); events: the venue of an event you can see; " +
        "photon / nominatim: the external geocoder the service is configured with"),
  })
  .openapi("VenueSuggestion")
  .describe("A place matching the typed text, in the shape of an event's venue");

const REFUSED_PARAMETERS: Record<string, RefusedParameter> = {
  limit: { code: "limit_not_supported", message: "`limit` is not a parameter; use `take` (1-20, default 10)." },
};

const autocompleteParameters = {
  q: z.string().trim().openapi({ example: "Berl" }).describe(`The text typed so far, ${QUERY_MIN_CHARACTERS}-${QUERY_MAX_CHARACTERS} characters after trimming. ` +
      "Shorter: 400 `query_too_short`; longer: 400 `query_too_long`; control characters: 400 `validation_failed`."),
  take: z.coerce.number().int().min(1).max(20).default(10)
    .openapi({ example: 10 })
    .describe("Suggestions to return, 1-20. `limit` is not a parameter."),
};

export const AutocompleteQuerySchema = z
  .object(autocompleteParameters)
  .catchall(z.unknown())
  .superRefine((query, ctx) => {
    refuseUnknownParameters(query, autocompleteParameters, REFUSED_PARAMETERS, ctx);
    const q = query.q;
    if (typeof q !== "string") return;
    if (/\p{Cc}/u.test(q)) {
      ctx.addIssue({ code: "custom", path: ["q"], message: "must not contain control characters", params: { code: "validation_failed" } });
      return;
    }
    const characters = [...q].length;
    if (characters < QUERY_MIN_CHARACTERS) {
      ctx.addIssue({
        code: "custom", path: ["q"], params: { code: "query_too_short" },
        message: `type at least ${QUERY_MIN_CHARACTERS} characters (not counting surrounding spaces)`,
      });
    } else if (characters > QUERY_MAX_CHARACTERS) {
      ctx.addIssue({
        code: "custom", path: ["q"], params: { code: "query_too_long" },
        message: `at most ${QUERY_MAX_CHARACTERS} characters`,
      });
    }
  });

export const VenueSuggestionsSchema = z.object({ items: z.array(VenueSuggestionSchema).describe("Best match first; at most `take`") })
  .openapi("VenueSuggestions");
