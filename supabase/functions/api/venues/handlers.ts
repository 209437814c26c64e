import type { RouteHandler } from "@hono/zod-openapi";
import { scopeOf } from "../../_shared/auth/principal.ts";
import { geocoderFor } from "../../_shared/geocoding/provider.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import * as routes from "./routes.ts";

export const autocomplete: RouteHandler<typeof routes.autocomplete | typeof routes.autocompleteAlias, AppEnv> = async (c) => {
  const { q, take } = c.req.valid("query");
  const geocoder = geocoderFor(c.get("config"));
  const context = { db: c.get("db"), principal: c.get("principal") };
  // An upstream geocoder is paid per request: check the key before spending one on it.
  if (geocoder.name !== "postgres") await context.db.verify(scopeOf(context.principal));
  const items = await geocoder.suggest({ q, take }, context);
  return c.json({ items }, 200);
};

export const venuesRouter = createRouter()
  .openapi(routes.autocomplete, autocomplete)
  .openapi(routes.autocompleteAlias, autocomplete);
