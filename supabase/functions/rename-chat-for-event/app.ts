// The rename-chat-for-event function: the common rules (app-functions/app.ts) with its request
// checked, then 503 provider_not_configured: the AI provider's client is not part of the service yet.
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { renameRoute } from "./routes.ts";

export function createRenameChatForEventApp(services: AppServices) {
  return createFunctionApp(services, {
    route: renameRoute,
    ratePerMinute: (config) => config.RENAME_CHAT_FOR_EVENT_RATE_LIMIT_PER_MINUTE,
    missingProvider: () => "No AI provider is configured for rename-chat-for-event.",
  });
}
