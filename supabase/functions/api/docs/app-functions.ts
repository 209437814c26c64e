// The app-backend functions in the API's OpenAPI document. Each is an edge function of its own on the
// app host (SPEC's {app_url}: Supabase serves every function of a project at
// <origin>/functions/v1/<name>, and so does npm start), so its path carries that prefix and its
// operation names that host. A function joins the list once it does its work: one that answers
// 503 provider_not_configured to every call is not described.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { FunctionRoute } from "../../_shared/app-functions/routes.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { chatRoute } from "../../chat-with-assistant/routes.ts";
import { discoverRoute } from "../../discover-mcp-capabilities/routes.ts";

const DOCUMENTED_FUNCTIONS: readonly FunctionRoute[] = [chatRoute, discoverRoute];

export function registerAppFunctions(app: OpenAPIHono<AppEnv>, publicApiRoot: string) {
  const appUrl = new URL(publicApiRoot).origin;
  for (const { middleware: _served, ...route } of DOCUMENTED_FUNCTIONS) {
    app.openAPIRegistry.registerPath({
      ...route,
      path: `/functions/v1${route.path}`,
      servers: [{ url: appUrl, description: "The app host ({app_url}), which serves each function at /functions/v1/<name>" }],
    });
  }
}
