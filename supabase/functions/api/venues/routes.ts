import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { ErrorBodySchema, errorResponses } from "../../_shared/http/errors.ts";
import { AddressSchema } from "../../_shared/events/schemas.ts";
import { apiKeySecurity, jsonContent } from "../../_shared/http/openapi.ts";
import { type RefusedParameter, refuseUnknownParameters } from "../../_shared/http/unknown-parameters.ts";

export const QUERY_MIN_CHARACTERS = 2;
export const QUERY_MAX_CHARACTERS = 200;

export const VenueSuggestionSchema = z
  .object({
    label: z.string().openapi({ example: "Berlin, State of Berlin, Germany", description: "One line to show in a picker" }),
    name: z.string().openapi({ example: "Berlin", description: "Use as the venue's `name` of an event" }),
    address: AddressSchema.openapi({ description: "Use as the venue's `address` of an event; `country` is ISO 3166-1 alpha-2" }),
    coordinates: z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) })
      .openapi({ example: { lat: 52.52437, lng: 13.41053 } }),
    source: z.enum(["places", "events", "photon", "nominatim"]).openapi({
      description: "places: the open GeoNames data set (CC-BY-4.0); events: the venue of an event you can see; " +
        "photon / nominatim: the external geocoder the service is configured with",
    }),
  })
  .openapi("VenueSuggestion");

const REFUSED_PARAMETERS: Record<string, RefusedParameter> = {
  limit: { code: "limit_not_supported", message: "`limit` is not a parameter; use `take` (1-20, default 10)." },
};

const autocompleteParameters = {
  q: z.string().trim().openapi({
    description: `The text typed so far, ${QUERY_MIN_CHARACTERS}-${QUERY_MAX_CHARACTERS} characters after trimming. ` +
      "Shorter: 400 `query_too_short`; longer: 400 `query_too_long`; control characters: 400 `validation_failed`.",
    example: "Berl",
  }),
  take: z.coerce.number().int().min(1).max(20).default(10)
    .openapi({ description: "Suggestions to return, 1-20. `limit` is not a parameter.", example: 10 }),
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


const responses = {
  200: {
    description: "Suggestions, best first (possibly none)",
    ...jsonContent(z.object({ items: z.array(VenueSuggestionSchema) }).openapi("VenueSuggestions")),
  },
  ...errorResponses(400, 401),
  502: {
    description: "The configured external geocoder failed, timed out or answered garbage (code `geocoder_unavailable`)",
    ...jsonContent(ErrorBodySchema),
  },
};

const DESCRIPTION =
  "Suggestions for an event's venue as the user types: a label to show, and a name, address parts and coordinates " +
  "to store as the event's `venue`. By default they come from the service's own copy of the GeoNames cities of the " +
  "world (places with more than 1,000 inhabitants; GeoNames, CC-BY-4.0) and from the venues of events visible to " +
  "you whose name starts with the text; a deployment may use a Photon or Nominatim geocoder instead.\n\n" +
  "Ranking: a name equal to the text, then names that start with it, then places whose label has a word starting " +
  "with each word of the text (`paris france`, `berlin de`). Within each: venues of events first, then one place " +
  "per country before a second from any, then bigger built-up areas. Case-insensitive; no typo tolerance.";

export const autocomplete = createRoute({
  method: "get",
  path: "/api/v3/adresses/autocomplete",
  tags: ["Venues"],
  summary: "Venue suggestions with coordinates (path spelled as in the v3 API)",
  description: DESCRIPTION,
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { query: AutocompleteQuerySchema },
  responses,
});

export const autocompleteAlias = createRoute({
  method: "get",
  path: "/api/v3/addresses/autocomplete",
  tags: ["Venues"],
  summary: "Alias of GET /api/v3/adresses/autocomplete (correct spelling)",
  description: "The same operation as `GET /api/v3/adresses/autocomplete`, which is the path the v3 API publishes.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { query: AutocompleteQuerySchema },
  responses,
});
