// The chat-with-assistant function: the common rules (app-functions/app.ts) with its request checked,
// then 503 provider_not_configured: the AI provider's client is not part of the service yet.
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { chatRoute } from "./routes.ts";

export function createChatWithAssistantApp(services: AppServices) {
  return createFunctionApp(services, {
    route: chatRoute,
    ratePerMinute: (config) => config.CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE,
    missingProvider: () => "No AI provider is configured for chat-with-assistant.",
  });
}
