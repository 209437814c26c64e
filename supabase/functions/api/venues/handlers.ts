import type { RouteHandler } from "@hono/zod-openapi";
import { geocoderFor } from "../../_shared/geocoding/provider.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import * as routes from "./routes.ts";

export const autocomplete: RouteHandler<typeof routes.autocomplete | typeof routes.autocompleteAlias, AppEnv> = async (c) => {
  const { q, take } = c.req.valid("query");
  const items = await geocoderFor(c.get("config")).suggest({ q, take }, { db: c.get("db"), principal: c.get("principal") });
  return c.json({ items }, 200);
};

export const venuesRouter = createRouter()
  .openapi(routes.autocomplete, autocomplete)
  .openapi(routes.autocompleteAlias, autocomplete);
