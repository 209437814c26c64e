// The app-backend functions in the API's OpenAPI document. Each is an edge function of its own on the
// app host ({app_url}: Supabase serves every function of a project at <origin>/functions/v1/<name>,
// and so does npm start), so its path carries that prefix and its operation names that host. The
// routes live in _shared/app-functions/, which the functions import too.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { chatRoute } from "../../_shared/app-functions/chat-with-assistant.ts";
import { discoverRoute } from "../../_shared/app-functions/discover-mcp-capabilities.ts";
import { renameRoute } from "../../_shared/app-functions/rename-chat-for-event.ts";
import type { FunctionRoute } from "../../_shared/app-functions/routes.ts";
import { transcribeRoute } from "../../_shared/app-functions/transcribe-audio.ts";
import type { AppEnv } from "../../_shared/http/context.ts";

const DOCUMENTED_FUNCTIONS: readonly FunctionRoute[] = [chatRoute, transcribeRoute, discoverRoute, renameRoute];

export function registerAppFunctions(app: OpenAPIHono<AppEnv>, publicApiRoot: string) {
  const appUrl = {
    url: "{app_url}",
    description: "The app host, which serves each function at /functions/v1/<name>",
    variables: { app_url: { default: new URL(publicApiRoot).origin, description: "The app host's origin (the Supabase project's URL)" } },
  };
  for (const { middleware: _served, ...route } of DOCUMENTED_FUNCTIONS) {
    app.openAPIRegistry.registerPath({ ...route, path: `/functions/v1${route.path}`, servers: [appUrl] });
  }
}
